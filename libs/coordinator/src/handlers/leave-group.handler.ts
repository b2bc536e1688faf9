import type { LeaveGroupMemberResponse, LeaveGroupRequest, LeaveGroupResponse } from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import type { ClassicGroupManager } from '../rebalance/classic-group-manager';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { answer } from '../runtime/coordinator-result';
import { heartbeatKey } from '../timers/shard-timers';
import { validateCurrentMember } from './member-validation';

/**
 * Kafka's `handleLeaveGroup` (batched, KIP-345): each member is answered on its own. An empty member id
 * with a group instance id is an operator removing a static member by instance id. The result carries
 * the timers the removals cancel or arm and, as `followUps`, what a rebalance they complete writes (the
 * Empty group's metadata, a server-side assignment); the reply does not wait for those writes.
 */
export function handleLeaveGroup(
  classic: ClassicGroupManager,
  request: LeaveGroupRequest,
): CoordinatorResult<LeaveGroupResponse> {
  return classic.finish(answer(leaveGroup(classic, request)));
}

function leaveGroup(classic: ClassicGroupManager, request: LeaveGroupRequest): LeaveGroupResponse {
  const group = classic.groups.get(request.groupId);
  const answer = (
    memberId: string,
    groupInstanceId: string | null | undefined,
    errorCode: number,
  ): LeaveGroupMemberResponse => ({
    memberId,
    groupInstanceId: groupInstanceId ?? null,
    errorCode,
  });
  if (!group) {
    return {
      errorCode: 0,
      members: request.members.map((m) => answer(m.memberId, m.groupInstanceId, ErrorCode.UNKNOWN_MEMBER_ID)),
    };
  }
  if (group.is('Dead')) throw KafkaError.of('COORDINATOR_NOT_AVAILABLE');
  const members = request.members.map((leaving) => {
    const reason = `Removing member ${leaving.memberId || leaving.groupInstanceId} on LeaveGroup; client reason: ${leaving.reason ?? 'not provided'}`;
    if (leaving.memberId === '') {
      const currentId = leaving.groupInstanceId == null ? undefined : group.staticMemberId(leaving.groupInstanceId);
      if (currentId === undefined) return answer('', leaving.groupInstanceId, ErrorCode.UNKNOWN_MEMBER_ID);
      classic.membership.removeMemberAndUpdateGroup(group, group.get(currentId)!, reason);
      return answer('', leaving.groupInstanceId, ErrorCode.NONE);
    }
    if (group.isPendingMember(leaving.memberId)) {
      classic.effects.cancel(heartbeatKey(group.groupId, leaving.memberId));
      classic.membership.removePendingMemberAndUpdateGroup(group, leaving.memberId);
      return answer(leaving.memberId, leaving.groupInstanceId, ErrorCode.NONE);
    }
    const error = validateCurrentMember(group, leaving.memberId, leaving.groupInstanceId);
    if (error === ErrorCode.NONE)
      classic.membership.removeMemberAndUpdateGroup(group, group.get(leaving.memberId)!, reason);
    return answer(leaving.memberId, leaving.groupInstanceId, error);
  });
  return { errorCode: 0, members };
}
