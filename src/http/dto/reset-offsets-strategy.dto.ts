import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsObject,
  IsOptional,
  IsString,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';
import { RESET_STRATEGIES, type ResetOffsetsRequest, type ResetStrategy } from '@cohort/protocol';
import { MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { MAX_TOPIC_PARTITIONS } from './rest-limits';

class ResetTopicSelectionDto {
  @ApiProperty({ example: 'orders' })
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  name: string;

  @ApiPropertyOptional({ example: [0, 2], description: 'Partitions to reset; all of the topic when absent.' })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_TOPIC_PARTITIONS)
  @IsInt({ each: true })
  @Min(0, { each: true })
  @Max(MAX_TOPIC_PARTITIONS, { each: true })
  partitions?: number[];
}

/** `POST /v1/groups/:groupId/offsets/reset` (kafka-consumer-groups.sh `--reset-offsets`). */
export class ResetOffsetsByStrategyDto implements ResetOffsetsRequest {
  @ApiPropertyOptional({
    type: () => [ResetTopicSelectionDto],
    description: 'The partitions to reset; or set allTopics.',
  })
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(10_000)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => ResetTopicSelectionDto)
  topics?: ResetTopicSelectionDto[];

  @ApiPropertyOptional({ example: false, description: 'Every partition the group has an offset for.' })
  @IsOptional()
  @IsBoolean()
  allTopics?: boolean;

  @ApiProperty({ enum: RESET_STRATEGIES, example: 'earliest' })
  @IsIn(RESET_STRATEGIES as ResetStrategy[])
  strategy: ResetStrategy;

  @ApiPropertyOptional({
    example: -100,
    description: 'The offset (strategy `offset`) or the shift (strategy `shift`).',
  })
  @IsOptional()
  @IsInt()
  @Min(Number.MIN_SAFE_INTEGER)
  @Max(Number.MAX_SAFE_INTEGER)
  value?: number;

  @ApiPropertyOptional({
    example: '2026-12-05T10:00:00.000',
    description:
      "Strategy `datetime` (kafka-consumer-groups.sh `--to-datetime`): 'YYYY-MM-DDTHH:mm:SS.sss', UTC unless it ends with Z or an offset (+01:00); the end offset as of then (docs/lag.md).",
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  datetime?: string;

  @ApiPropertyOptional({
    example: 'PT1H',
    description:
      'Strategy `duration` (`--by-duration`): an ISO-8601 duration `PnDTnHnMn.nS` (PT1H, P1DT2H); the end offset as of that long ago.',
  })
  @IsOptional()
  @IsString()
  @MaxLength(64)
  duration?: string;

  @ApiPropertyOptional({
    example: true,
    default: true,
    description: 'Only preview (the default); false commits the preview, Empty groups only.',
  })
  @IsOptional()
  @IsBoolean()
  dryRun?: boolean;
}
