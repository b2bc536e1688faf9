import type { SyncGroupRequest } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { RequestContext } from '../api/group-coordinator.api';
import type { SyncCallback } from '../group/member-metadata';
import { syncError } from '../responses/group-responses';
import { emptyAssignment } from '../responses/join-result';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import { validateConsumerAssignments } from '../validation/request-validation';
import { validateCurrentMember } from './member-validation';

/** Kafka's `handleSyncGroup` / `doSyncGroup` for a group of this shard. */
export function handleSyncGroup(shard: CoordinatorShard, request: SyncGroupRequest, context: RequestContext, respond: SyncCallback): void {
  const group = shard.group(request.groupId);
  if (!group) {
    respond(syncError(ErrorCode.UNKNOWN_MEMBER_ID, `group ${request.groupId} does not exist`));
    return;
  }
  if (group.is('Dead')) {
    respond(syncError(ErrorCode.COORDINATOR_NOT_AVAILABLE));
    return;
  }
  const memberError = validateCurrentMember(group, request.memberId, request.groupInstanceId);
  if (memberError !== ErrorCode.NONE) {
    respond(syncError(memberError));
    return;
  }
  // A known member's request binds it to this connection, whatever the answer (pushes follow it).
  const member = group.get(request.memberId)!;
  shard.connections.bind(group, member, context.connectionId);
  if (request.generationId !== group.generationId) {
    respond(syncError(ErrorCode.ILLEGAL_GENERATION, `generation ${request.generationId} is not the group's ${group.generationId}`));
    return;
  }
  if (isProtocolInconsistent(request.protocolType, group.protocolType) || isProtocolInconsistent(request.protocolName, group.protocolName)) {
    respond(syncError(ErrorCode.INCONSISTENT_GROUP_PROTOCOL, `the group uses ${group.protocolType}/${group.protocolName}`));
    return;
  }
  // Before anything is parked: a malformed assignment changes nothing, whoever sends it.
  const malformed = group.isConsumerGroup ? validateConsumerAssignments(request.assignments) : null;
  if (malformed !== null) {
    respond(syncError(ErrorCode.INVALID_REQUEST, malformed));
    return;
  }
  switch (group.state) {
    case 'Empty':
      respond(syncError(ErrorCode.UNKNOWN_MEMBER_ID));
      return;
    case 'PreparingRebalance':
      respond(syncError(ErrorCode.REBALANCE_IN_PROGRESS));
      return;
    case 'CompletingRebalance': {
      // Everyone waits until the assignment is committed; a repeated SyncGroup replaces the older one.
      if (member.awaitingSync) group.maybeInvokeSyncCallback(member, syncError(ErrorCode.REBALANCE_IN_PROGRESS, 'superseded by a newer SyncGroup of the same member'));
      member.awaitingSync = respond;
      shard.syncs.removePendingSyncMember(group, member.memberId);
      if (group.serverAssignor === null && group.isLeader(member.memberId)) {
        const assignments = new Map<string, unknown>();
        for (const entry of request.assignments) assignments.set(entry.memberId, entry.assignment);
        for (const m of group.allMembers()) if (!assignments.has(m.memberId)) assignments.set(m.memberId, emptyAssignment(group.protocolType));
        shard.syncs.storeLeaderAssignment(group, member.memberId, assignments);
      }
      return;
    }
    case 'Stable':
      // A late follower, or a member re-syncing: the stored assignment, and a fresh session.
      shard.syncs.removePendingSyncMember(group, member.memberId);
      respond({ errorCode: 0, protocolType: group.protocolType, protocolName: group.protocolName, assignment: member.assignment });
      shard.liveness.heartbeat(group, member);
      return;
  }
}

/** Kafka's `isProtocolInconsistent`: only a request and a group that both name one can disagree. */
function isProtocolInconsistent(requested: string | null | undefined, current: string | null): boolean {
  return requested != null && current !== null && requested !== current;
}
