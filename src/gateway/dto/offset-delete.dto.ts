import { Type } from 'class-transformer';
import { IsArray, IsInt, IsObject, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import type { OffsetDeleteRequest, OffsetDeleteTopic } from '@cohort/protocol';
import { INT32_MAX, MAX_ID_LENGTH, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { Describe } from '../contract/schema-decorators';

class OffsetDeletePartitionDto {
  @IsInt()
  @Min(0)
  @Max(INT32_MAX)
  partitionIndex: number;
}

class OffsetDeleteTopicDto implements OffsetDeleteTopic {
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  name: string;

  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => OffsetDeletePartitionDto)
  partitions: OffsetDeletePartitionDto[];
}

export class OffsetDeleteDto implements OffsetDeleteRequest {
  @Describe('The group id.')
  @IsString()
  @MaxLength(MAX_ID_LENGTH)
  groupId: string;

  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => OffsetDeleteTopicDto)
  topics: OffsetDeleteTopicDto[];
}
