import type { LogRecord } from '@cohort/replication';
import { ErrorCode } from '@cohort/protocol';
import { ClassicGroup } from '../group/classic-group';
import { GroupOffsets } from '../group/group-offsets';
import type { GroupRegistry } from '../group/group-registry';
import { pendingHolder } from '../group/member-quotas';
import { joinError, syncError } from '../responses/group-responses';
import type { ConnectionIndex } from '../context/connection-index';
import type { MemberConnections } from '../context/member-connections';
import type { ShardEnv } from '../context/shard-env';
import type { OperationEffects } from '../runtime/operation-effects';
import type { ClassicGroupManager } from '../rebalance/classic-group-manager';
import { groupMetadataRecord, groupTombstone } from '../records/record-builders';
import { disconnectKey, heartbeatKey } from '../timers/shard-timers';
import type { ConsumerGroup } from '../consumer/consumer-group';
import type { ConsumerGroupMember } from '../consumer/consumer-group-member';
import {
  type ConsumerGroupDowngradePort,
  type ConsumerGroupManager,
  type Fencing,
} from '../consumer/consumer-group-manager';
import { consumerRebalanceKey, consumerSessionKey } from '../consumer/consumer-timer-keys';
import { consumerGroupRecords, consumerGroupTombstones } from '../consumer/consumer-group-records';
import { consumerGroupFromClassic, upgradeRefusal } from './classic-to-consumer';
import { classicJoinTimeoutKey, classicSyncTimeoutKey } from './classic-member-timers';
import { classicGroupFromConsumer, downgradeAllowed, downgradeOnReplaceAllowed } from './consumer-to-classic';

export interface GroupMigrationDeps {
  groups: GroupRegistry;
  classic: ClassicGroupManager;
  /** Bound after construction: the consumer manager is built with this migration as its downgrade port. */
  consumer: () => ConsumerGroupManager;
  connections: ConnectionIndex;
  /** The connection each consumer group member last spoke on, for pushes and the disconnect grace. */
  consumerConnections: MemberConnections;
  effects: OperationEffects;
  env: ShardEnv;
}

/** A classic group converted in memory: the records that persist it, and how it is taken back. */
export interface Upgrade {
  readonly records: LogRecord[];
  /** The conversion's records committed (true) or failed (false): on failure the classic group comes back. */
  settled(ok: boolean): void;
}

/**
 * Kafka 4's online migration between the classic and the consumer protocol (`group.consumer.migration.policy`,
 * GROUP_CONSUMER_MIGRATION_POLICY): a classic group of protocol type `consumer` that a ConsumerGroupHeartbeat
 * member joins becomes a consumer group whose classic members keep their assignments and keep speaking
 * JoinGroup/SyncGroup/Heartbeat/LeaveGroup (answered from the consumer group's state); when its last
 * consumer-protocol member leaves, a group of classic members becomes classic again and rebalances.
 *
 * Classic groups are plain memory here (their record is written when a generation's assignment is), so a
 * conversion swaps the group object of the id: the classic group gives way to an offsets-only holder (the
 * offsets of an id do not depend on its type) and comes back if the conversion's write fails.
 */
export class GroupMigration implements ConsumerGroupDowngradePort {
  constructor(private readonly deps: GroupMigrationDeps) {}

  get policy() {
    return this.deps.env.config.groupConsumerMigrationPolicy;
  }

  /** Why `group` (a classic group with members) cannot be upgraded now, or undefined. */
  upgradeRefusal(group: ClassicGroup): string | undefined {
    return upgradeRefusal(group, this.policy, this.deps.env.config.groupConsumerMaxSize);
  }

