import { ApiProperty } from '@nestjs/swagger';
import { LAG_STATUSES, type GroupLag, type LagSample, type LagStatus, type PartitionLag } from '@cohort/protocol';

class LagSampleResponse implements LagSample {
  @ApiProperty({ example: 1764620000000 })
  timestamp: number;

  @ApiProperty({ example: 3900 })
  committedOffset: number;

  @ApiProperty({ type: Number, nullable: true, example: 4700 })
  logEndOffset: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 800 })
  lag: number | null;
}

class PartitionLagResponse implements PartitionLag {
  @ApiProperty({ example: 'orders' })
  topic: string;

  @ApiProperty({ example: 0 })
  partition: number;

  @ApiProperty({ example: 4100 })
  committedOffset: number;

  @ApiProperty({ type: Number, nullable: true, example: 5000 })
  logEndOffset: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 900 })
  lag: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 184000,
    description:
      'How long ago the committed offset was the log end (docs/lag.md); 0 when caught up, null when unknown.',
  })
  timeLagMs: number | null;

  @ApiProperty({ enum: LAG_STATUSES, example: 'WARN', description: "Burrow's evaluation (docs/lag.md)." })
  status: LagStatus;

  @ApiProperty({ type: () => [LagSampleResponse], description: 'The recent window, oldest first (at most 11 points).' })
  history: LagSampleResponse[];
}

/** `GET /v1/groups/:groupId/lag`. */
export class GroupLagResponse implements GroupLag {
  @ApiProperty({ example: 'billing' })
  groupId: string;

  @ApiProperty({
    enum: LAG_STATUSES,
    example: 'WARN',
    description: 'The worst of its partitions; UNKNOWN when none could be evaluated.',
  })
  status: LagStatus;

  @ApiProperty({ type: Number, nullable: true, example: 1240, description: "null when no partition's lag is known." })
  totalLag: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 900 })
  maxLag: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 184000 })
  maxTimeLagMs: number | null;

  @ApiProperty({ type: () => [PartitionLagResponse] })
  partitions: PartitionLagResponse[];
}
