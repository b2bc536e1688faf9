import type { LogRecord } from '@cohort/replication';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { OperationEffects } from '../runtime/operation-effects';
import { ConsumerGroupError, heartbeatErrorResponse } from './consumer-errors';
import { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupConfig } from './consumer-group-config';
import { type ConsumerGroupMember, updatedMember as withChanges } from './consumer-group-member';
import { consumerGroupTombstones } from './consumer-group-records';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  ConsumerRequestContext,
} from './consumer-heartbeat.types';
import { currentAssignmentRecord } from './consumer-records';
import { EpochRecorder } from './epoch-recorder';
import { MemberProgress, type ParkedJoin, type PreparedJoin } from './member-progress';
import { heartbeatAnswer, heartbeatChange } from './heartbeat-change';
import {
  LEAVE_GROUP_STATIC_MEMBER_EPOCH,
  throwIfHeartbeatRequestIsInvalid,
  throwIfInstanceIdIsFenced,
  throwIfStaticMemberIsUnknown,
} from './heartbeat-validation';
import { MemberState } from './member-state';
import type { GroupSubscription } from './subscription-metadata';
import { updateTargetAssignment } from './target-assignment-update';
import type { TargetAssignmentResult } from './target-assignment-builder';
import type { UncommittedWrites } from './uncommitted-writes';
import { ConsumerGroupWrites } from './consumer-group-writes';
import type { ConsumerGroupManagerDeps, Fencing } from './consumer-group-manager.types';
import { type GroupMovesDeps, type MovedGroup, moveGroups } from './group-moves';
import { ConsumerMemberFencing } from './consumer-member-fencing';
import { checkSubscriptionCharge, holdSubscriptionCharge, type SubscriptionCharge } from '../group/subscription-charge';
import type { MemberChange } from './member-progress';

export type { ConsumerGroupDowngradePort, ConsumerGroupManagerDeps, Fencing } from './consumer-group-manager.types';

export const LEAVE_GROUP_MEMBER_EPOCH = -1;

/** What one heartbeat computed, before its records are applied. */
interface Outcome extends Fencing {
  response: ConsumerGroupHeartbeatResponse;
}

/**
 * The consumer group protocol of one shard (the KIP-848 half of Kafka's `GroupMetadataManager`): a
 * sibling of `ClassicGroupManager` over the shard's effects and runtime. `heartbeat` is Kafka's
 * `consumerGroupHeartbeat`: it computes the records of the member's change (member, group epoch,
 * target assignment, reconciled assignment) from the group as it stands, applies them at once so the
 * next request sees them (`UncommittedWrites`, taken back if the write fails), and returns them with
 * the response, which leaves once they are committed. Timers (session, rebalance timeout) are recorded
 * in the step's effects; when they fire they fence the member through the same effects (`fencing`,
 * consumer-member-fencing.ts).
 */
export class ConsumerGroupManager {
  readonly writes: UncommittedWrites;
  private readonly applied: ConsumerGroupWrites;
  /** Steps 1-4 of a member's change, shared with a classic member's JoinGroup. */
  readonly progress: MemberProgress;
  /** Fencing a member and the timers that do it (consumer-member-fencing.ts), shared with a classic member's requests. */
  readonly fencing: ConsumerMemberFencing;
  private readonly assignorNames: string[];
  private readonly epochs: EpochRecorder;
  /** The membership charge of the heartbeat under way, checked before its records and held once they are applied. */
  private charge: SubscriptionCharge | undefined;

  constructor(private readonly deps: ConsumerGroupManagerDeps) {
    this.epochs = new EpochRecorder(deps.metrics);
    this.applied = new ConsumerGroupWrites(deps.groups, this.epochs, deps.clock);
    this.writes = this.applied.uncommitted;
    this.assignorNames = deps.assignors.map((a) => a.name);
    this.progress = new MemberProgress({
      assignors: deps.assignors,
      partitionsOf: deps.partitionsOf,
      topicNames: deps.topicNames,
      topicCount: deps.topicCount,
      bumpRecord: (...args) => this.epochs.bumpRecord(...args),
      armRebalanceTimeout: (groupId, memberId, epoch, timeoutMs) =>
        this.fencing.scheduleRebalanceTimeout(groupId, memberId, epoch, timeoutMs),
      cancelRebalanceTimeout: (groupId, memberId) => this.fencing.cancelRebalanceTimeout(groupId, memberId),
      topicAccess: deps.topicAccess,
    });
    this.fencing = new ConsumerMemberFencing(deps, this.progress, this.epochs, this.applied);
  }

