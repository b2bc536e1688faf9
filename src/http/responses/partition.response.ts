import { ApiProperty } from '@nestjs/swagger';
import type { PartitionInfo, ReplicaState } from '@cohort/protocol';

class ReplicaStateResponse implements ReplicaState {
  @ApiProperty({ example: 1 })
  nodeId: number;

  @ApiProperty({ example: 120 })
  logEndOffset: number;

  @ApiProperty({ example: 1764620000000 })
  lastCaughtUpMs: number;
}

/** A row of `GET /v1/cluster/partitions`: one `__consumer_offsets` partition. */
export class PartitionResponse implements PartitionInfo {
  @ApiProperty({ example: 12 })
  partition: number;

  @ApiProperty({ type: Number, nullable: true, example: 0 })
  leader: number | null;

  @ApiProperty({ example: 3 })
  leaderEpoch: number;

  @ApiProperty({ type: [Number], example: [0, 1, 2] })
  replicas: number[];

  @ApiProperty({ type: [Number], example: [0, 1, 2] })
  isr: number[];

  @ApiProperty({ example: 120 })
  highWatermark: number;

  @ApiProperty({ example: 120 })
  logEndOffset: number;

  @ApiProperty({ type: () => [ReplicaStateResponse] })
  replicaStates: ReplicaStateResponse[];
}
