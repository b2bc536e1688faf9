import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';
import { INT32_MAX, MAX_TOPIC_NAME_LENGTH } from '@cohort/protocol';
import { QueryInt } from './query-int';

export class DeleteOffsetsQueryDto {
  @ApiProperty({ example: 'orders' })
  @IsString()
  @MaxLength(MAX_TOPIC_NAME_LENGTH)
  topic: string;

  @ApiPropertyOptional({ example: 0, description: 'Omit to delete every committed partition of the topic.' })
  @IsOptional()
  @QueryInt()
  @IsInt()
  @Min(0)
  @Max(INT32_MAX)
  partition?: number;
}
