import { Type } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import type { OffsetFetchRequest, OffsetFetchTopic } from '@cohort/protocol';
import { INT32_MAX, INT32_MIN, MAX_ID_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { Describe, IsNullable } from '../contract/schema-decorators';

class OffsetFetchTopicDto implements OffsetFetchTopic {
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  name: string;

  @IsArray()
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(INT32_MAX, { each: true })
  partitionIndexes: number[];
}

export class OffsetFetchDto implements OffsetFetchRequest {
  @Describe('The group id.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  /** null fetches every committed offset of the group; the field itself is required. */
  @Describe('null for every committed offset of the group.')
  @IsNullable()
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => OffsetFetchTopicDto)
  topics: OffsetFetchTopicDto[] | null;

  @Describe('Answer 88 UNSTABLE_OFFSET_COMMIT while a commit is pending.')
  @IsOptional()
  @IsBoolean()
  requireStable?: boolean;

  @Describe(
    "A consumer group's member fetching: with memberEpoch, checked as a commit's (25 UNKNOWN_MEMBER_ID, 113 STALE_MEMBER_EPOCH).",
  )
  @IsOptional()
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  memberId?: string | null;

  @Describe('The member epoch of memberId; -1 (the default) with no member id is a fetch from outside the group.')
  @IsOptional()
  @IsInt()
  @Min(INT32_MIN)
  @Max(INT32_MAX)
  memberEpoch?: number;
}
