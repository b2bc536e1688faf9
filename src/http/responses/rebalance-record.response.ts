import { ApiProperty } from '@nestjs/swagger';
import type { RebalanceRecord } from '@cohort/protocol';

/** A row of `GET /v1/groups/:groupId/rebalances`. */
export class RebalanceRecordResponse implements RebalanceRecord {
  @ApiProperty({ example: 5 })
  generationId: number;

  @ApiProperty({
    example:
      'Adding new member billing-app-… with group instance id null; client reason: need to re-join with the given member-id',
    description: "The reason the coordinator recorded, in Kafka's wording.",
  })
  reason: string;

  @ApiProperty({ example: 1764620000000, description: 'ms since the epoch' })
  startedAt: number;

  @ApiProperty({ type: Number, nullable: true, example: 1764620000310 })
  completedAt: number | null;

  @ApiProperty({ type: Number, nullable: true, example: 310 })
  durationMs: number | null;

  @ApiProperty({ example: 2 })
  members: number;

  @ApiProperty({ type: String, nullable: true, example: 'cooperative-sticky' })
  protocol: string | null;
}
