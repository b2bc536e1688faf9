import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { Type } from 'class-transformer';
import { ArrayMaxSize, IsArray, IsInt, IsObject, IsOptional, Max, Min, ValidateNested } from 'class-validator';
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

  @ApiPropertyOptional({
    example: 1764620000000,
    description:
      "When the log end was `endOffset` (ms since the epoch, e.g. the append time of the partition's last record); the arrival time when absent. Dates the entry of the partition's time index (docs/lag.md); more than an hour ahead of the node's clock is 400 INVALID_TIMESTAMP.",
  })
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(Number.MAX_SAFE_INTEGER)
  timestamp?: number;
}

export class EndOffsetsDto {
  @ApiProperty({ type: () => [PartitionEndOffsetDto] })
  @IsArray()
  @ArrayMaxSize(MAX_TOPIC_PARTITIONS)
  @IsObject({ each: true })
  @ValidateNested({ each: true })
  @Type(() => PartitionEndOffsetDto)
  partitions: PartitionEndOffsetDto[];
}
