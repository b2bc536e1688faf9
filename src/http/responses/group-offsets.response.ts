import { ApiProperty } from '@nestjs/swagger';
import type { CommittedOffsetWithLag, GroupOffsets } from '@cohort/protocol';

class CommittedOffsetResponse implements CommittedOffsetWithLag {
  @ApiProperty({ example: 'orders' })
  topic: string;

  @ApiProperty({ example: 0 })
  partition: number;

  @ApiProperty({ example: 4100 })
  committedOffset: number;

  @ApiProperty({ example: -1 })
  leaderEpoch: number;

  @ApiProperty({ type: String, nullable: true, example: '' })
  metadata: string | null;

  @ApiProperty({ example: 1764620000000, description: 'ms since the epoch' })
  commitTimestamp: number;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 5000,
    description: 'The latest reported end offset; null when none.',
  })
  logEndOffset: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 900, description: 'null when no end offset was reported.' })
  lag: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 184000,
    description: 'How long ago the committed offset was the log end (docs/lag.md); null with `lag`.',
  })
  timeLagMs: number | null;
}

/** `GET /v1/groups/:groupId/offsets`. */
export class GroupOffsetsResponse implements GroupOffsets {
  @ApiProperty({ example: 'billing' })
  groupId: string;

  @ApiProperty({ type: () => [CommittedOffsetResponse] })
  offsets: CommittedOffsetResponse[];

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 900,
    description: 'Over the partitions whose lag is known; null when none is.',
  })
  totalLag: number | null;

  @ApiProperty({
    type: Number,
    nullable: true,
    example: 184000,
    description: 'The largest timeLagMs; null when none is known.',
  })
  maxTimeLagMs: number | null;
}
