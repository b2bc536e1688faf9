import type { Clock, LogRecord } from '@cohort/replication';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { OperationEffects } from '../runtime/operation-effects';
import type { ConsumerGroupAssignorPort } from '../ports/consumer-assignor.port';
import type { CoordinatorMetrics } from '../ports/coordinator-metrics.port';
import { ConsumerGroupError, heartbeatErrorResponse } from './consumer-errors';
import { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupConfig } from './consumer-group-config';
import { type ConsumerGroupMember, isReconciledTo, updatedMember as withChanges } from './consumer-group-member';
import type { ConsumerGroupStore } from './consumer-group-replay';
import { consumerGroupTombstones, memberTombstones } from './consumer-group-records';
import { dynamicMember, staticMember } from './member-resolution';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  ConsumerRequestContext,
} from './consumer-heartbeat.types';
import { currentAssignmentRecord, memberSubscriptionRecord } from './consumer-records';
import type { EpochBumpReason } from './epoch-history';
import { EpochRecorder } from './epoch-recorder';
import { CurrentAssignmentBuilder } from './current-assignment-builder';
import {
  JOIN_GROUP_MEMBER_EPOCH,
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  throwIfGroupIsFull,
  throwIfHeartbeatRequestIsInvalid,
  throwIfInstanceIdIsFenced,
  throwIfStaticMemberIsUnknown,
} from './heartbeat-validation';
import { sameMember, sameNames } from './member-equality';
import { MemberState } from './member-state';
import {
  groupSubscription,
  type GroupSubscription,
  metadataHash,
  type PartitionCountLookup,
  subscribedRegexesAfter,
  subscribedTopicNamesAfter,
} from './subscription-metadata';
import { updateTargetAssignment } from './target-assignment-update';
import { samePartitions, toTopicPartitionList, type TopicPartitions } from './topic-partitions';
import { UncommittedWrites } from './uncommitted-writes';
import { consumerRebalanceKey, consumerSessionKey } from './consumer-timer-keys';

export const LEAVE_GROUP_MEMBER_EPOCH = -1;

export interface ConsumerGroupManagerDeps {
  groups: ConsumerGroupStore;
  effects: OperationEffects;
  clock: Clock;
  config: ConsumerGroupConfig;
  /** The server assignors in GROUP_CONSUMER_ASSIGNORS order: the first is the default. */
  assignors: readonly ConsumerGroupAssignorPort[];
  /** Partition counts of existing topics (the topic registry). */
  partitionsOf: PartitionCountLookup;
  /** The names of every known topic, which regular expressions are matched against. */
  topicNames: () => readonly string[];
  /** A member left or was fenced: what is kept beside the group for it (its connection) can go. */
  onMemberGone?: (groupId: string, memberId: string) => void;
  /** Epoch bumps and convergence times (optional: tests leave it out). */
  metrics?: CoordinatorMetrics;
}

/** What one heartbeat computed, before its records are applied. */
interface Outcome {
  records: LogRecord[];
  response: ConsumerGroupHeartbeatResponse;
}

/**
 * The consumer group protocol of one shard (the KIP-848 half of Kafka's `GroupMetadataManager`): a
 * sibling of `ClassicGroupManager` over the shard's effects and runtime. `heartbeat` is Kafka's
 * `consumerGroupHeartbeat`: it computes the records of the member's change (member, group epoch,
 * target assignment, reconciled assignment) from the group as it stands, applies them at once so the
 * next request sees them (`UncommittedWrites`, taken back if the write fails), and returns them with
 * the response, which leaves once they are committed. Timers (session, rebalance timeout) are recorded
 * in the step's effects; when they fire they fence the member through the same effects.
 */
export class ConsumerGroupManager {
  readonly writes: UncommittedWrites;
  private readonly assignorNames: string[];
  private readonly epochs: EpochRecorder;

