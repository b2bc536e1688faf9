import type {
  HeartbeatRequest,
  HeartbeatResponse,
  LeaveGroupMemberResponse,
  LeaveGroupRequest,
  LeaveGroupResponse,
  SyncGroupRequest,
  SyncGroupResponse,
} from '@cohort/protocol';
import { CONSUMER_PROTOCOL_TYPE, ErrorCode } from '@cohort/protocol';
import type { RequestContext } from '../ports/group-coordinator.api';
import { errorFields } from '../responses/error-fields';
import { syncError } from '../responses/group-responses';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { answer } from '../runtime/coordinator-result';
import { operationWriteError } from '../context/store-errors';
import { ConsumerGroupError } from '../consumer/consumer-errors';
import type { ConsumerGroup } from '../consumer/consumer-group';
import type { ConsumerGroupMember } from '../consumer/consumer-group-member';
import { MemberState } from '../consumer/member-state';
import { toTopicPartitionList } from '../consumer/topic-partitions';
import { classicJoinTimeoutKey, classicSyncTimeoutKey } from './classic-member-timers';
import type { ClassicMemberDeps } from './classic-member-deps';
import { tellTargetsChanged } from './targets-changed';

// The classic protocol's SyncGroup, Heartbeat and LeaveGroup from a classic member of a consumer group
// (Kafka's `classicGroupSyncToConsumerGroup`, `classicGroupHeartbeatToConsumerGroup`,
// `classicGroupLeaveToConsumerGroup`), answered from the consumer group's state.

/**
 * SyncGroup: the member's current assignment (what it may own now; partitions it must still revoke or
 * wait for are not in it) as a `consumer` assignment. Answered once the shard's pending writes are
 * committed, since they made that assignment; a member behind the group epoch must rejoin first.
 */
export function classicSyncToConsumerGroup(
  deps: ClassicMemberDeps,
  group: ConsumerGroup,
  request: SyncGroupRequest,
  context: RequestContext,
): CoordinatorResult<SyncGroupResponse> {
  let member: ConsumerGroupMember;
  try {
    member = classicMemberOf(group, request.memberId, request.groupInstanceId);
    throwIfGenerationIdUnmatched(member, request.generationId);
    const protocolName = member.classicMemberMetadata!.supportedProtocols[0]?.name;
    if (request.protocolType != null && request.protocolType !== CONSUMER_PROTOCOL_TYPE)
      throw new ConsumerGroupError('INCONSISTENT_GROUP_PROTOCOL', `The group's protocol type is consumer.`);
    if (request.protocolName != null && request.protocolName !== protocolName)
      throw new ConsumerGroupError(
        'INCONSISTENT_GROUP_PROTOCOL',
        `The protocol name ${request.protocolName} is not the ${protocolName} returned in the join response.`,
      );
    throwIfRebalanceInProgress(deps, group, member);
  } catch (error) {
    if (!(error instanceof ConsumerGroupError)) throw error;
    return deps.effects.attachTo(answer(syncError(error.errorCode, error.message)));
  }
  deps.effects.cancel(classicSyncTimeoutKey(group.groupId, member.memberId));
  deps.consumer.fencing.scheduleSessionTimeout(
    group.groupId,
    member.memberId,
    member.classicMemberMetadata!.sessionTimeoutMs,
  );
  deps.remember(group.groupId, member.memberId, context.connectionId);
  const result = answer<SyncGroupResponse>({
    errorCode: 0,
    protocolType: CONSUMER_PROTOCOL_TYPE,
    protocolName: request.protocolName ?? member.classicMemberMetadata!.supportedProtocols[0]?.name ?? null,
    assignment: { partitions: toTopicPartitionList(member.assignedPartitions) },
  });
  result.awaitsPendingWrites = true;
  result.onFailure = (outcome) => syncError(operationWriteError(outcome.storeError), outcome.message);
  return deps.effects.attachTo(result);
}

/**
 * Heartbeat: keeps the member's session; REBALANCE_IN_PROGRESS asks it to rejoin when the group epoch
 * moved past it, when it must revoke partitions, or when the partitions it waited for are free (then it
 * must rejoin within its rebalance timeout).
 */
export function classicHeartbeatToConsumerGroup(
  deps: ClassicMemberDeps,
  group: ConsumerGroup,
  request: HeartbeatRequest,
  context: RequestContext,
): CoordinatorResult<HeartbeatResponse> {
  let error: number = ErrorCode.NONE;
  let message: string | undefined;
  try {
    const member = classicMemberOf(group, request.memberId, request.groupInstanceId);
    throwIfGenerationIdUnmatched(member, request.generationId);
    deps.consumer.fencing.scheduleSessionTimeout(
      group.groupId,
      member.memberId,
      member.classicMemberMetadata!.sessionTimeoutMs,
    );
    deps.remember(group.groupId, member.memberId, context.connectionId);
    if (mustRejoin(group, member)) {
      error = ErrorCode.REBALANCE_IN_PROGRESS;
      armJoinTimeout(deps, group, member);
    }
  } catch (caught) {
    if (!(caught instanceof ConsumerGroupError)) throw caught;
    error = caught.errorCode;
    message = caught.message;
  }
  const result = answer<HeartbeatResponse>(errorFields(error, message));
  result.awaitsPendingWrites = true;
  return deps.effects.attachTo(result);
}

/**
 * LeaveGroup: each named classic member leaves (its records go, the group epoch moves once per member);
 * a member that is unknown, fenced or not classic gets its own error. The reply waits for the records.
 */
