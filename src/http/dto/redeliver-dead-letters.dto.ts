import { ApiProperty } from '@nestjs/swagger';
import { IsInt, IsString, Max, MaxLength, Min } from 'class-validator';
import { MAX_TOPIC_NAME_LENGTH, type RedeliverDeadLettersRequest } from '@cohort/protocol';
import { MAX_TOPIC_PARTITIONS } from './rest-limits';

/** `POST /v1/groups/:groupId/dead-letters/redeliver`: a range of one share partition. */
export class RedeliverDeadLettersDto implements RedeliverDeadLettersRequest {
  @ApiProperty({ example: 'jobs' })
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  topic: string;

  @ApiProperty({ example: 0 })
  @IsInt()
  @Min(0)
  @Max(MAX_TOPIC_PARTITIONS)
  partition: number;

  @ApiProperty({ example: 120, description: 'First offset of the range (inclusive).' })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  firstOffset: number;

  @ApiProperty({ example: 129, description: 'Last offset of the range (inclusive).' })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  lastOffset: number;
}
