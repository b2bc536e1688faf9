import type { MemberConnections } from '../context/member-connections';
import type { ShardEnv } from '../context/shard-env';
import { consumerGroupConfig } from '../consumer/consumer-group-config';
import { ConsumerGroupManager } from '../consumer/consumer-group-manager';
import type { MapConsumerGroupStore } from '../consumer/consumer-group-replay';
import type { ClassicMemberDeps } from '../migration/classic-member-deps';
import type { GroupMigration } from '../migration/group-migration';
import type { ClassicGroupManager } from '../rebalance/classic-group-manager';
import type { OperationEffects } from '../runtime/operation-effects';
import type { ShardTimers } from '../timers/shard-timers';

// What a shard does for its consumer groups (KIP-848): the wiring of their manager and of the classic
// requests of their classic members, the HeartbeatNow pushes, and the disconnect grace of a member
// whose connection closed. `CoordinatorShard` keeps the state and the public names, and calls these.

/** The disconnect grace of a consumer group member whose connection closed (MEMBER_DISCONNECT_GRACE_MS, as for classic members). */
export const consumerDisconnectKey = (groupId: string, memberId: string): string =>
  `consumer-disconnect\u0000${groupId}\u0000${memberId}`;

/**
 * What these hooks use of their shard: the `CoordinatorShard` itself, passed as is (no object is made
 * for them), and described by this shape because this file cannot import the shard's, which imports it.
 */
export interface ConsumerGroupShard {
  readonly env: ShardEnv;
  readonly effects: OperationEffects;
  readonly timers: ShardTimers;
  readonly classic: ClassicGroupManager;
  readonly migration: GroupMigration;
  readonly consumerGroups: MapConsumerGroupStore;
  readonly consumer: ConsumerGroupManager;
  readonly consumerConnections: MemberConnections;
  consumerHeartbeatWaiting: (groupId: string, memberId: string) => boolean;
  consumerGroupMoved: (groupId: string) => void;
  heartbeatNow(groupId: string, memberIds: Iterable<string>, reason: string): void;
}

/**
 * The shard's `ConsumerGroupManager`, over its effects, its consumer groups and its configuration: a
 * member gone takes its connection and disconnect grace with it, and the shard's heartbeat queue
 * answers whether a member's heartbeat is waiting and hears of a group that moved (both bound later,
 * so they are read at each call).
 */
export function shardConsumerGroupManager(
  shard: Omit<ConsumerGroupShard, 'consumer' | 'heartbeatNow' | 'timers' | 'classic'>,
): ConsumerGroupManager {
  const { env } = shard;
  return new ConsumerGroupManager({
    groups: shard.consumerGroups,
    effects: shard.effects,
    clock: env.clock,
    config: consumerGroupConfig({
      heartbeatIntervalMs: env.config.groupConsumerHeartbeatIntervalMs,
      sessionTimeoutMs: env.config.groupConsumerSessionTimeoutMs,
      maxSize: env.config.groupConsumerMaxSize,
    }),
    assignors: env.consumerAssignors,
    partitionsOf: (topic) => env.topics.partitionCount(topic),
    topicNames: () => env.topics.list().map((topic) => topic.name),
    topicCount: () => env.topics.topicCount(),
    heartbeatWaiting: (groupId, memberId) => shard.consumerHeartbeatWaiting(groupId, memberId),
    groupMoved: (groupId) => shard.consumerGroupMoved(groupId),
    onMemberGone: (groupId, memberId) => {
      shard.consumerConnections.forget(groupId, memberId);
      shard.effects.cancel(consumerDisconnectKey(groupId, memberId));
    },
    metrics: env.metrics,
    migration: shard.migration,
    topicAccess: env.topicAccess,
    quotas: env.quotas,
  });
}

/** What the classic requests of a classic member in one of the shard's consumer groups work with. */
export function shardClassicMemberDeps(shard: ConsumerGroupShard): ClassicMemberDeps {
  return {
    consumer: shard.consumer,
    effects: shard.effects,
    env: shard.env,
    generateMemberId: (clientId, instanceId) => shard.classic.membership.generateMemberId(clientId, instanceId),
    remember: (groupId, memberId, connectionId) => {
      // A member heard from on a new connection is back: a disconnect grace running for it ends.
      if (connectionId !== undefined && shard.consumerConnections.bind(groupId, memberId, connectionId))
        shard.effects.cancel(consumerDisconnectKey(groupId, memberId));
    },
    timerArmed: (key) => shard.timers.has(key),
    migration: shard.migration,
    heartbeatNow: (groupId, memberIds, reason) => shard.heartbeatNow(groupId, memberIds, reason),
  };
}

/** Tells each member, on its last connection, to heartbeat now; members gone since are forgotten. */
export function heartbeatConsumerMembersNow(
  shard: ConsumerGroupShard,
  groupId: string,
  memberIds: Iterable<string>,
  reason: string,
): void {
  const group = shard.consumerGroups.get(groupId);
  for (const memberId of memberIds) {
    const member = group?.member(memberId);
    const connectionId = shard.consumerConnections.connectionOf(groupId, memberId);
    if (!member) shard.consumerConnections.forget(groupId, memberId);
    else if (connectionId === undefined) continue;
    // A classic member learns it must rejoin the way a classic group tells it (its generation is its epoch).
    else if (member.classicMemberMetadata !== null)
      shard.env.push.rebalanceInProgress([connectionId], { groupId, generationId: member.memberEpoch, reason });
    // One push until the member heartbeats: that heartbeat reads every change made meanwhile.
    else if (shard.consumerConnections.tell(groupId, memberId))
      shard.env.push.heartbeatNow(connectionId, { groupId, memberEpoch: member.memberEpoch, reason });
  }
}

/**
 * A connection closed: each dynamic consumer group member still bound to it is fenced after
 * MEMBER_DISCONNECT_GRACE_MS (at once without a grace) unless it heartbeats on another connection
 * first; a static member keeps its place for its session timeout, as in the classic protocol.
 */
export function onConsumerConnectionClosed(shard: ConsumerGroupShard, connectionId: string): void {
  for (const { groupId, memberId } of shard.consumerConnections.membersOf(connectionId)) {
    const member = shard.consumerGroups.get(groupId)?.member(memberId);
    if (!member) {
      shard.consumerConnections.forget(groupId, memberId);
      continue;
    }
    if (member.instanceId !== null) continue;
    const fence = (): void =>
      shard.consumer.fencing.fenceMember(
        groupId,
        memberId,
        () => shard.consumerConnections.connectionOf(groupId, memberId) === connectionId,
      );
    const grace = shard.env.config.memberDisconnectGraceMs;
    if (grace <= 0) fence();
    else shard.effects.schedule(consumerDisconnectKey(groupId, memberId), grace, fence);
  }
}
