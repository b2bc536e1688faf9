import type { PartitionStore } from '@cohort/replication';
import { ClassicGroupManager } from '../rebalance/classic-group-manager';
import type { ClassicGroup } from '../group/classic-group';
import type { ConsumerGroup } from '../consumer/consumer-group';
import { GroupRegistry } from '../group/group-registry';
import { OffsetWrites } from '../offsets/offset-writes';
import type { TopicInfo } from '../ports/topic-registry.port';
import { type EmptyGroup, OffsetRetention } from '../offsets/offset-retention';
import type { CoordinatorResult, WriteOutcome } from '../runtime/coordinator-result';
import { OperationEffects } from '../runtime/operation-effects';
import { ShardRuntime } from '../runtime/shard-runtime';
import { disconnectKey, ShardTimers } from '../timers/shard-timers';
import { ConnectionIndex } from '../context/connection-index';
import type { ShardEnv } from '../context/shard-env';
import { logsEachFailedWrite } from '../context/store-errors';
import type { ConsumerGroupManager } from '../consumer/consumer-group-manager';
import type { MovedGroup } from '../consumer/group-moves';
import { MapConsumerGroupStore } from '../consumer/consumer-group-replay';
import { SharePartitionManager } from '../share/share-partition-manager';
import type { LoadedSharePartition } from '../share/share-state-replay';
import { MemberConnections } from '../context/member-connections';
import { ShareGroupStore } from '../share/share-group-replay';
import { ShareGroupManager } from '../share/share-group-manager';
import { ShareMemberConnections } from '../share/share-group-connections';
import type { ShareGroup } from '../share/share-group-model';
import type { ShareLeaseOwner } from '../share/share-ports';
import { GroupMigration } from '../migration/group-migration';
import type { ClassicMemberDeps } from '../migration/classic-member-deps';
import {
  heartbeatConsumerMembersNow,
  onConsumerConnectionClosed,
  shardClassicMemberDeps,
  shardConsumerGroupManager,
} from './shard-consumer-groups';

/** Kafka's coordinator runtime states for one partition (K:RT), without INITIAL and FAILED. */
export type ShardStatus = 'LOADING' | 'ACTIVE' | 'CLOSED';

/**
 * The coordinator of one `__consumer_offsets` partition that this node leads, in one leader epoch
 * (Kafka's `GroupCoordinatorShard` with its runtime context). It owns the partition's runtime (the one
 * writer: batches, deferred replies, failures), its timers, its groups, and the managers that handle
 * requests: `classic` for the classic protocol, `offsets` for offset writes. All its state is changed
 * by synchronous steps on the event loop (requests, timer firings, write completions), which makes it
 * the partition's single serialized writer without locks.
 *
 * `run` is the one place where a step's result takes effect: its timer operations are applied, its
 * follow-up writes and then its own records go to the runtime, and the effects of each write's
 * appendFuture are run the same way once it completes. Steps that are not requests (a timer firing, a
 * closed connection, the end of a load) go through `step`, which runs what they recorded.
 */