  constructor(private readonly deps: ConsumerGroupManagerDeps) {
    this.writes = new UncommittedWrites(deps.groups);
    this.epochs = new EpochRecorder(deps.metrics);
    this.assignorNames = deps.assignors.map((a) => a.name);
  }

  group(groupId: string): ConsumerGroup | undefined {
    return this.deps.groups.get(groupId);
  }

  /** Kafka's `consumerGroupHeartbeat`: an error answers the request and writes nothing. */
  heartbeat(
    request: ConsumerGroupHeartbeatRequest,
    context: ConsumerRequestContext,
  ): CoordinatorResult<ConsumerGroupHeartbeatResponse> {
    let outcome: Outcome;
    try {
      throwIfHeartbeatRequestIsInvalid(request, this.assignorNames);
      outcome =
        request.memberEpoch === LEAVE_GROUP_MEMBER_EPOCH || request.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH
          ? this.leave(request)
          : this.join(request, context);
    } catch (error) {
      this.deps.effects.discard();
      this.epochs.discard();
      if (!(error instanceof ConsumerGroupError)) throw error;
      return this.deps.effects.attachTo({ records: [], response: heartbeatErrorResponse(error) });
    }
    return this.deps.effects.attachTo(this.written(outcome.records, outcome.response, request.groupId));
  }

  /**
   * DeleteGroups of a group its caller found Empty (Kafka's `createGroupTombstoneRecords`): the group's
   * tombstones, applied now so the next request finds no group, and taken back if their write fails.
   * Only the records and their completion are meant to be used; the caller makes the response.
   */
  deleteEmpty(group: ConsumerGroup): Pick<CoordinatorResult<never>, 'records' | 'appendFuture'> {
    return this.written<never>(consumerGroupTombstones(group, this.deps.clock.now()));
  }

  /**
   * A topic was created, grew or was deleted. Kafka marks the subscribed groups for a metadata refresh
   * at their next heartbeat; Cohort moves them at once (the group epoch, then the target assignment) so
   * the members whose target changed can be told to heartbeat now instead of at their next interval.
   * Returns, per group that moved, the members whose target changed. An assignor that fails leaves the
   * epoch bumped; the next heartbeat tries again (and answers its error).
   */
  onTopicChanged(topic: string): { groupId: string; memberIds: string[] }[] {
    const moved: { groupId: string; memberIds: string[] }[] = [];
    const now = this.deps.clock.now();
    for (const group of this.deps.groups.list()) {
      if (!group.isSubscribedToTopic(topic) || group.size === 0) continue;
      const { metadata, resolved } = this.subscription(group.subscribedTopicNames, group.subscribedRegexes);
      const hash = metadataHash(metadata);
      if (hash === group.metadataHash) continue;
      const groupEpoch = group.groupEpoch + 1;
      const cause = { reason: 'topic-metadata-changed', memberId: null } as const;
      const records = [this.epochs.bumpRecord(group, groupEpoch, hash, cause, group.size, now)];
      const memberIds: string[] = [];
      try {
        const result = updateTargetAssignment(group, groupEpoch, this.deps.assignors, metadata, resolved, now);
        records.push(...result.records);
        for (const [memberId, target] of result.targetAssignment)
          if (!samePartitions(target, group.targetAssignmentOf(memberId))) memberIds.push(memberId);
      } catch {
        // The next heartbeat runs the assignor again and answers its error.
      }
      this.deps.effects.write(this.written<never>(records, undefined, group.groupId));
      moved.push({ groupId: group.groupId, memberIds });
    }
    return moved;
  }

  /** Kafka's `onLoaded` for consumer groups: every member's session restarts, a revoking member's deadline too. */
  onLoaded(): void {
    for (const group of this.deps.groups.list()) {
      for (const member of group.members.values()) {
        this.scheduleSessionTimeout(group.groupId, member.memberId);
        if (member.state === MemberState.UNREVOKED_PARTITIONS)
          this.scheduleRebalanceTimeout(group.groupId, member.memberId, member.memberEpoch, member.rebalanceTimeoutMs);
      }
    }
  }

