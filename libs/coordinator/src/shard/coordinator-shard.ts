import type { PartitionStore } from '@cohort/replication';
import { ClassicGroupManager } from '../classic/classic-group-manager';
import type { ClassicGroup } from '../group/classic-group';
import { GroupRegistry } from '../group/group-registry';
import { OffsetWrites } from '../offsets/offset-writes';
import type { TopicInfo } from '../ports/topic-registry.port';
import { OffsetRetention } from '../retention/offset-retention';
import { ShardRuntime } from '../runtime/shard-runtime';
import { disconnectKey, ShardTimers } from '../timers/shard-timers';
import { ConnectionIndex } from './connection-index';
import type { ShardEnv } from './shard-env';

/** Kafka's coordinator runtime states for one partition (K:RT), without INITIAL and FAILED. */
export type ShardStatus = 'LOADING' | 'ACTIVE' | 'CLOSED';

/**
 * The coordinator of one `__consumer_offsets` partition that this node leads, in one leader epoch
 * (Kafka's `GroupCoordinatorShard` with its runtime context). It owns the partition's runtime (the one
 * writer: batches, deferred replies, failures), its timers, its groups, and the managers that handle
 * requests: `classic` for the classic protocol, `offsets` for offset writes. All its state is changed
 * by synchronous steps on the event loop (requests, timer firings, write completions), which makes it
 * the partition's single serialized writer without locks.
 */
export class CoordinatorShard {
  status: ShardStatus = 'LOADING';
  readonly groups: GroupRegistry;
  readonly timers: ShardTimers;
  readonly runtime: ShardRuntime;
  // A member that rebinds to a new connection keeps its membership: its disconnect grace is cancelled.
  readonly connections = new ConnectionIndex((group, member) => this.timers.cancel(disconnectKey(group.groupId, member.memberId)));
  readonly classic: ClassicGroupManager;
  readonly offsets: OffsetWrites;
  private readonly retention: OffsetRetention;

  constructor(
    readonly partition: number,
    readonly leaderEpoch: number,
    readonly env: ShardEnv,
    store: PartitionStore,
  ) {
    this.timers = new ShardTimers(env.clock);
    this.groups = new GroupRegistry(env.clock, env.config.rebalanceHistorySize, (groupId) => env.metrics.onGroupRemoved?.(groupId));
    this.runtime = new ShardRuntime(store, env.clock, partition, leaderEpoch, env.config.offsetsCommitTimeoutMs, {
      onFailure: (code, message) => {
        env.metrics.onWriteFailed?.(partition, code);
        env.logger.warn(`write to __consumer_offsets-${partition} (epoch ${leaderEpoch}) failed: ${message}`);
      },
      onCallbackError: (error) => env.logger.error(`write completion on partition ${partition} threw: ${String(error)}`),
    });
    this.classic = new ClassicGroupManager(partition, this.groups, this.timers, this.connections, env, this.runtime);
    this.offsets = new OffsetWrites(this.groups, env);
    this.retention = new OffsetRetention(this.groups, this.offsets, this.timers, this.runtime, env);
  }

  get isActive(): boolean {
    return this.status === 'ACTIVE';
  }

  group(groupId: string): ClassicGroup | undefined {
    return this.groups.get(groupId);
  }

  /** Loading finished: serve the groups brought back from the log (Kafka's `onLoaded`). */
  activate(loaded: ClassicGroup[]): void {
    if (this.status !== 'LOADING') return;
    this.status = 'ACTIVE';
    this.groups.serving = true;
    this.groups.install(loaded);
    this.classic.onLoaded(loaded);
    this.retention.start();
  }

  onTopicChanged(topic: TopicInfo): void {
    if (this.isActive) this.classic.onTopicChanged(topic);
  }

  /** This node stopped leading the partition: fail everything pending and drop every group. */
  close(): void {
    if (this.status === 'CLOSED') return;
    const wasActive = this.status === 'ACTIVE';
    this.status = 'CLOSED';
    this.groups.serving = false;
    this.timers.cancelAll();
    if (wasActive) this.classic.onUnloaded();
    this.groups.clear();
    this.connections.clear();
    this.runtime.close();
  }
}
