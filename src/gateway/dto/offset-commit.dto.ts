import { Type } from 'class-transformer';
import {
  IsArray,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateNested,
} from 'class-validator';
import type { OffsetCommitPartition, OffsetCommitRequest, OffsetCommitTopic } from '@cohort/protocol';
import { INT32_MAX, NO_GENERATION_ID, MAX_ID_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

class OffsetCommitPartitionDto implements OffsetCommitPartition {
  @IsInt()
  @Min(0)
  @Max(INT32_MAX)
  partitionIndex: number;

  /** int64 in Kafka; JSON numbers are exact up to 2^53 - 1, which bounds what we accept. */
  @Describe('Next offset to consume.')
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  committedOffset: number;

  @IsOptional()
  @IsInt()
  @Min(-1)
  @Max(INT32_MAX)
  committedLeaderEpoch?: number;

  /** Size is the coordinator's check (OFFSET_METADATA_TOO_LARGE), not a validation failure. */
  @Describe('At most OFFSET_METADATA_MAX_BYTES.')
  @IsOptional()
  @IsString()
  committedMetadata?: string | null;
}

class OffsetCommitTopicDto implements OffsetCommitTopic {
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  name: string;

  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => OffsetCommitPartitionDto)
  partitions: OffsetCommitPartitionDto[];
}

export class OffsetCommitDto implements OffsetCommitRequest {
  @Describe('The group id.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  /** -1 for a simple consumer that is not a group member. */
  @Describe('The generation the member belongs to (-1 for a simple consumer that is not a member).')
  @IsInt()
  @Min(NO_GENERATION_ID)
  @Max(INT32_MAX)
  generationId: number;

  @Describe('The member id the coordinator gave (omitted by a simple consumer).')
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId?: string;

  @Describe('Static membership (KIP-345): a stable id of this consumer instance.')
  @IsOptional()
  @IsString()
  @MinLength(1)
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  groupInstanceId?: string | null;

  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => OffsetCommitTopicDto)
  topics: OffsetCommitTopicDto[];
}
