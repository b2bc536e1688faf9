import { ApiProperty } from '@nestjs/swagger';
import type * as P from '@cohort/protocol';

class DeadLetterRangeResponse implements P.DeadLetterRange {
  @ApiProperty({ example: 'jobs' })
  topic: string;

  @ApiProperty({ example: 0 })
  partition: number;

  @ApiProperty({ example: 120 })
  firstOffset: number;

  @ApiProperty({ example: 129 })
  lastOffset: number;

  @ApiProperty({
    enum: ['rejected', 'delivery-limit'],
    description: 'A member rejected it, or it was delivered GROUP_SHARE_DELIVERY_COUNT_LIMIT times.',
  })
  reason: 'rejected' | 'delivery-limit';

  @ApiProperty({ example: 5, description: 'Deliveries before it was archived.' })
  deliveryCount: number;
}

/** `GET /v1/groups/:groupId/dead-letters`. */
export class DeadLettersResponse implements P.DeadLetters {
  @ApiProperty({ example: 'jobs-workers' })
  groupId: string;

  @ApiProperty({ type: () => [DeadLetterRangeResponse], description: 'By partition, ascending offsets.' })
  deadLetters: DeadLetterRangeResponse[];
}

/** `POST /v1/groups/:groupId/dead-letters/redeliver`. */
export class RedeliverDeadLettersResponse implements P.RedeliverDeadLettersResult {
  @ApiProperty({ example: 'jobs-workers' })
  groupId: string;

  @ApiProperty({ example: 'jobs' })
  topic: string;

  @ApiProperty({ example: 0 })
  partition: number;

  @ApiProperty({ example: 10, description: 'Dead offsets of the range available again, counted from zero.' })
  redelivered: number;

  @ApiProperty({ example: 120, description: 'SPSO after the redelivery: moved back when dead letters lay below it.' })
  startOffset: number;

  @ApiProperty({ example: 1, description: 'Moves when SPSO moves back.' })
  stateEpoch: number;
}