  get config(): ConsumerGroupConfig {
    return this.deps.config;
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
      this.forgetPending();
      if (!(error instanceof ConsumerGroupError)) throw error;
      return this.deps.effects.attachTo({ records: [], response: heartbeatErrorResponse(error) });
    }
    const written = this.written(outcome.records, outcome.response, request.groupId, outcome.settled);
    this.holdCharge();
    return this.deps.effects.attachTo(written);
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
   * the members whose target changed can be told to heartbeat now instead of at their next interval
   * (`moveGroups`).
   */
  onTopicChanged(topic: string): MovedGroup[] {
    return this.moveGroups(
      (group) => group.isSubscribedToTopic(topic),
      () => false,
    );
  }

  /**
   * The ACL bindings changed: a group one of whose regex members may now be given other topics moves
   * at once, as for a topic change, instead of at that member's next heartbeat.
   */
  onTopicAccessChanged(): MovedGroup[] {
    return this.moveGroups(
      (group) => group.subscribedRegexes.size > 0,
      (group, subscription) => this.progress.regexAccessChangedFor(group, subscription),
    );
  }

  private moveGroups(
    affected: (group: ConsumerGroup) => boolean,
    moved: (group: ConsumerGroup, subscription: GroupSubscription) => boolean,
  ): MovedGroup[] {
    const now = this.deps.clock.now();
    const cause = { reason: 'topic-metadata-changed', memberId: null } as const;
    const deps: GroupMovesDeps = {
      groups: this.deps.groups.list(),
      assignors: this.deps.assignors,
      now,
      subscription: (group) => this.currentSubscription(group),
      bump: (group, groupEpoch, hash) => this.epochs.bumpRecord(group, groupEpoch, hash, cause, group.size, now),
      write: (records, groupId) => this.deps.effects.write(this.written<never>(records, undefined, groupId)),
    };
    return moveGroups(deps, affected, moved);
  }

  /** Kafka's `onLoaded` for consumer groups: every member's session restarts, a revoking member's deadline too. */
  onLoaded(): void {
    const fencing = this.fencing;
    for (const group of this.deps.groups.list()) {
      for (const member of group.members.values()) {
        fencing.scheduleSessionTimeout(group.groupId, member.memberId, member.classicMemberMetadata?.sessionTimeoutMs);
        if (member.state === MemberState.UNREVOKED_PARTITIONS)
          fencing.scheduleRebalanceTimeout(
            group.groupId,
            member.memberId,
            member.memberEpoch,
            member.rebalanceTimeoutMs,
          );
      }
    }
  }

  private join(request: ConsumerGroupHeartbeatRequest, context: ConsumerRequestContext): Outcome {
    const now = this.deps.clock.now();
    const records: LogRecord[] = [];
    const { change, full } = this.changeOf(request, context, records, now);
    const updated = this.progress.advance(change, records, now);
    this.fencing.scheduleSessionTimeout(change.group.groupId, updated.memberId);
    return { records, response: heartbeatAnswer(change.member, updated, full, this.deps.config.heartbeatIntervalMs) };
  }

  /**
   * The first half of a member's heartbeat (steps 1 and 2: who it is, what it changed, the group epoch),
   * as records not yet applied; its second half is `finishJoin` once the group's target is known.
   * Throws the heartbeat's error, having recorded nothing.
   */
  prepareJoin(request: ConsumerGroupHeartbeatRequest, context: ConsumerRequestContext, now: number): PreparedJoin {
    const records: LogRecord[] = [];
    const { change, full } = this.changeOf(request, context, records, now);
    return { prepared: this.progress.prepare(change, records, now), records, full };
  }

  /** Steps 3's result reconciled (step 4): `member` as the group holds it now, towards its target. */
  finishJoin(
    join: ParkedJoin,
    member: ConsumerGroupMember,
    resolved: () => ReadonlyMap<string, ReadonlySet<string>>,
    records: LogRecord[],
    now: number,
  ): { member: ConsumerGroupMember; response: ConsumerGroupHeartbeatResponse } {
    const { prepared } = join;
    const { group } = prepared;
    const target = group.targetAssignmentFor(member.memberId, member.instanceId);
    const updated = this.progress.reconcile(prepared, member, group.assignmentEpoch, target, resolved, records, now);
    this.fencing.scheduleSessionTimeout(group.groupId, updated.memberId);
    return {
      member: updated,
      response: heartbeatAnswer(prepared.member, updated, join.full, this.deps.config.heartbeatIntervalMs),
    };
  }

