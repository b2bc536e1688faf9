import type { SyncGroupRequest } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { SyncCallback } from '../group/member-metadata';
import { syncError } from '../responses/group-responses';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { PARKED } from '../runtime/coordinator-result';
import { emptyAssignment } from '../rebalance/join-result';
import type { ClassicGroupManager } from '../rebalance/classic-group-manager';
import { validateConsumerAssignments } from '../validation/request-validation';
import { validateCurrentMember } from './member-validation';

/**
 * Kafka's `handleSyncGroup` / `doSyncGroup` for a group of this shard. The reply is parked in the
 * group's `ParkedReplies` (or answered at once through `respond`); the leader's SyncGroup returns the write of the
 * generation's assignment, whose appendFuture answers every parked SyncGroup.
 */
export function handleSyncGroup(
  classic: ClassicGroupManager,
  request: SyncGroupRequest,
  context: RequestContext,
  respond: SyncCallback,
): CoordinatorResult<never> {
  return classic.finish(syncGroup(classic, request, context, respond));
}

function syncGroup(
  classic: ClassicGroupManager,
  request: SyncGroupRequest,
  context: RequestContext,
  respond: SyncCallback,
): CoordinatorResult<never> {
  const group = classic.groups.get(request.groupId);
  if (!group) {
    respond(syncError(ErrorCode.UNKNOWN_MEMBER_ID, `group ${request.groupId} does not exist`));
    return PARKED;
  }
  if (group.is('Dead')) {
    respond(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    return PARKED;
  }
  const memberError = validateCurrentMember(group, request.memberId, request.groupInstanceId);
  if (memberError !== ErrorCode.NONE) {
    respond(syncError(memberError));
    return PARKED;
  }
  // A known member's request binds it to this connection, whatever the answer (pushes follow it).
  const member = group.get(request.memberId)!;
  classic.connections.bind(group, member, context.connectionId);
  if (request.generationId !== group.generationId) {
    respond(
      syncError(
        ErrorCode.ILLEGAL_GENERATION,
        `generation ${request.generationId} is not the group's ${group.generationId}`,
      ),
    );
    return PARKED;
  }
  if (
    isProtocolInconsistent(request.protocolType, group.protocolType) ||
    isProtocolInconsistent(request.protocolName, group.protocolName)
  ) {
    respond(
      syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `the group uses ${group.protocolType}/${group.protocolName}`),
    );
    return PARKED;
  }
  // Before anything is parked: a malformed assignment changes nothing, whoever sends it.
  const malformed = group.isConsumerGroup ? validateConsumerAssignments(request.assignments) : null;
  if (malformed !== null) {
    respond(syncError(ErrorCode.INVALID_REQUEST, malformed));
    return PARKED;
  }
  switch (group.state) {
    case 'Empty':
      respond(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
      return PARKED;
    case 'PreparingRebalance':
      respond(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      return PARKED;
    case 'CompletingRebalance': {
      // Everyone waits until the assignment is committed; a repeated SyncGroup replaces the older one.
      group.parked.parkSync(member, respond, () =>
        syncError(ErrorCode.REBALANCE_IN_PROGRESS, 'superseded by a newer SyncGroup of the same member'),
      );
      classic.syncs.removePendingSyncMember(group, member.memberId);
      if (group.serverAssignor === null && group.isLeader(member.memberId)) {
        const assignments = new Map<string, unknown>();
        for (const entry of request.assignments) assignments.set(entry.memberId, entry.assignment);
        for (const m of group.allMembers())
          if (!assignments.has(m.memberId)) assignments.set(m.memberId, emptyAssignment(group.protocolType));
        return classic.syncs.storeLeaderAssignment(group, member.memberId, assignments);
      }
      return PARKED;
    }
    case 'Stable':
      // A late follower, or a member re-syncing: the stored assignment, and a fresh session.
      classic.syncs.removePendingSyncMember(group, member.memberId);
      respond({
        errorCode: 0,
        protocolType: group.protocolType,
        protocolName: group.protocolName,
        assignment: member.assignment,
      });
      classic.liveness.heartbeat(group, member);
      return PARKED;
  }
  // Dead was answered above.
  return PARKED;
}

/** Kafka's `isProtocolInconsistent`: only a request and a group that both name one can disagree. */
function isProtocolInconsistent(requested: string | null | undefined, current: string | null): boolean {
  return requested != null && current !== null && requested !== current;
}
