import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsOptional, Max, Min, ValidateNested } from 'class-validator';
import { MAX_TOPIC_PARTITIONS } from './rest-limits';

class PartitionEndOffsetDto {
  @ApiProperty({ example: 0 })
  @IsInt()
  @Min(0)
  @Max(MAX_TOPIC_PARTITIONS)
  partition: number;

  @ApiProperty({ example: 1500 })
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  endOffset: number;

  @ApiPropertyOptional({
    example: 200,
    description: 'The log start offset (what an `earliest` reset goes to); kept from an earlier report when absent.',
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  startOffset?: number;
}

export class EndOffsetsDto {
  @ApiProperty({ type: () => [PartitionEndOffsetDto] })
  @IsArray()
  @ArrayMaxSize(MAX_TOPIC_PARTITIONS)
  @ValidateNested({ each: true })
  @Type(() => PartitionEndOffsetDto)
  partitions: PartitionEndOffsetDto[];
}
