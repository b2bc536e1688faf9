import { ApiProperty } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { IsArray, IsInt, IsObject, IsString, Max, MaxLength, Min, ValidateNested } from 'class-validator';
import type { OffsetCommitTopic } from '@cohort/protocol';
import { INT32_MAX, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';

class ResetPartitionDto {
  @ApiProperty({ example: 0 })
  @IsInt()
  @Min(0)
  @Max(INT32_MAX)
  partitionIndex: number;

  @ApiProperty({ example: 42 })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  committedOffset: number;
}

class ResetTopicDto implements OffsetCommitTopic {
  @ApiProperty({ example: 'orders' })
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  name: string;

  @ApiProperty({ type: () => [ResetPartitionDto] })
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ResetPartitionDto)
  partitions: ResetPartitionDto[];
}

export class ResetOffsetsDto {
  @ApiProperty({ type: () => [ResetTopicDto] })
  @IsArray()
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ResetTopicDto)
  topics: ResetTopicDto[];
}