export class CoordinatorShard {
  status: ShardStatus = 'LOADING';
  readonly groups: GroupRegistry;
  readonly timers: ShardTimers;
  readonly runtime: ShardRuntime;
  /** What the current step asked for (timers, phase-completion writes), until `run` applies it. */
  readonly effects = new OperationEffects();
  // A member that rebinds to a new connection keeps its membership: its disconnect grace is cancelled.
  readonly connections = new ConnectionIndex((group, member) =>
    this.effects.cancel(disconnectKey(group.groupId, member.memberId)),
  );
  readonly classic: ClassicGroupManager;
  /** The shard's consumer groups (KIP-848); a group id names a classic or a consumer group, never both. */
  readonly consumerGroups: MapConsumerGroupStore;
  readonly consumer: ConsumerGroupManager;
  /** The connection each consumer group member last heartbeated on: HeartbeatNow goes there, its closing starts the grace. */
  readonly consumerConnections = new MemberConnections();
  /** Whether a ConsumerGroupHeartbeat of the member arrived and is not answered yet (the shard's heartbeat queue sets it). */
  consumerHeartbeatWaiting: (groupId: string, memberId: string) => boolean = () => false;
  /**
   * A member left or was fenced: the group's target is computed with the shard's next heartbeat batch,
   * even one of no heartbeat (the shard registry points it at the shard's heartbeat queue).
   */
  consumerGroupMoved: (groupId: string) => void = () => undefined;
  /** Online migration between the classic and the consumer protocol (GROUP_CONSUMER_MIGRATION_POLICY). */
  readonly migration: GroupMigration;
  /** What the classic requests of a classic member in a consumer group work with. */
  readonly classicMembers: ClassicMemberDeps;
  /** The shard's share groups (KIP-932); a group id names one group of one type. */
  readonly shareGroups = new ShareGroupStore();
  readonly share: ShareGroupManager;
  /** The connection each share group member last heartbeated on (HeartbeatNow, lease release on close). */
  readonly shareConnections = new ShareMemberConnections();
  /** Told when a share group member goes or a share group is deleted: the share partitions (tests may watch it). */
  shareLeases: ShareLeaseOwner;
  readonly offsets: OffsetWrites;
  /** The share groups' partitions (KIP-932's offsets and leases); membership binds its view to them. */
  readonly sharePartitions: SharePartitionManager;
  private readonly retention: OffsetRetention;

  constructor(
    readonly partition: number,
    readonly leaderEpoch: number,
    readonly env: ShardEnv,
    store: PartitionStore,
  ) {
    this.timers = new ShardTimers(env.clock, (fire) => this.step(fire));
    this.groups = new GroupRegistry(env.clock, env.config.rebalanceHistorySize, (groupId) =>
      env.metrics.onGroupRemoved?.(groupId),
    );
    this.runtime = new ShardRuntime(store, env.clock, partition, leaderEpoch, env.config.offsetsCommitTimeoutMs, {
      onFailure: (code, message) => {
        env.metrics.onWriteFailed?.(partition, code);
        if (logsEachFailedWrite(code))
          env.logger.warn(`write to __consumer_offsets-${partition} (epoch ${leaderEpoch}) failed: ${message}`);
      },
      onCallbackError: (error) =>
        env.logger.error(`write completion on partition ${partition} threw: ${String(error)}`),
    });
    this.consumerGroups = new MapConsumerGroupStore(env.config.rebalanceHistorySize);
    this.classic = new ClassicGroupManager(partition, this.groups, this.effects, this.connections, env);
    this.migration = new GroupMigration({
      groups: this.groups,
      classic: this.classic,
      consumer: () => this.consumer,
      connections: this.connections,
      consumerConnections: this.consumerConnections,
      effects: this.effects,
      env,
    });
    // The consumer groups' manager and the classic members' requests are wired in shard-consumer-groups.ts.
    this.consumer = shardConsumerGroupManager(this);
    this.classicMembers = shardClassicMemberDeps(this);
    this.share = new ShareGroupManager({
      groups: this.shareGroups,
      effects: this.effects,
      clock: env.clock,
      config: {
        heartbeatIntervalMs: env.config.groupShareHeartbeatIntervalMs,
        sessionTimeoutMs: env.config.groupShareSessionTimeoutMs,
        maxSize: env.config.groupShareMaxSize,
      },
      partitionsOf: (topic) => env.topics.partitionCount(topic),
      topicCount: () => env.topics.topicCount(),
      leases: () => this.shareLeases,
      quotas: env.quotas,
      metrics: env.metrics,
    });
    this.share.onTargetsChanged = (groupId, memberIds) =>
      this.shareHeartbeatNow(groupId, memberIds, 'target assignment changed');
    this.offsets = new OffsetWrites(this.groups, env);
    this.sharePartitions = new SharePartitionManager({
      effects: this.effects,
      clock: env.clock,
      config: env.config,
      topics: env.topics,
      metrics: env.metrics,
    });
    // The seam (share-ports.ts): membership decides who may work which partitions; the partitions obey.
    this.sharePartitions.membership = this.share;
    this.shareLeases = this.sharePartitions;
    this.retention = new OffsetRetention(
      this.groups,
      this.offsets,
      () => this.emptyGroups(),
      this.timers,
      { complete: (result) => this.run(result) },
      env,
      (groupId, topic) => this.consumerGroups.get(groupId)?.isSubscribedToTopic(topic) ?? false,
    );
  }

