import { ErrorCode, partitionFor } from '@cohort/protocol';
import type { LeadershipListener, PartitionStore } from '@cohort/replication';
import { loadShard } from './shard-loader';
import { CoordinatorShard } from './coordinator-shard';
import type { ShardEnv } from '../context/shard-env';

/** Where a request for a group goes: the shard that serves it, or the error that says why none does here. */
export type ShardRoute = { shard: CoordinatorShard } | { error: number; message: string };

/**
 * The shards of the partitions this node leads, driven by the store's leadership events: a shard is
 * created and loaded on `onBecomeLeader`, and closed on `onResign` (or when a newer epoch replaces it).
 */
export class ShardRegistry implements LeadershipListener {
  private readonly shards = new Map<number, CoordinatorShard>();

  constructor(
    private readonly store: PartitionStore,
    private readonly env: ShardEnv,
    /** Connects a new shard to what sits above this layer (its ConsumerGroupHeartbeat queue), before it loads. */
    private readonly onCreated: (shard: CoordinatorShard) => void = () => undefined,
  ) {}

  onBecomeLeader(partition: number, leaderEpoch: number): void {
    if (!Number.isInteger(partition) || partition < 0 || partition >= this.env.config.numPartitions) {
      this.env.logger.warn(
        `ignoring leadership of __consumer_offsets-${partition}: outside [0, ${this.env.config.numPartitions})`,
      );
      return;
    }
    const existing = this.shards.get(partition);
    if (existing && existing.leaderEpoch >= leaderEpoch) return;
    existing?.close();
    this.env.logger.debug?.(`elected as the group coordinator for partition ${partition} in epoch ${leaderEpoch}`);
    const shard = new CoordinatorShard(partition, leaderEpoch, this.env, this.store);
    this.onCreated(shard);
    this.shards.set(partition, shard);
    loadShard(shard, this.store);
  }

  onResign(partition: number, leaderEpoch: number): void {
    const shard = this.shards.get(partition);
    // A resignation of an older epoch than the one served now is stale (Kafka compares coordinator epochs).
    if (!shard || shard.leaderEpoch > leaderEpoch) return;
    this.env.logger.debug?.(`resigned as the group coordinator for partition ${partition} in epoch ${leaderEpoch}`);
    this.shards.delete(partition);
    shard.close();
  }

  /** Kafka's `validateGroupStatus` steps 3-4: the shard that serves `groupId`, or why none does. */
  route(groupId: string): ShardRoute {
    const partition = partitionFor(groupId, this.env.config.numPartitions);
    const shard = this.shards.get(partition);
    if (!shard || shard.status === 'CLOSED') {
      return {
        error: ErrorCode.NOT_COORDINATOR,
        message: `this node does not coordinate __consumer_offsets-${partition}`,
      };
    }
    if (shard.status === 'LOADING') {
      return {
        error: ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
        message: `__consumer_offsets-${partition} is still loading`,
      };
    }
    return { shard };
  }

  get(partition: number): CoordinatorShard | undefined {
    return this.shards.get(partition);
  }

  all(): CoordinatorShard[] {
    return [...this.shards.values()];
  }

  closeAll(): void {
    for (const shard of this.shards.values()) shard.close();
    this.shards.clear();
  }
}