  /**
   * Kafka's `convertToConsumerGroup`: parked JoinGroup and SyncGroup replies are answered
   * REBALANCE_IN_PROGRESS, the classic group's sessions end and the consumer group's begin (each classic
   * member keeps its own session timeout), and the consumer group is applied now. Its records (the
   * classic group's tombstone, then every record of the consumer group) must be written with the
   * heartbeat that caused it; `settled` learns their fate.
   */
  upgrade(group: ClassicGroup): Upgrade {
    const { groups, classic, connections, consumerConnections, effects, env } = this.deps;
    const consumer = this.deps.consumer();
    const converted = consumerGroupFromClassic(group);
    const now = env.clock.now();
    const members = group.allMembers();
    group.parked.failAll(
      members,
      (m) => joinError(m.memberId, ErrorCode.REBALANCE_IN_PROGRESS, 'the group is becoming a consumer group'),
      () => syncError(ErrorCode.REBALANCE_IN_PROGRESS, 'the group is becoming a consumer group'),
    );
    const holder = new ClassicGroup(group.groupId, 'Empty', now, env.config.rebalanceHistorySize, group.offsets);
    holder.currentStateTimestamp = null;
    groups.install([holder]);
    for (const member of members) {
      effects.cancel(heartbeatKey(group.groupId, member.memberId));
      effects.cancel(disconnectKey(group.groupId, member.memberId));
      if (member.connectionId !== undefined)
        consumerConnections.bind(group.groupId, member.memberId, member.connectionId);
      connections.unbind(member);
      env.quotas.release(member);
      consumer.fencing.scheduleSessionTimeout(group.groupId, member.memberId, member.sessionTimeoutMs);
    }
    for (const pending of group.allPendingMembers()) {
      classic.liveness.forgetPending(group, pending);
      env.quotas.release(pendingHolder(group.groupId, pending));
    }
    const records = [groupTombstone(group.groupId, now), ...consumerGroupRecords(converted, now)];
    const write = consumer.writes.apply(records);
    env.logger.info(`group ${group.groupId} upgraded online from classic to consumer (${members.length} members)`);
    return {
      records,
      settled: (ok) => {
        if (ok) consumer.writes.committed(write);
        else consumer.writes.failed(write);
        if (ok || groups.get(group.groupId) !== holder) return;
        // Taken back: the classic group is the id's group again, its members' sessions restart.
        groups.install([group]);
        for (const member of group.allMembers()) classic.liveness.heartbeat(group, member);
      },
    };
  }

  /**
   * Kafka's `convertToClassicGroup` after a fencing: the consumer group's tombstones and the classic
   * group's record replace the member's removal; the classic group takes the id at once (with the
   * offsets), its members' sessions start and a rebalance begins, which every member is told about.
   */
  downgradeOnFence(group: ConsumerGroup, leaving: ConsumerGroupMember): Fencing | undefined {
    const { env } = this.deps;
    if (!downgradeAllowed(group, leaving.memberId, this.policy, env.config.groupMaxSize)) return undefined;
    return this.downgrade(group, leaving.memberId, undefined).fencing;
  }

  /**
   * Kafka's `convertToClassicGroup` when a classic static member (`joining`) takes over the instance of
   * `replacedId`, the last consumer-protocol member: the classic group has `joining` with the replaced
   * member's target, and no rebalance starts (nobody's assignment changes). Undefined when the group
   * stays a consumer group.
   */
  downgradeOnReplace(
    group: ConsumerGroup,
    replacedId: string,
    joining: ConsumerGroupMember,
  ): { fencing: Fencing; classic: ClassicGroup } | undefined {
    if (!downgradeOnReplaceAllowed(group, replacedId, this.policy, this.deps.env.config.groupMaxSize)) return undefined;
    return this.downgrade(group, replacedId, joining);
  }

  private downgrade(
    group: ConsumerGroup,
    leavingId: string,
    joining: ConsumerGroupMember | undefined,
  ): { fencing: Fencing; classic: ClassicGroup } {
    const { groups, classic, connections, consumerConnections, env } = this.deps;
    const now = env.clock.now();
    const holder = groups.get(group.groupId);
    const downgraded = classicGroupFromConsumer(
      group,
      leavingId,
      holder?.offsets ?? new GroupOffsets(),
      now,
      env.config.rebalanceHistorySize,
      joining,
    );
    const assignments = new Map(downgraded.allMembers().map((m) => [m.memberId, m.assignment]));
    const records = [...consumerGroupTombstones(group, now), groupMetadataRecord(downgraded, assignments, now)];
    for (const memberId of group.members.keys())
      for (const key of [consumerSessionKey, consumerRebalanceKey, classicJoinTimeoutKey, classicSyncTimeoutKey])
        this.deps.effects.cancel(key(group.groupId, memberId));
    groups.install([downgraded]);
    for (const member of downgraded.allMembers()) {
      const connectionId = consumerConnections.connectionOf(group.groupId, member.memberId);
      connections.bind(downgraded, member, connectionId);
      classic.liveness.heartbeat(downgraded, member);
    }
    for (const memberId of group.members.keys()) consumerConnections.forget(group.groupId, memberId);
    // A member that left needs the others to rejoin; a static member taking over an instance changes nobody's.
    if (!joining)
      classic.joins.prepareRebalance(downgraded, `Downgrade group ${group.groupId} from consumer to classic.`);
    env.logger.info(`group ${group.groupId} downgraded online from consumer to classic (${downgraded.size} members)`);
    const settled = (ok: boolean): void => {
      if (ok || groups.get(group.groupId) !== downgraded) return;
      // Taken back (the consumer group's tombstones are undone by the consumer manager): the holder returns.
      downgraded.parked.failAll(
        downgraded.allMembers(),
        (m) => joinError(m.memberId, ErrorCode.NOT_COORDINATOR),
        () => syncError(ErrorCode.NOT_COORDINATOR),
      );
      if (holder) groups.install([holder]);
      else groups.markDead(downgraded);
    };
    return { fencing: { records, settled }, classic: downgraded };
  }
}