export function classicLeaveToConsumerGroup(
  deps: ClassicMemberDeps,
  group: ConsumerGroup,
  request: LeaveGroupRequest,
): CoordinatorResult<LeaveGroupResponse> {
  const writes: CoordinatorResult<never>[] = [];
  const members: LeaveGroupMemberResponse[] = request.members.map((leaving) => {
    const instanceId = leaving.groupInstanceId ?? null;
    try {
      let member: ConsumerGroupMember;
      if (instanceId === null) member = classicMemberOf(group, leaving.memberId, null);
      else {
        const existing = group.staticMember(instanceId);
        if (!existing) throw unknownMember(`Instance id ${instanceId} is unknown.`);
        // An operator may remove a static member by its instance id alone.
        if (leaving.memberId !== '' && existing.memberId !== leaving.memberId)
          throw new ConsumerGroupError('FENCED_INSTANCE_ID', `Member ${leaving.memberId} is not ${instanceId}'s.`);
        member = classicMemberOf(group, existing.memberId, null);
      }
      deps.effects.cancel(classicJoinTimeoutKey(group.groupId, member.memberId));
      deps.effects.cancel(classicSyncTimeoutKey(group.groupId, member.memberId));
      const fenced = deps.consumer.fencing.fence(group, member, 'member-left');
      writes.push(deps.consumer.written<never>(fenced.records, undefined, group.groupId, fenced.settled));
      return { memberId: member.memberId, groupInstanceId: instanceId, errorCode: ErrorCode.NONE };
    } catch (error) {
      if (!(error instanceof ConsumerGroupError)) throw error;
      return { memberId: leaving.memberId, groupInstanceId: instanceId, errorCode: error.errorCode };
    }
  });
  const response: LeaveGroupResponse = { errorCode: 0, members };
  const last = writes.pop();
  const result: CoordinatorResult<LeaveGroupResponse> = last
    ? {
        ...last,
        response,
        onFailure: (outcome) => ({ ...errorFields(operationWriteError(outcome.storeError)), members: [] }),
      }
    : answer(response);
  // Every removal but the last goes ahead of it in the same batch; the reply waits for the last.
  if (writes.length > 0) result.followUps = writes;
  if (last) tellTargetsChanged(deps, group.groupId, '', result, [...writes.flatMap((w) => w.records), ...last.records]);
  if (!last) result.awaitsPendingWrites = true;
  return deps.effects.attachTo(result);
}

/** Kafka's `classicGroupHeartbeatToConsumerGroup` conditions for asking the member to rejoin. */
function mustRejoin(group: ConsumerGroup, member: ConsumerGroupMember): boolean {
  return (
    member.memberEpoch < group.groupEpoch ||
    member.state === MemberState.UNREVOKED_PARTITIONS ||
    (member.state === MemberState.UNRELEASED_PARTITIONS && !group.waitingOnUnreleasedPartition(member))
  );
}

/** Kafka's `throwIfRebalanceInProgress`: behind the group epoch (and not busy revoking) means rejoin first. */
function throwIfRebalanceInProgress(deps: ClassicMemberDeps, group: ConsumerGroup, member: ConsumerGroupMember): void {
  if (group.groupEpoch > member.memberEpoch && member.state !== MemberState.UNREVOKED_PARTITIONS) {
    armJoinTimeout(deps, group, member);
    throw new ConsumerGroupError(
      'REBALANCE_IN_PROGRESS',
      `A new rebalance is triggered in group ${group.groupId} and member ${member.memberId} should rejoin to catch up.`,
    );
  }
}

/** Kafka's `scheduleConsumerGroupJoinTimeoutIfAbsent`: a member told to rejoin is fenced if it does not in time. */
function armJoinTimeout(deps: ClassicMemberDeps, group: ConsumerGroup, member: ConsumerGroupMember): void {
  const key = classicJoinTimeoutKey(group.groupId, member.memberId);
  if (deps.timerArmed(key)) return;
  deps.consumer.fencing.fenceAfter(key, group.groupId, member.memberId, member.rebalanceTimeoutMs);
}

/** Kafka's `validateConsumerGroupMember` and `throwIfMemberDoesNotUseClassicProtocol`. */
function classicMemberOf(
  group: ConsumerGroup,
  memberId: string,
  instanceId: string | null | undefined,
): ConsumerGroupMember {
  let member: ConsumerGroupMember | undefined;
  if (instanceId === null || instanceId === undefined) member = group.member(memberId);
  else {
    member = group.staticMember(instanceId);
    if (member && member.memberId !== memberId)
      throw new ConsumerGroupError('FENCED_INSTANCE_ID', `Member ${memberId} is not ${instanceId}'s.`);
  }
  if (!member) throw unknownMember(`Member ${memberId} is not a member of group ${group.groupId}.`);
  if (member.classicMemberMetadata === null)
    throw unknownMember(`Member ${member.memberId} does not use the classic protocol.`);
  return member;
}

function throwIfGenerationIdUnmatched(member: ConsumerGroupMember, generationId: number): void {
  if (member.memberEpoch !== generationId)
    throw new ConsumerGroupError(
      'ILLEGAL_GENERATION',
      `The request generation id ${generationId} is not equal to the member epoch ${member.memberEpoch} of member ${member.memberId}.`,
    );
}

function unknownMember(message: string): ConsumerGroupError {
  return new ConsumerGroupError('UNKNOWN_MEMBER_ID', message);
}
