import type { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '@cohort/protocol';
import { KafkaError } from '@cohort/protocol';
import type { Clock, LogRecord } from '@cohort/replication';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { OperationEffects } from '../runtime/operation-effects';
import type { MemberQuotas } from '../group/member-quotas';
import { holdSubscriptionCharge, type SubscriptionCharge } from '../group/subscription-charge';
import type { CoordinatorMetrics } from '../ports/coordinator-metrics.port';
import { ExistingSubscribedTopics } from '../consumer/existing-subscribed-topics';
import { sameNames } from '../consumer/member-equality';
import { metadataHash } from '../consumer/subscription-metadata';
import type { TopicPartitions } from '../consumer/topic-partitions';
import { newShareGroupMember, ShareGroup, type ShareGroupMember } from './share-group-model';
import { shareGroupEpochRecord, shareMemberRecord, shareGroupTombstones } from './share-group-records';
import { ShareGroupWrites, type ShareGroupStore } from './share-group-replay';
import { computeShareTargets, shareSubscriptionMetadata } from './share-group-target';
import {
  JOIN_EPOCH,
  LEAVE_EPOCH,
  sameShareMember,
  shareHeartbeatError,
  throwIfShareGroupIsFull,
  throwIfShareHeartbeatIsInvalid,
  throwIfShareMemberEpochIsInvalid,
} from './share-group-validation';
import type { ShareLeaseOwner, ShareMembershipView } from './share-ports';
import { ShareAssignment } from './share-assignment';
import { fenceShareMember, ShareMemberSessions } from './share-member-fencing';
import { type DeferredShareHeartbeats, type ShareHeartbeatFirstHalf, takeShareTarget } from './share-heartbeat-halves';
import { shareSubscriptionCharge } from './share-subscription-charge';

export interface ShareGroupManagerDeps {
  groups: ShareGroupStore;
  effects: OperationEffects;
  clock: Clock;
  config: { heartbeatIntervalMs: number; sessionTimeoutMs: number; maxSize: number };
  /** Partition counts of existing topics (the topic registry). */
  partitionsOf: (topic: string) => number | undefined;
  /** How many topics the registry holds: topics are never deleted, so it moves exactly when one is created. */
  topicCount: () => number;
  /** Where leases go back when a member goes (the share partitions of this shard). */
  leases: () => ShareLeaseOwner;
  /** The node's per-principal membership limits (absent: nothing is counted). */
  quotas?: MemberQuotas;
  metrics?: CoordinatorMetrics;
}

/** Who a heartbeat comes from: its client, and the principal its member counts against (absent: not counted). */
export interface ShareRequestContext {
  clientId: string;
  clientHost: string;
  principal?: string;
}

/** What a heartbeat or a fencing wrote, and whom it concerns. */
export interface ShareStep<T> {
  result: CoordinatorResult<T>;
  /** Members (other than the one asking) whose target changed: told to heartbeat once the write commits. */
  changed: string[];
}

/**
 * The share group protocol of one shard (the KIP-932 half of Kafka's `GroupMetadataManager`), a
 * sibling of ConsumerGroupManager. `heartbeat` is Kafka's `shareGroupHeartbeat`: the member's change,
 * the group epoch, a new target assignment when the epoch moved, and the member taking its whole
 * target at once (no revocation: several members may work one partition). Its records are applied at
 * once (`ShareGroupWrites`, taken back if the write fails) and the response leaves once they commit.
 * A member that leaves or is fenced gives its leases back through `ShareLeaseOwner`; the remaining
 * members get their new targets in the same write (Kafka waits for their next heartbeat).
 */
export class ShareGroupManager implements ShareMembershipView {
  readonly writes: ShareGroupWrites;
  /** Called with the members to tell whenever a write nobody waits on (a fencing) changed targets. */
  onTargetsChanged: (groupId: string, memberIds: string[]) => void = () => undefined;
  /** Each group's topics subscribed by name that exist, kept while the names, the topics and their sizes stay. */
  private readonly existing: ExistingSubscribedTopics;

  /** The members' sessions, and the fencing of those that end. */
  private readonly sessions: ShareMemberSessions;

  constructor(private readonly deps: ShareGroupManagerDeps) {
    this.writes = new ShareGroupWrites(deps.groups);
    this.existing = new ExistingSubscribedTopics(deps.partitionsOf, deps.topicCount);
    this.sessions = new ShareMemberSessions(deps, this.existing, {
      written: (records) => this.written<never>(records),
      targetsChanged: (groupId, memberIds) => this.onTargetsChanged(groupId, memberIds),
    });
  }

  group(groupId: string): ShareGroup | undefined {
    return this.deps.groups.get(groupId);
  }

  /** ShareMembershipView: the partitions the member may work, or 69 / 25. */
  assignedPartitions(groupId: string, memberId: string): ShareAssignment | number {
    const group = this.deps.groups.get(groupId);
    if (!group) return KafkaError.of('GROUP_ID_NOT_FOUND').errorCode;
    const member = group.member(memberId);
    if (!member) return KafkaError.of('UNKNOWN_MEMBER_ID').errorCode;
    return ShareAssignment.of(member.assignedPartitions);
  }

  heartbeat(request: ShareGroupHeartbeatRequest, context: ShareRequestContext): ShareStep<ShareGroupHeartbeatResponse> {
    return this.step(request, context)!;
  }

  /**
   * `heartbeat` in a batch (handlers/share-heartbeat-queue.ts): a heartbeat that needs a new target is
   * applied up to it into its group's `DeferredShareHeartbeats` and gives null, to be answered by
   * `finishDeferred` with the batch's other heartbeats of the group; any other is answered as by `heartbeat`.
   */
  heartbeatInBatch(
    request: ShareGroupHeartbeatRequest,
    context: ShareRequestContext,
    deferredOf: (groupId: string) => DeferredShareHeartbeats,
  ): ShareStep<ShareGroupHeartbeatResponse> | null {
    return this.step(request, context, deferredOf);
  }

  /**
   * The group's deferred heartbeats answered: its target computed once, at its group epoch, and each
   * member taking its own (Kafka computes one per heartbeat: a burst of joins then ran the assignor over
   * the whole group once per join). One write holds their first halves, the target and their
   * assignments. Should the assignor fail, each is answered with its error and nothing of them is written.
   */
  finishDeferred(
    groupId: string,
    deferred: DeferredShareHeartbeats,
  ): { result: CoordinatorResult<never>; responses: ShareGroupHeartbeatResponse[]; changed: string[] } {
    const group = this.deps.groups.get(groupId)!;
    const now = this.deps.clock.now();
    let changed: string[] = [];
    if (group.groupEpoch > group.assignmentEpoch) {
      try {
        const metadata = shareSubscriptionMetadata(this.existing.of(group), this.deps.partitionsOf);
        const target = computeShareTargets(group, group.groupEpoch, metadata, now, {});
        this.gather(deferred, target.records);
        changed = target.changed;
      } catch (error) {
        if (!(error instanceof KafkaError)) throw error;
        if (deferred.write) this.writes.takeBack(deferred.write);
        const response = shareHeartbeatError(error);
        const result = { records: [], timers: deferred.timers, followUps: deferred.followUps };
        return { result, responses: deferred.firsts.map(() => response), changed: [] };
      }
    }
    const { heartbeatIntervalMs } = this.deps.config;
    const responses = deferred.firsts.map((first) => {
      const taken = takeShareTarget(
        first,
        group.targetOf(first.request.memberId),
        group.assignmentEpoch,
        now,
        heartbeatIntervalMs,
      );
      this.gather(deferred, taken.records);
      return taken.response;
    });
    const asking = new Set(deferred.firsts.map((first) => first.request.memberId));
    // Pending from now on: it goes to the log next (pending writes are in the log's order).
    if (deferred.write) this.writes.attach(deferred.write);
    const result: CoordinatorResult<never> = deferred.write
      ? this.settled(deferred.write, deferred.records)
      : { records: [] };
    result.timers = deferred.timers;
    result.followUps = deferred.followUps;
    return { result, responses, changed: changed.filter((memberId) => !asking.has(memberId)) };
  }

  private step(
    request: ShareGroupHeartbeatRequest,
    context: ShareRequestContext,
    deferredOf?: (groupId: string) => DeferredShareHeartbeats,
  ): ShareStep<ShareGroupHeartbeatResponse> | null {
    let step: {
      records: LogRecord[];
      response?: ShareGroupHeartbeatResponse;
      changed: string[];
      left?: string;
      charge?: SubscriptionCharge;
      deferred?: ShareHeartbeatFirstHalf;
    };
    try {
      throwIfShareHeartbeatIsInvalid(request);
      step =
        request.memberEpoch === LEAVE_EPOCH
          ? this.leave(request, deferredOf)
          : this.join(request, context, deferredOf !== undefined);
    } catch (error) {
      this.deps.effects.discard();
      if (!(error instanceof KafkaError)) throw error;
      return { result: this.deps.effects.attachTo({ records: [], response: shareHeartbeatError(error) }), changed: [] };
    }
    if (step.deferred) {
      const deferred = deferredOf!(request.groupId);
      this.gather(deferred, step.records);
      if (step.charge) holdSubscriptionCharge(this.deps.quotas!, step.charge);
      const effects = this.deps.effects.take();
      deferred.timers.push(...effects.timers);
      deferred.followUps.push(...effects.followUps);
      deferred.firsts.push(step.deferred);
      return null;
    }
    if (step.left !== undefined) this.deps.leases().releaseMember(request.groupId, step.left);
    const written = this.written(step.records, step.response);
    if (step.charge) holdSubscriptionCharge(this.deps.quotas!, step.charge);
    return { result: this.deps.effects.attachTo(written), changed: step.changed };
  }

  /** `records` applied as part of the deferred heartbeats' one write. */
  private gather(deferred: DeferredShareHeartbeats, records: LogRecord[]): void {
    if (records.length === 0) return;
    if (deferred.write) this.writes.extend(deferred.write, records);
    else deferred.write = this.writes.begin(records);
    for (const record of records) deferred.records.push(record);
  }

  /**
   * DeleteGroups of an Empty share group: its tombstones and its share partitions' state tombstones in
   * one write, applied now (a failed write takes both back).
   */
  deleteEmpty(group: ShareGroup): Pick<CoordinatorResult<never>, 'records' | 'appendFuture'> {
    const state = this.deps.leases().deleteGroup(group.groupId);
    const written = this.written<never>([...shareGroupTombstones(group, this.deps.clock.now()), ...state.records]);
    const applied = written.appendFuture;
    return {
      records: written.records,
      appendFuture: (outcome) => {
        applied?.(outcome);
        if (!outcome.ok) state.restore();
      },
    };
  }

  /**
   * A topic was created or grew: every group subscribed to it gets a new group epoch and target at
   * once (Kafka waits for the next heartbeat's metadata refresh), and the members whose target
   * changed are returned to be told to heartbeat now.
   */
  onTopicChanged(topic: string): { groupId: string; memberIds: string[] }[] {
    const moved: { groupId: string; memberIds: string[] }[] = [];
    const now = this.deps.clock.now();
    for (const group of this.deps.groups.list()) {
      if (!group.isSubscribedTo(topic) || group.size === 0) continue;
      const metadata = shareSubscriptionMetadata(this.existing.of(group), this.deps.partitionsOf);
      const hash = metadataHash(metadata);
      if (hash === group.metadataHash) continue;
      const groupEpoch = group.groupEpoch + 1;
      const records = [shareGroupEpochRecord(group.groupId, groupEpoch, hash, now)];
      let changed: string[] = [];
      try {
        const target = computeShareTargets(group, groupEpoch, metadata, now, {});
        records.push(...target.records);
        changed = target.changed;
      } catch {
        // The next heartbeat runs the assignor again and answers its error.
      }
      this.deps.effects.write(this.written<never>(records));
      moved.push({ groupId: group.groupId, memberIds: changed });
    }
    return moved;
  }

  /** Loaded from the log: every member's session restarts (Kafka's `onLoaded`). */
  onLoaded(): void {
    for (const group of this.deps.groups.list())
      for (const memberId of group.members.keys()) this.sessions.restart(group.groupId, memberId);
  }

  private join(request: ShareGroupHeartbeatRequest, context: ShareRequestContext, deferTarget = false) {
    const { groupId, memberId, memberEpoch } = request;
    const now = this.deps.clock.now();
    const records: LogRecord[] = [];
    const existing = this.deps.groups.get(groupId);
    if (!existing && memberEpoch !== JOIN_EPOCH)
      throw KafkaError.of('GROUP_ID_NOT_FOUND', `Share group ${groupId} not found.`);
    const group = existing ?? new ShareGroup(groupId);
    throwIfShareGroupIsFull(group, memberId, this.deps.config.maxSize);
    const known = group.member(memberId);
    if (!known && memberEpoch !== JOIN_EPOCH)
      throw KafkaError.of('UNKNOWN_MEMBER_ID', `Member ${memberId} is not a member of group ${groupId}.`);
    const member = known ?? newShareGroupMember(memberId);
    throwIfShareMemberEpochIsInvalid(member, memberEpoch);

    // 1. The member with what this heartbeat changed.
    const updated: ShareGroupMember = {
      ...member,
      rackId: request.rackId ?? member.rackId,
      subscribedTopicNames: request.subscribedTopicNames
        ? new Set(request.subscribedTopicNames)
        : member.subscribedTopicNames,
      clientId: context.clientId,
      clientHost: context.clientHost,
    };
    const charge = shareSubscriptionCharge(this.deps, groupId, known, updated, context.principal);
    let subscriptionChanged = false;
    if (!known || !sameShareMember(updated, member)) {
      records.push(shareMemberRecord(groupId, updated, now));
      subscriptionChanged = !sameNames(updated.subscribedTopicNames, member.subscribedTopicNames);
    }

    // 2. The group epoch moves when a subscription or a subscribed topic changed.
    // A steady heartbeat keeps the member's names: the group's topics as kept, not a walk of every name.
    const metadata = shareSubscriptionMetadata(
      known !== undefined && known.subscribedTopicNames === updated.subscribedTopicNames
        ? this.existing.of(group)
        : this.existing.after(group, known, updated),
      this.deps.partitionsOf,
    );
    const hash = metadataHash(metadata);
    let groupEpoch = group.groupEpoch;
    if (!existing || subscriptionChanged || hash !== group.metadataHash) {
      groupEpoch += 1;
      records.push(shareGroupEpochRecord(groupId, groupEpoch, hash, now));
    }

    // 3. A new target assignment when the group epoch is ahead of it: in a batch (deferTarget), once for
    // all of the group's heartbeats of the batch (`finishDeferred`) instead of once per heartbeat.
    const first: ShareHeartbeatFirstHalf = {
      request,
      member,
      updated,
      known: known !== undefined,
      subscriptionChanged,
    };
    this.sessions.restart(groupId, memberId);
    if (deferTarget && groupEpoch > group.assignmentEpoch) return { records, changed: [], charge, deferred: first };
    let target: TopicPartitions = group.targetOf(memberId);
    let targetEpoch = group.assignmentEpoch;
    let changed: string[] = [];
    if (groupEpoch > group.assignmentEpoch) {
      const result = computeShareTargets(group, groupEpoch, metadata, now, { updated });
      records.push(...result.records);
      target = result.targets.get(memberId)!;
      targetEpoch = groupEpoch;
      changed = result.changed;
    }

    // 4. The member takes its target.
    const taken = takeShareTarget(first, target, targetEpoch, now, this.deps.config.heartbeatIntervalMs);
    records.push(...taken.records);
    return { records, response: taken.response, changed, charge };
  }

  /**
   * Kafka's `shareGroupLeave`. In a batch, the others' new target is left to the batch's one computation
   * for the group (`finishDeferred`: a fleet stopping at once runs the assignor once, not once per leave).
   */
  private leave(request: ShareGroupHeartbeatRequest, deferredOf?: (groupId: string) => DeferredShareHeartbeats) {
    const { groupId, memberId } = request;
    const group = this.deps.groups.get(groupId);
    if (!group) throw KafkaError.of('GROUP_ID_NOT_FOUND', `Share group ${groupId} not found.`);
    const member = group.member(memberId);
    if (!member) throw KafkaError.of('UNKNOWN_MEMBER_ID', `Member ${memberId} is not a member of group ${groupId}.`);
    const deferTarget = deferredOf !== undefined && group.size > 1;
    const topicsAfter = this.existing.after(group, member, undefined);
    const fenced = fenceShareMember(this.deps, group, member, topicsAfter, deferTarget);
    if (deferTarget) deferredOf(groupId);
    const response: ShareGroupHeartbeatResponse = {
      errorCode: 0,
      memberId,
      memberEpoch: LEAVE_EPOCH,
      heartbeatIntervalMs: 0,
      assignment: null,
    };
    return { records: fenced.records, response, changed: fenced.changed, left: memberId };
  }

  /** Applies `records` now and returns the write that commits them, taking them back if it fails. */
  private written<T>(records: LogRecord[], response?: T): CoordinatorResult<T> {
    if (records.length === 0) return { records, response };
    return this.settled(this.writes.apply(records), records, response);
  }

  /** The result that writes `records`, already applied as `write`: committed, or taken back if it fails. */
  private settled<T>(write: object, records: LogRecord[], response?: T): CoordinatorResult<T> {
    return {
      records,
      response,
      appendFuture: (outcome) => {
        if (outcome.ok) this.writes.committed(write);
        else this.writes.failed(write);
      },
    };
  }
}
