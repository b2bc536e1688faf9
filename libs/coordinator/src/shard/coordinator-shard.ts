import type { PartitionStore } from '@cohort/replication';
import type { TopicInfo } from '../ports/topic-registry.port';
import { ClassicGroup } from '../group/classic-group';
import { ConnectionIndex } from './connection-index';
import type { ShardEnv } from './shard-env';
import { ShardWriter } from './shard-writer';
import { disconnectKey, ShardTimers } from '../timers/shard-timers';
import { MemberLiveness } from '../rebalance/member-liveness';
import { Membership } from '../rebalance/membership';
import { JoinPhase } from '../rebalance/join-phase';
import { SyncPhase } from '../rebalance/sync-phase';
import { GroupUnloader } from '../rebalance/group-unloader';
import { OffsetRetention } from '../retention/offset-retention';
import { OffsetWrites } from '../offsets/offset-writes';

/** Kafka's coordinator runtime states for one partition (K:RT), without INITIAL and FAILED. */
export type ShardStatus = 'LOADING' | 'ACTIVE' | 'CLOSED';

/**
 * The coordinator of one `__consumer_offsets` partition that this node leads, in one leader epoch.
 * All its state is changed by synchronous steps on the event loop (requests, timer firings, write
 * completions), which makes it the partition's single serialized writer without locks.
 */
export class CoordinatorShard {
  status: ShardStatus = 'LOADING';
  readonly groups = new Map<string, ClassicGroup>();
  readonly timers: ShardTimers;
  readonly writer: ShardWriter;
  readonly connections = new ConnectionIndex((group, member) => this.timers.cancel(disconnectKey(group.groupId, member.memberId)));
  readonly liveness: MemberLiveness;
  readonly membership: Membership;
  readonly joins: JoinPhase;
  readonly syncs: SyncPhase;
  readonly retention: OffsetRetention;
  readonly offsets: OffsetWrites;
  private readonly unloader: GroupUnloader;

  constructor(
    readonly partition: number,
    readonly leaderEpoch: number,
    readonly env: ShardEnv,
    store: PartitionStore,
  ) {
    this.timers = new ShardTimers(env.clock);
    this.writer = new ShardWriter(store, partition, leaderEpoch, env.config.offsetsCommitTimeoutMs, {
      onFailure: (code, message) => {
        env.metrics.onWriteFailed?.(partition, code);
        env.logger.warn(`write to __consumer_offsets-${partition} (epoch ${leaderEpoch}) failed: ${message}`);
      },
      onCallbackError: (error) => env.logger.error(`write completion on partition ${partition} threw: ${String(error)}`),
    });
    this.liveness = new MemberLiveness(this);
    this.membership = new Membership(this);
    this.joins = new JoinPhase(this);
    this.syncs = new SyncPhase(this);
    this.retention = new OffsetRetention(this);
    this.offsets = new OffsetWrites(this);
    this.unloader = new GroupUnloader(this);
  }

  get now(): number {
    return this.env.clock.now();
  }

  get isActive(): boolean {
    return this.status === 'ACTIVE';
  }

  group(groupId: string): ClassicGroup | undefined {
    return this.groups.get(groupId);
  }

  /** Whether `group` is still the live object for its id (timers and callbacks may hold an old one). */
  owns(group: ClassicGroup): boolean {
    return this.status === 'ACTIVE' && this.groups.get(group.groupId) === group && !group.is('Dead');
  }

  createGroup(groupId: string): ClassicGroup {
    const group = new ClassicGroup(groupId, 'Empty', this.now, this.env.config.rebalanceHistorySize);
    this.groups.set(groupId, group);
    return group;
  }

  /**
   * Forgets a group that a failed request created and that holds nothing: no members, no pending ids,
   * no offsets, never persisted (Kafka leaves it for the next purge; this keeps the cache clean at once).
   */
  dropIfUnused(group: ClassicGroup): void {
    if (group.is('Empty') && group.size === 0 && group.numPending === 0 && !group.offsets.hasOffsets && group.generationId === 0) {
      this.markDead(group);
    }
  }

  /** Empty → Dead: the group is removed from this shard. */
  markDead(group: ClassicGroup): void {
    group.transitionTo('Dead', this.now);
    if (this.groups.get(group.groupId) === group) this.groups.delete(group.groupId);
  }

  /** Loading finished: serve the groups brought back from the log (Kafka's `onGroupLoaded`). */
  activate(loaded: ClassicGroup[]): void {
    if (this.status !== 'LOADING') return;
    this.status = 'ACTIVE';
    for (const group of loaded) this.groups.set(group.groupId, group);
    for (const group of loaded) {
      for (const member of group.allMembers()) this.liveness.heartbeat(group, member);
      if (group.size > this.env.config.groupMaxSize) {
        this.joins.prepareRebalance(
          group,
          `Freshly-loaded group is over capacity (${this.env.config.groupMaxSize}). Rebalancing in order to give a chance for consumers to commit offsets`,
        );
      }
    }
    this.retention.start();
  }

  /**
   * A topic was created or grew (SPEC §4): every `consumer` group subscribed to it rebalances, so the new
   * partitions get assigned without waiting for the leader to notice.
   */
  onTopicChanged(topic: TopicInfo): void {
    if (!this.isActive) return;
    for (const group of [...this.groups.values()]) {
      if (!group.isConsumerGroup || !(group.is('Stable') || group.is('CompletingRebalance'))) continue;
      if (!group.subscribedTopics?.has(topic.name)) continue;
      this.joins.prepareRebalance(group, `topic ${topic.name} grew to ${topic.partitions} partitions`);
    }
  }

  /** This node stopped leading the partition: fail everything pending and drop every group. */
  close(): void {
    if (this.status === 'CLOSED') return;
    const wasActive = this.status === 'ACTIVE';
    this.status = 'CLOSED';
    this.timers.cancelAll();
    if (wasActive) this.unloader.unloadAll();
    this.groups.clear();
    this.connections.clear();
    this.writer.close();
  }
}
