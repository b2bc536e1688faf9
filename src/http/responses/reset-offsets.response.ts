import { ApiProperty } from '@nestjs/swagger';
import type { ResetOffsetsEntry, ResetOffsetsResult } from '@cohort/protocol';

class ResetOffsetsEntryResponse implements ResetOffsetsEntry {
  @ApiProperty({ example: 'orders' })
  topic: string;

  @ApiProperty({ example: 0 })
  partition: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 4100,
    description: 'null: no committed offset there (a share group: its start offset, SPSO, null where it has no state).',
  })
  currentOffset: number | null;

  @ApiProperty({ example: 3600 })
  newOffset: number;
}

/** `POST /v1/groups/:groupId/offsets/reset`. */
export class ResetOffsetsResponse implements ResetOffsetsResult {
  @ApiProperty({ example: 'billing' })
  groupId: string;

  @ApiProperty({ example: true, description: 'true: a preview, nothing changed.' })
  dryRun: boolean;

  @ApiProperty({ type: () => [ResetOffsetsEntryResponse] })
  offsets: ResetOffsetsEntryResponse[];
}
