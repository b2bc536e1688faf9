import type { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '@cohort/protocol';
import { KafkaError } from '@cohort/protocol';
import type { Clock, LogRecord } from '@cohort/replication';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { OperationEffects } from '../runtime/operation-effects';
import type { MemberQuotas } from '../group/member-quotas';
import { checkSubscriptionCharge, holdSubscriptionCharge, type SubscriptionCharge } from '../group/subscription-charge';
import type { CoordinatorMetrics } from '../ports/coordinator-metrics.port';
import { ExistingSubscribedTopics } from '../consumer/existing-subscribed-topics';
import { sameNames } from '../consumer/member-equality';
import { metadataHash } from '../consumer/subscription-metadata';
import { samePartitions, toTopicPartitionList, type TopicPartitions } from '../consumer/topic-partitions';
import { newShareGroupMember, ShareGroup, type ShareGroupMember } from './share-group-model';
import {
  shareCurrentAssignmentRecord,
  shareGroupEpochRecord,
  shareMemberRecord,
  shareGroupTombstones,
} from './share-group-records';
import { ShareGroupWrites, type ShareGroupStore } from './share-group-replay';
import { computeShareTargets, shareSubscriptionMetadata, subscribedPartOf } from './share-group-target';
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
import { fenceShareMember, shareSessionKey } from './share-member-fencing';

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

  constructor(private readonly deps: ShareGroupManagerDeps) {
    this.writes = new ShareGroupWrites(deps.groups);
    this.existing = new ExistingSubscribedTopics(deps.partitionsOf, deps.topicCount);
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
    let step: {
      records: LogRecord[];
      response: ShareGroupHeartbeatResponse;
      changed: string[];
      left?: string;
      charge?: SubscriptionCharge;
    };
    try {
      throwIfShareHeartbeatIsInvalid(request);
      step = request.memberEpoch === LEAVE_EPOCH ? this.leave(request) : this.join(request, context);
    } catch (error) {
      this.deps.effects.discard();
      if (!(error instanceof KafkaError)) throw error;
      return { result: this.deps.effects.attachTo({ records: [], response: shareHeartbeatError(error) }), changed: [] };
    }
    if (step.left !== undefined) this.deps.leases().releaseMember(request.groupId, step.left);
    const written = this.written(step.records, step.response);
    if (step.charge) holdSubscriptionCharge(this.deps.quotas!, step.charge);
    return { result: this.deps.effects.attachTo(written), changed: step.changed };
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
      for (const memberId of group.members.keys()) this.scheduleSessionTimeout(group.groupId, memberId);
  }

  private join(request: ShareGroupHeartbeatRequest, context: ShareRequestContext) {
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
    let updated: ShareGroupMember = {
      ...member,
      rackId: request.rackId ?? member.rackId,
      subscribedTopicNames: request.subscribedTopicNames
        ? new Set(request.subscribedTopicNames)
        : member.subscribedTopicNames,
      clientId: context.clientId,
      clientHost: context.clientHost,
    };
    const charge = this.checkCharge(groupId, known, updated, context.principal);
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

    // 3. A new target assignment when the group epoch is ahead of it.
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

    // 4. No revocation (Kafka's ShareGroupAssignmentBuilder): the member takes its target at once.
    const before = updated;
    if (targetEpoch !== updated.memberEpoch)
      updated = {
        ...updated,
        previousMemberEpoch: updated.memberEpoch,
        memberEpoch: targetEpoch,
        assignedPartitions: subscribedPartOf(target, updated.subscribedTopicNames),
      };
    else if (subscriptionChanged)
      updated = { ...updated, assignedPartitions: subscribedPartOf(target, updated.subscribedTopicNames) };
    if (
      !known ||
      updated.memberEpoch !== before.memberEpoch ||
      updated.assignedPartitions !== before.assignedPartitions
    )
      records.push(shareCurrentAssignmentRecord(groupId, updated, now));
    this.scheduleSessionTimeout(groupId, memberId);

    const full = memberEpoch === JOIN_EPOCH || (request.subscribedTopicNames ?? null) !== null;
    const assignmentChanged = !samePartitions(member.assignedPartitions, updated.assignedPartitions);
    const response: ShareGroupHeartbeatResponse = {
      errorCode: 0,
      memberId,
      memberEpoch: updated.memberEpoch,
      heartbeatIntervalMs: this.deps.config.heartbeatIntervalMs,
      assignment:
        full || assignmentChanged ? { topicPartitions: toTopicPartitionList(updated.assignedPartitions) } : null,
    };
    return { records, response, changed, charge };
  }

  /** The member's charge against its principal's limits (group/subscription-charge.ts), when its subscription changes. */
  private checkCharge(
    groupId: string,
    known: ShareGroupMember | undefined,
    updated: ShareGroupMember,
    principal: string | undefined,
  ): SubscriptionCharge | undefined {
    if (known?.subscribedTopicNames === updated.subscribedTopicNames) return undefined;
    const { memberId } = updated;
    return checkSubscriptionCharge(
      this.deps.quotas,
      this.deps.metrics,
      {
        kind: 'share',
        groupId,
        memberId,
        principal,
        topicNames: updated.subscribedTopicNames,
        topicRegex: null,
        isMember: () => this.deps.groups.get(groupId)?.member(memberId) !== undefined,
      },
      (message) => KafkaError.of('THROTTLING_QUOTA_EXCEEDED', message),
    );
  }

  /** Kafka's `shareGroupLeave`. */
  private leave(request: ShareGroupHeartbeatRequest) {
    const { groupId, memberId } = request;
    const group = this.deps.groups.get(groupId);
    if (!group) throw KafkaError.of('GROUP_ID_NOT_FOUND', `Share group ${groupId} not found.`);
    const member = group.member(memberId);
    if (!member) throw KafkaError.of('UNKNOWN_MEMBER_ID', `Member ${memberId} is not a member of group ${groupId}.`);
    const fenced = fenceShareMember(this.deps, group, member, this.existing.after(group, member, undefined));
    const response: ShareGroupHeartbeatResponse = {
      errorCode: 0,
      memberId,
      memberEpoch: LEAVE_EPOCH,
      heartbeatIntervalMs: 0,
      assignment: null,
    };
    return { records: fenced.records, response, changed: fenced.changed, left: memberId };
  }

  private scheduleSessionTimeout(groupId: string, memberId: string): void {
    this.deps.effects.schedule(shareSessionKey(groupId, memberId), this.deps.config.sessionTimeoutMs, () =>
      this.fenceOnTimer(groupId, memberId),
    );
  }

  /** The session expired: the member is fenced by a write nobody waits on, and its leases go back. */
  private fenceOnTimer(groupId: string, memberId: string): void {
    const group = this.deps.groups.get(groupId);
    const member = group?.member(memberId);
    if (!group || !member) return;
    const { records, changed } = fenceShareMember(
      this.deps,
      group,
      member,
      this.existing.after(group, member, undefined),
    );
    const write = this.written<never>(records);
    const applied = write.appendFuture;
    write.appendFuture = (outcome) => {
      applied?.(outcome);
      if (outcome.ok && changed.length > 0) this.onTargetsChanged(groupId, changed);
    };
    this.deps.effects.write(write);
    this.deps.leases().releaseMember(groupId, memberId);
  }

  /** Applies `records` now and returns the write that commits them, taking them back if it fails. */
  private written<T>(records: LogRecord[], response?: T): CoordinatorResult<T> {
    if (records.length === 0) return { records, response };
    const write = this.writes.apply(records);
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