  private join(request: ConsumerGroupHeartbeatRequest, context: ConsumerRequestContext): Outcome {
    const { groupId, memberEpoch } = request;
    const now = this.deps.clock.now();
    const records: LogRecord[] = [];
    const joining = memberEpoch === JOIN_GROUP_MEMBER_EPOCH;
    const existing = this.deps.groups.get(groupId);
    if (!existing && !joining)
      throw new ConsumerGroupError('GROUP_ID_NOT_FOUND', `Consumer group ${groupId} not found.`);
    // A group a join creates exists once its records are applied; until then it is empty.
    const group = existing ?? new ConsumerGroup(groupId);
    throwIfGroupIsFull(group, request.memberId, this.deps.config.maxSize);

    const owned = request.topicPartitions ?? null;
    const member =
      request.instanceId === undefined || request.instanceId === null
        ? dynamicMember(group, request.memberId, memberEpoch, owned, joining)
        : staticMember(group, request.memberId, memberEpoch, request.instanceId, owned, joining, records, now);

    // 1. The member with what this heartbeat changed; its record if anything did.
    let updated = withChanges(member, {
      instanceId: request.instanceId ?? member.instanceId,
      rackId: request.rackId ?? member.rackId,
      rebalanceTimeoutMs:
        request.rebalanceTimeoutMs === undefined ||
        request.rebalanceTimeoutMs === null ||
        request.rebalanceTimeoutMs === -1
          ? member.rebalanceTimeoutMs
          : request.rebalanceTimeoutMs,
      serverAssignorName: request.serverAssignor ?? member.serverAssignorName,
      subscribedTopicNames: request.subscribedTopicNames
        ? new Set(request.subscribedTopicNames)
        : member.subscribedTopicNames,
      subscribedTopicRegex: request.subscribedTopicRegex ?? member.subscribedTopicRegex,
      clientId: context.clientId,
      clientHost: context.clientHost,
    });
    let subscriptionChanged = false;
    if (!sameMember(updated, member)) {
      records.push(memberSubscriptionRecord(groupId, updated, now));
      subscriptionChanged =
        !sameNames(updated.subscribedTopicNames, member.subscribedTopicNames) ||
        updated.subscribedTopicRegex !== member.subscribedTopicRegex;
    }

    // 2. The group epoch moves when the group is new, a subscription changed or a subscribed topic did.
    const previousId = group.staticMemberId(updated.instanceId);
    const replaced = previousId !== undefined && previousId !== updated.memberId ? group.member(previousId) : undefined;
    const previous = replaced ?? group.member(updated.memberId);
    const { metadata, resolved } = this.subscription(
      subscribedTopicNamesAfter(group, previous, updated),
      subscribedRegexesAfter(group, previous, updated),
    );
    const hash = metadataHash(metadata);
    let groupEpoch = group.groupEpoch;
    if (!existing || subscriptionChanged || hash !== group.metadataHash) {
      groupEpoch += 1;
      const reason = !previous
        ? 'member-joined'
        : subscriptionChanged
          ? 'subscription-changed'
          : 'topic-metadata-changed';
      const cause = { reason, memberId: updated.memberId } as const;
      records.push(this.epochs.bumpRecord(group, groupEpoch, hash, cause, group.size + (previous ? 0 : 1), now));
    }

    // 3. A new target assignment when the group epoch is ahead of it.
    let targetEpoch = group.assignmentEpoch;
    let target: TopicPartitions;
    if (groupEpoch > group.assignmentEpoch) {
      const result = updateTargetAssignment(group, groupEpoch, this.deps.assignors, metadata, resolved, now, {
        previous: member,
        updated,
      });
      records.push(...result.records);
      target = result.targetAssignment.get(updated.memberId) ?? new Map();
      targetEpoch = groupEpoch;
    } else {
      target = group.targetAssignmentFor(updated.memberId, updated.instanceId);
    }

    // 4. Reconcile the member towards its target.
    const reconcile = { owned, subscriptionChanged, resolved };
    updated = this.maybeReconcile(group, updated, targetEpoch, target, reconcile, records, now);
    this.scheduleSessionTimeout(groupId, updated.memberId);

    const full =
      joining ||
      (request.rebalanceTimeoutMs !== undefined &&
        request.rebalanceTimeoutMs !== null &&
        request.rebalanceTimeoutMs !== -1 &&
        (request.subscribedTopicNames != null || request.subscribedTopicRegex != null) &&
        request.topicPartitions != null);
    const changed = !samePartitions(member.assignedPartitions, updated.assignedPartitions);
    return {
      records,
      response: {
        errorCode: 0,
        memberId: updated.memberId,
        memberEpoch: updated.memberEpoch,
        heartbeatIntervalMs: this.deps.config.heartbeatIntervalMs,
        assignment: full || changed ? { topicPartitions: toTopicPartitionList(updated.assignedPartitions) } : null,
      },
    };
  }