  /** The group's new target at its group epoch, from the group as it stands (`subscription()`, asked only then); null when it is current. */
  computeTarget(
    group: ConsumerGroup,
    subscription: () => GroupSubscription,
    now: number,
  ): TargetAssignmentResult | null {
    if (group.groupEpoch <= group.assignmentEpoch) return null;
    const { metadata, resolved } = subscription();
    return updateTargetAssignment(group, group.groupEpoch, this.deps.assignors, metadata, resolved, now);
  }

  /** The group's subscription as it stands (its names and regexes, resolved against the registry now). */
  currentSubscription(group: ConsumerGroup): GroupSubscription {
    return this.progress.currentSubscription(group);
  }

  private changeOf(...args: [ConsumerGroupHeartbeatRequest, ConsumerRequestContext, LogRecord[], number]) {
    const changed = heartbeatChange(this.deps.groups, this.deps.config.maxSize, ...args);
    this.checkCharge(args[0], args[1].principal, changed.change);
    this.progress.access?.remember(args[0].groupId, changed.change.updated.memberId, args[1].aclCaller);
    return changed;
  }

  /**
   * The member's charge against its principal's limits (group/subscription-charge.ts), when it joins
   * (epoch 0) or its subscription changes; a steady heartbeat costs nothing here. Held once the
   * heartbeat's records are applied (`holdCharge`).
   */
  private checkCharge(request: ConsumerGroupHeartbeatRequest, principal: string | undefined, change: MemberChange) {
    const { member, updated, group } = change;
    const unchanged =
      updated.subscribedTopicNames === member.subscribedTopicNames &&
      updated.subscribedTopicRegex === member.subscribedTopicRegex;
    if (request.memberEpoch !== 0 && unchanged) {
      this.charge = undefined;
      return;
    }
    const { groupId } = group;
    const memberId = updated.memberId;
    // A static member back under a new id takes the place, and the charge, of the one it replaces.
    const instanceId = request.instanceId ?? null;
    this.charge = checkSubscriptionCharge(
      this.deps.quotas,
      this.deps.metrics,
      {
        kind: 'consumer',
        groupId,
        memberId,
        replacedMemberId: instanceId === null ? undefined : group.staticMember(instanceId)?.memberId,
        principal,
        topicNames: updated.subscribedTopicNames,
        topicRegex: updated.subscribedTopicRegex,
        isMember: () => this.deps.groups.get(groupId)?.member(memberId) !== undefined,
      },
      (message) => new ConsumerGroupError('THROTTLING_QUOTA_EXCEEDED', message),
    );
  }

  /** The heartbeat's records are applied: its member holds its charge (`checkCharge`) from now on. */
  holdCharge(): void {
    const charge = this.charge;
    if (charge === undefined) return;
    this.charge = undefined;
    holdSubscriptionCharge(this.deps.quotas!, charge);
  }

  /** Kafka's request checks: a heartbeat that fails them is answered with their error and changes nothing. */
  validate(request: ConsumerGroupHeartbeatRequest): void {
    throwIfHeartbeatRequestIsInvalid(request, this.assignorNames);
  }

  /** A leave (epoch -1 or -2), its records applied now and their write added to the step's effects. */
  leaveNow(request: ConsumerGroupHeartbeatRequest): ConsumerGroupHeartbeatResponse {
    const { records, response, settled } = this.leave(request);
    this.deps.effects.write(this.written<never>(records, undefined, request.groupId, settled));
    return response;
  }

  /**
   * Applies `records` of `groupId` now and adds their write to the step's effects (nothing without
   * records). Returns the applied write, which `writes.takeBack` can undo until the step is run.
   */
  write(records: LogRecord[], groupId: string): object | undefined {
    if (records.length === 0) return undefined;
    const { result, write } = this.applied.apply<never>(records, undefined, groupId);
    this.deps.effects.write(result);
    return write;
  }

  /** A heartbeat of a batch failed: the epoch events it recorded are forgotten (its effects are dropped by the caller). */
  forgetPending(): void {
    this.epochs.discard();
    this.charge = undefined;
  }

  get effects(): OperationEffects {
    return this.deps.effects;
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
      return { ...this.fencing.fence(group, member, 'member-left'), response };
    }
    const member = group.staticMember(instanceId);
    throwIfStaticMemberIsUnknown(member, instanceId);
    throwIfInstanceIdIsFenced(member, memberId, instanceId);
    if (memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH)
      return { ...this.fencing.fence(group, member, 'member-left'), response };
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

  /**
   * Applies `records` now and returns the write that commits them, taking them back if it fails
   * (`ConsumerGroupWrites.written`).
   */
  written<T>(
    records: LogRecord[],
    response?: T,
    groupId?: string,
    settled?: (ok: boolean) => void,
  ): CoordinatorResult<T> {
    return this.applied.written(records, response, groupId, settled);
  }
}
