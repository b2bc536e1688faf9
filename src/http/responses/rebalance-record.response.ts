import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import type { RebalanceRecord } from '@cohort/protocol';

/** A row of `GET /v1/groups/:groupId/rebalances`. */
export class RebalanceRecordResponse implements RebalanceRecord {
  @ApiProperty({ example: 5 })
  generationId: number;

  @ApiProperty({
    example:
      'Adding new member billing-app-… with group instance id null; client reason: need to re-join with the given member-id',
    description:
      "The reason the coordinator recorded, in Kafka's wording; for a consumer group one of member-joined, member-left, member-fenced, subscription-changed, topic-metadata-changed.",
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

  @ApiPropertyOptional({
    example: 12,
    description: 'Consumer groups only: the group epoch of this bump (also `generationId`).',
  })
  groupEpoch?: number;

  @ApiPropertyOptional({
    type: String,
    nullable: true,
    description: 'Consumer groups only: the member whose change bumped the epoch; null for a topic change.',
  })
  memberId?: string | null;

  @ApiPropertyOptional({
    enum: ['converged', 'converging', 'superseded'],
    description:
      'Consumer groups only: every member held its target (`completedAt`), not yet, or a later bump came first.',
  })
  outcome?: 'converged' | 'converging' | 'superseded';
}