  /** Kafka's `maybeReconcile`, arming the rebalance timeout while the member must revoke. */
  private maybeReconcile(
    group: ConsumerGroup,
    member: ConsumerGroupMember,
    targetEpoch: number,
    target: TopicPartitions,
    heartbeat: {
      owned: ConsumerGroupHeartbeatRequest['topicPartitions'];
      subscriptionChanged: boolean;
      resolved: ReadonlyMap<string, ReadonlySet<string>>;
    },
    records: LogRecord[],
    now: number,
  ): ConsumerGroupMember {
    const { owned, subscriptionChanged, resolved } = heartbeat;
    if (!subscriptionChanged && isReconciledTo(member, targetEpoch)) return member;
    const next = new CurrentAssignmentBuilder(member)
      .withTargetAssignment(targetEpoch, target)
      .withHasSubscriptionChanged(subscriptionChanged)
      .withResolvedRegularExpressions(resolved)
      .withCurrentPartitionEpoch((topic, p) => group.currentPartitionEpoch(topic, p))
      .withOwnedTopicPartitions(owned ?? null)
      .withTopicExists((topic) => this.deps.partitionsOf(topic) !== undefined)
      .build();
    if (sameMember(next, member)) return member;
    records.push(currentAssignmentRecord(group.groupId, next, now));
    if (next.state === MemberState.UNREVOKED_PARTITIONS)
      this.scheduleRebalanceTimeout(group.groupId, next.memberId, next.memberEpoch, next.rebalanceTimeoutMs);
    else this.deps.effects.cancel(consumerRebalanceKey(group.groupId, next.memberId));
    return next;
  }

  /** Kafka's `consumerGroupLeave`: -1 removes the member, -2 keeps a static member's place until its session ends. */
  private leave(request: ConsumerGroupHeartbeatRequest): Outcome {
    const { groupId, memberId, memberEpoch, instanceId } = request;
    const group = this.deps.groups.get(groupId);
    if (!group) throw new ConsumerGroupError('GROUP_ID_NOT_FOUND', `Consumer group ${groupId} not found.`);
    const response: ConsumerGroupHeartbeatResponse = {
      errorCode: 0,
      memberId,
      memberEpoch,
      heartbeatIntervalMs: 0,
      assignment: null,
    };
    if (instanceId === undefined || instanceId === null) {
      const member = group.member(memberId);
      if (!member)
        throw new ConsumerGroupError('UNKNOWN_MEMBER_ID', `Member ${memberId} is not a member of group ${groupId}.`);
      return { records: this.fence(group, member, 'member-left'), response };
    }
    const member = group.staticMember(instanceId);
    throwIfStaticMemberIsUnknown(member, instanceId);
    throwIfInstanceIdIsFenced(member, memberId, instanceId);
    if (memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH)
      return { records: this.fence(group, member, 'member-left'), response };
    // A static member away for now: it keeps its assignment and target; its session timer still runs.
    const away = withChanges(member, {
      memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH,
      partitionsPendingRevocation: new Map(),
    });
    return {
      records: [currentAssignmentRecord(groupId, away, this.deps.clock.now())],
      response: { ...response, memberId: member.memberId, memberEpoch: LEAVE_GROUP_STATIC_MEMBER_EPOCH },
    };
  }

