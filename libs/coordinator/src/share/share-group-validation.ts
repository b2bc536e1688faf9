import type { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '@cohort/protocol';
import { errorName, KafkaError } from '@cohort/protocol';
import { sameNames } from '../consumer/member-equality';
import type { ShareGroup, ShareGroupMember } from './share-group-model';

export const JOIN_EPOCH = 0;
export const LEAVE_EPOCH = -1;
/** Kafka's KafkaApis `isMemberIdValid`: a client-chosen id of at most 36 characters (a UUID). */
const MAX_MEMBER_ID_LENGTH = 36;

const invalid = (message: string): KafkaError => KafkaError.of('INVALID_REQUEST', message);

/**
 * Kafka's `isMemberIdValid` and `throwIfShareGroupHeartbeatRequestIsInvalid`, in their order: a request
 * failing one changes nothing and is answered 42 with the check's message.
 */
export function throwIfShareHeartbeatIsInvalid(request: ShareGroupHeartbeatRequest): void {
  if (typeof request.memberId !== 'string' || request.memberId.length > MAX_MEMBER_ID_LENGTH)
    throw invalid('Invalid member id in the request.');
  if (request.memberId.trim() === '') throw invalid("MemberId can't be empty.");
  if (request.groupId.trim() === '') throw invalid("GroupId can't be empty.");
  if (request.rackId !== undefined && request.rackId !== null && request.rackId.trim() === '')
    throw invalid("RackId can't be empty.");
  if (request.memberEpoch === JOIN_EPOCH) {
    if (!request.subscribedTopicNames || request.subscribedTopicNames.length === 0)
      throw invalid('SubscribedTopicNames must be set in first request.');
  } else if (request.memberEpoch < LEAVE_EPOCH) {
    throw invalid('MemberEpoch is invalid.');
  }
}

/**
 * Kafka's `throwIfShareGroupMemberEpochIsInvalid`: 0 always rejoins; an epoch ahead of the coordinator's
 * is fenced, one behind too unless it is the previous epoch (the reply that bumped it was lost).
 */
export function throwIfShareMemberEpochIsInvalid(member: ShareGroupMember, received: number): void {
  if (received === JOIN_EPOCH) return;
  if (received > member.memberEpoch)
    throw KafkaError.of(
      'FENCED_MEMBER_EPOCH',
      `The share group member has a greater member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  if (received < member.memberEpoch && received !== member.previousMemberEpoch)
    throw KafkaError.of(
      'FENCED_MEMBER_EPOCH',
      `The share group member has a smaller member epoch (${received}) than the one known by the group coordinator (${member.memberEpoch}), and it does not match the previous member epoch (${member.previousMemberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
}

/** Kafka's `throwIfShareGroupIsFull`: a member already in the group may always heartbeat. */
export function throwIfShareGroupIsFull(group: ShareGroup, memberId: string, maxSize: number): void {
  if (group.size >= maxSize && (memberId === '' || !group.member(memberId)))
    throw KafkaError.of(
      'GROUP_MAX_SIZE_REACHED',
      `The share group has reached its maximum capacity of ${maxSize} members.`,
    );
}

/** Whether a heartbeat changed what the member's metadata record holds. */
export function sameShareMember(a: ShareGroupMember, b: ShareGroupMember): boolean {
  if (a.rackId !== b.rackId || a.clientId !== b.clientId || a.clientHost !== b.clientHost) return false;
  return sameNames(a.subscribedTopicNames, b.subscribedTopicNames);
}

/** The answer of a heartbeat that failed a check (or whose write failed): the error, and no member. */
export function shareHeartbeatError(error: KafkaError): ShareGroupHeartbeatResponse {
  return {
    errorCode: error.errorCode,
    errorName: errorName(error.errorCode),
    ...(error.message === error.errorName ? {} : { errorMessage: error.message }),
    memberId: null,
    memberEpoch: 0,
    heartbeatIntervalMs: 0,
    assignment: null,
  };
}