  /**
   * Runs a step's result (Kafka's `CoordinatorRuntime` applying a `CoordinatorResult`): its timers are
   * applied in order, its follow-up writes and then its records join the runtime's batch, and the
   * promise gives its response once its records are committed (at once without records).
   */
  run<T>(result: CoordinatorResult<T>): Promise<T | undefined> {
    // Whatever the step recorded without handing it out with its result (none should) goes too.
    const rest = this.effects.isEmpty ? undefined : this.effects.take();
    // A closed shard arms nothing: its groups are gone and its timers were cancelled.
    if (this.status !== 'CLOSED') {
      if (result.timers) this.timers.apply(result.timers);
      if (rest) this.timers.apply(rest.timers);
    }
    if (result.followUps) for (const write of result.followUps) void this.submit(write);
    if (rest) for (const write of rest.followUps) void this.submit(write);
    return this.submit(result);
  }

  /** Runs a step that is not a request (a timer firing, a closed connection) and then what it recorded. */
  step(fn: () => void): void {
    try {
      fn();
    } finally {
      if (!this.effects.isEmpty) void this.run(this.effects.take());
    }
  }

  /** `step` of `fn(outcome)`, without a closure made for it (once per write completed). */
  private completionStep(fn: (outcome: WriteOutcome) => void, outcome: WriteOutcome): void {
    try {
      fn(outcome);
    } finally {
      if (!this.effects.isEmpty) void this.run(this.effects.take());
    }
  }

  /** Hands one write to the runtime; its appendFuture runs as a step of its own. */
  private submit<T>(result: CoordinatorResult<T>): Promise<T | undefined> {
    const appendFuture = result.appendFuture;
    if (appendFuture === undefined) return this.runtime.complete(result);
    // A handler's result is its own: wrapped in place rather than copied once per write.
    result.appendFuture = (outcome) => this.completionStep(appendFuture, outcome);
    return this.runtime.complete(result);
  }

  get isActive(): boolean {
    return this.status === 'ACTIVE';
  }

  group(groupId: string): ClassicGroup | undefined {
    return this.groups.get(groupId);
  }

  /** The shard's Empty consumer and share groups, each with its DeleteGroups deletion (the purge's). */
  private emptyGroups(): EmptyGroup[] {
    const empty: EmptyGroup[] = [];
    for (const group of this.consumerGroups.list())
      if (group.state === 'Empty')
        empty.push({ groupId: group.groupId, type: 'consumer', delete: () => this.consumer.deleteEmpty(group) });
    for (const group of this.shareGroups.list())
      if (group.state === 'Empty')
        empty.push({ groupId: group.groupId, type: 'share', delete: () => this.share.deleteEmpty(group) });
    return empty;
  }

  /** Loading finished: serve the groups brought back from the log (Kafka's `onLoaded`). */
  activate(
    loaded: ClassicGroup[],
    consumerGroups: readonly ConsumerGroup[] = [],
    shareGroups: readonly ShareGroup[] = [],
  ): void {
    if (this.status !== 'LOADING') return;
    this.status = 'ACTIVE';
    this.groups.serving = true;
    this.groups.install(loaded);
    for (const group of consumerGroups) this.consumerGroups.groups.set(group.groupId, group);
    for (const group of shareGroups) this.shareGroups.groups.set(group.groupId, group);
    this.step(() => {
      this.classic.onLoaded(loaded);
      this.consumer.onLoaded();
      this.share.onLoaded();
    });
    this.retention.start();
  }