  /** Kafka's `consumerGroupFenceMember`: the member's records go, the group epoch moves, its timers stop. */
  private fence(group: ConsumerGroup, member: ConsumerGroupMember, reason: EpochBumpReason): LogRecord[] {
    const now = this.deps.clock.now();
    const hash = metadataHash(
      this.subscription(
        subscribedTopicNamesAfter(group, member, undefined),
        subscribedRegexesAfter(group, member, undefined),
      ).metadata,
    );
    this.deps.effects.cancel(consumerSessionKey(group.groupId, member.memberId));
    this.deps.effects.cancel(consumerRebalanceKey(group.groupId, member.memberId));
    this.deps.onMemberGone?.(group.groupId, member.memberId);
    return [
      ...memberTombstones(group.groupId, member.memberId, now),
      this.epochs.bumpRecord(
        group,
        group.groupEpoch + 1,
        hash,
        { reason, memberId: member.memberId },
        group.size - 1,
        now,
      ),
    ];
  }

  /** The group's subscribed topics (by name and by its regexes, resolved against the registry now). */
  private subscription(names: ReadonlyMap<string, number>, regexes: ReadonlyMap<string, number>): GroupSubscription {
    return groupSubscription(names.keys(), regexes.keys(), this.deps.topicNames, this.deps.partitionsOf);
  }

  private scheduleSessionTimeout(groupId: string, memberId: string): void {
    this.deps.effects.schedule(consumerSessionKey(groupId, memberId), this.deps.config.sessionTimeoutMs, () =>
      this.fenceMember(groupId, memberId, () => true),
    );
  }

  /** Fences the member if it is still at `memberEpoch` when the deadline passes (it did not revoke in time). */
  private scheduleRebalanceTimeout(groupId: string, memberId: string, memberEpoch: number, timeoutMs: number): void {
    this.deps.effects.schedule(consumerRebalanceKey(groupId, memberId), timeoutMs, () =>
      this.fenceMember(groupId, memberId, (member) => member.memberEpoch === memberEpoch),
    );
  }

  /** A timer's fencing (session, rebalance timeout, disconnect grace): a write nobody waits on, if the group and member are still there. */
  fenceMember(groupId: string, memberId: string, stillDue: (member: ConsumerGroupMember) => boolean): void {
    const group = this.deps.groups.get(groupId);
    const member = group?.member(memberId);
    if (!group || !member || !stillDue(member)) return;
    this.deps.effects.write(this.written<never>(this.fence(group, member, 'member-fenced'), undefined, groupId));
  }

  /**
   * Applies `records` now and returns the write that commits them, taking them back if it fails. When
   * they leave `groupId` converged, the write also records that in the group's epoch history.
   */
  private written<T>(records: LogRecord[], response?: T, groupId?: string): CoordinatorResult<T> {
    if (records.length === 0) return { records, response };
    const write = this.writes.apply(records);
    const converged =
      groupId === undefined ? undefined : this.epochs.convergenceRecord(this.group(groupId), this.deps.clock.now());
    if (converged) {
      this.writes.extend(write, [converged]);
      records.push(converged);
    }
    const events = this.epochs.take();
    return {
      records,
      response,
      appendFuture: (outcome) => {
        if (outcome.ok) {
          this.writes.committed(write);
          this.epochs.committed(events);
        } else this.writes.failed(write);
      },
    };
  }
}
