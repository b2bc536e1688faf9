import type { JoinGroupResponse } from '@cohort/protocol';
import { CONSUMER_PROTOCOL_TYPE } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';
import type { MemberMetadata } from '../group/member-metadata';

export interface JoinSuccessOptions {
  /** The leader gets every member's metadata; followers get none. */
  includeMembers: boolean;
  /** Kafka answers a replaced static member with the old leader id so it does not reassign (pre-KIP-814). */
  leaderId?: string | null;
}

/**
 * A successful JoinGroup reply for the group's current generation. When the server computed the
 * assignment (docs/protocol.md) the reply carries it and `skipAssignment`, so nobody runs an assignor.
 */
export function joinSuccess(
  group: ClassicGroup,
  member: MemberMetadata,
  options: JoinSuccessOptions,
): JoinGroupResponse {
  const serverAssigned = group.serverAssignor !== null;
  const response: JoinGroupResponse = {
    errorCode: 0,
    generationId: group.generationId,
    protocolType: group.protocolType,
    protocolName: group.protocolName,
    leader: (options.leaderId === undefined ? group.leaderId : options.leaderId) ?? '',
    skipAssignment: serverAssigned,
    memberId: member.memberId,
    members: options.includeMembers ? group.currentMemberMetadata() : [],
  };
  if (serverAssigned && group.is('Stable'))
    response.assignment = member.assignment ?? emptyAssignment(group.protocolType);
  return response;
}

/** What a member gets when the leader left it out: no partitions for `consumer` groups, null otherwise. */
export function emptyAssignment(protocolType: string | null): unknown {
  return protocolType === CONSUMER_PROTOCOL_TYPE ? { partitions: [] } : null;
}
