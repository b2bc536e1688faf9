import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { TopicInfo } from '@cohort/protocol';

const PARTITION_MAP = { type: 'object', additionalProperties: { type: 'integer' } } as const;

/** A topic of the registry (`GET /v1/topics`, `GET /v1/topics/:name`, and what a change answers). */
export class TopicResponse implements TopicInfo {
  @ApiProperty({ example: 'orders' })
  name: string;

  @ApiProperty({ example: 6 })
  partitions: number;

  @ApiProperty({
    ...PARTITION_MAP,
    example: { 0: 5000, 1: 2550 },
    description: 'partition → latest reported log end offset; {} when none.',
  })
  endOffsets: Record<number, number>;

  @ApiPropertyOptional({ ...PARTITION_MAP, example: { 0: 200 }, description: 'partition → reported log start offset.' })
  startOffsets?: Record<number, number>;

  @ApiPropertyOptional({
    ...PARTITION_MAP,
    example: { 0: 1764620000000 },
    description: 'partition → when the latest report arrived (ms since the epoch).',
  })
  reportedAt?: Record<number, number>;
}