  onTopicChanged(topic: TopicInfo): void {
    if (!this.isActive) return;
    this.step(() => this.classic.onTopicChanged(topic));
    let moved: { groupId: string; memberIds: string[] }[] = [];
    this.step(() => (moved = this.consumer.onTopicChanged(topic.name)));
    for (const { groupId, memberIds } of moved) this.heartbeatNow(groupId, memberIds, `topic ${topic.name} changed`);
    let movedShare: { groupId: string; memberIds: string[] }[] = [];
    this.step(() => (movedShare = this.share.onTopicChanged(topic.name)));
    for (const { groupId, memberIds } of movedShare)
      this.shareHeartbeatNow(groupId, memberIds, `topic ${topic.name} changed`);
  }

  /** The ACL bindings changed: consumer groups whose regex members may now be given other topics move now. */
  onTopicAccessChanged(): void {
    if (!this.isActive) return;
    let moved: MovedGroup[] = [];
    this.step(() => (moved = this.consumer.onTopicAccessChanged()));
    for (const { groupId, memberIds } of moved) this.heartbeatNow(groupId, memberIds, 'topic access changed');
  }

  /** HeartbeatNow to share group members, on the connection each last heartbeated on. */
  shareHeartbeatNow(groupId: string, memberIds: Iterable<string>, reason: string): void {
    const group = this.shareGroups.get(groupId);
    for (const memberId of memberIds) {
      const member = group?.member(memberId);
      const connectionId = this.shareConnections.connectionOf(groupId, memberId);
      if (member && connectionId !== undefined)
        this.env.push.heartbeatNow(connectionId, { groupId, memberEpoch: member.memberEpoch, reason });
    }
  }

  /** The share group of that id, if the id names one here. */
  shareGroup(groupId: string): ShareGroup | undefined {
    return this.shareGroups.get(groupId);
  }

  /**
   * The share partitions the log held: served from now on (those the load changed are written again);
   * the state of a group that is no share group here is deleted.
   */
  installSharePartitions(loaded: LoadedSharePartition[]): void {
    if (this.isActive && loaded.length > 0)
      this.step(() => this.sharePartitions.install(loaded, (groupId) => this.shareGroups.get(groupId) !== undefined));
  }

  /** Producers reported end offsets of `topic`: share partitions that can lease again wake their held acquires. */
  onEndOffsets(topic: string, partitions: readonly number[]): void {
    if (this.isActive) this.step(() => this.sharePartitions.onEndOffsets(topic, partitions));
  }

  /** Tells each member, on its last connection, to heartbeat now (`heartbeatConsumerMembersNow`). */
  heartbeatNow(groupId: string, memberIds: Iterable<string>, reason: string): void {
    heartbeatConsumerMembersNow(this, groupId, memberIds, reason);
  }

  /** A connection closed: its consumer group members are fenced after the disconnect grace (`onConsumerConnectionClosed`). */
  consumerConnectionClosed(connectionId: string): void {
    onConsumerConnectionClosed(this, connectionId);
  }

  /** The consumer group of that id, if the id names one here. */
  consumerGroup(groupId: string): ConsumerGroup | undefined {
    return this.consumerGroups.get(groupId);
  }

  /** This node stopped leading the partition: fail everything pending and drop every group. */
  close(): void {
    if (this.status === 'CLOSED') return;
    const wasActive = this.status === 'ACTIVE';
    this.status = 'CLOSED';
    this.groups.serving = false;
    this.timers.cancelAll();
    if (wasActive) this.classic.onUnloaded();
    this.env.quotas.releaseGroups(this.groups.values());
    this.env.quotas.releaseMembers('consumer', this.consumerGroups.list());
    this.env.quotas.releaseMembers('share', this.shareGroups.list());
    this.effects.discard();
    this.groups.clear();
    this.consumerGroups.groups.clear();
    this.consumerConnections.clear();
    this.sharePartitions.close();
    this.shareGroups.groups.clear();
    this.shareConnections.clear();
    this.connections.clear();
    this.runtime.close();
  }
}
