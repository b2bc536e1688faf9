import type { TopicPartitions as TopicPartitionList } from '@cohort/protocol';
import { ConsumerGroupError } from './consumer-errors';
import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupMember } from './consumer-group-member';
import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';
import type { TopicPartitions } from './topic-partitions';
import { compileTopicRegex } from './topic-regex';

export const JOIN_GROUP_MEMBER_EPOCH = 0;
export const LEAVE_GROUP_STATIC_MEMBER_EPOCH = -2;

function invalid(message: string): ConsumerGroupError {
  return new ConsumerGroupError('INVALID_REQUEST', message);
}

function throwIfEmpty(value: string | null | undefined, message: string): void {
  if (value !== null && value !== undefined && isBlank(value)) throw invalid(message);
}

/**
 * `value.trim() === ''`. An id that starts with a printable ASCII character (every id a client makes)
 * is not blank, and is answered without calling trim(); only the others are trimmed.
 */
function isBlank(value: string): boolean {
  const first = value.charCodeAt(0); // NaN for ''
  if (first > 0x20 && first < 0x7f) return false;
  return value.trim() === '';
}

/**
 * Kafka's `throwIfConsumerGroupHeartbeatRequestIsInvalid` (4.x, member ids chosen by the client), in
 * its order: a request that fails any check changes nothing and is answered with the check's error.
 */
export function throwIfHeartbeatRequestIsInvalid(
  request: ConsumerGroupHeartbeatRequest,
  assignorNames: readonly string[],
): void {
  throwIfEmpty(request.memberId, "MemberId can't be empty.");
  if (request.memberId === undefined || request.memberId === null) throw invalid("MemberId can't be empty.");
  throwIfEmpty(request.groupId, "GroupId can't be empty.");
  throwIfEmpty(request.instanceId, "InstanceId can't be empty.");
  throwIfEmpty(request.rackId, "RackId can't be empty.");
  if (request.memberEpoch === JOIN_GROUP_MEMBER_EPOCH) {
    if (
      request.rebalanceTimeoutMs === undefined ||
      request.rebalanceTimeoutMs === null ||
      request.rebalanceTimeoutMs === -1
    )
      throw invalid('RebalanceTimeoutMs must be provided in first request.');
    if (!request.topicPartitions || request.topicPartitions.length > 0)
      throw invalid('TopicPartitions must be empty when (re-)joining.');
    // An empty list of names or an empty regex joins with no topics: the member is in the group all the same.
    if (
      (request.subscribedTopicNames === undefined || request.subscribedTopicNames === null) &&
      (request.subscribedTopicRegex === undefined || request.subscribedTopicRegex === null)
    )
      throw invalid('Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.');
  } else if (request.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    if (request.instanceId === undefined || request.instanceId === null) throw invalid("InstanceId can't be null.");
  } else if (request.memberEpoch < LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    throw invalid('MemberEpoch is invalid.');
  }
  // Kafka's throwIfRegularExpressionIsInvalid: a pattern RE2 refuses is 128, before anything changes.
  if (request.subscribedTopicRegex) compileTopicRegex(request.subscribedTopicRegex);
  const assignor = request.serverAssignor;
  if (assignor !== undefined && assignor !== null && !assignorNames.includes(assignor)) {
    throw new ConsumerGroupError(
      'UNSUPPORTED_ASSIGNOR',
      `ServerAssignor ${assignor} is not supported. Supported assignors: ${assignorNames.join(', ')}.`,
    );
  }
}

/** Kafka's `isSubset`: every owned partition is in `target` (a member that sent nothing owns no subset). */
function isSubset(owned: readonly TopicPartitionList[] | null | undefined, target: TopicPartitions): boolean {
  if (!owned) return false;
  for (const { topic, partitions } of owned) {
    const set = target.get(topic);
    if (!set) return false;
    for (const p of partitions) if (!set.has(p)) return false;
  }
  return true;
}

/**
 * Kafka's `throwIfConsumerGroupMemberEpochIsInvalid`: an epoch ahead of the coordinator's is fenced; one
 * behind is fenced too, unless it is the previous epoch and the member owns only partitions it still
 * holds (the reply that bumped it was lost). Epoch 0 is always a rejoin: a member fenced by an epoch
 * error drops its partitions and comes back with 0 under the same id (KIP-848; Kafka's KAFKA-19233).
 */
export function throwIfMemberEpochIsInvalid(
  member: ConsumerGroupMember,
  receivedMemberEpoch: number,
  owned: readonly TopicPartitionList[] | null | undefined,
): void {
  if (receivedMemberEpoch === JOIN_GROUP_MEMBER_EPOCH) return;
  if (receivedMemberEpoch > member.memberEpoch) {
    throw new ConsumerGroupError(
      'FENCED_MEMBER_EPOCH',
      `The consumer group member has a greater member epoch (${receivedMemberEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
  if (
    receivedMemberEpoch < member.memberEpoch &&
    (receivedMemberEpoch !== member.previousMemberEpoch || !isSubset(owned, member.assignedPartitions))
  ) {
    throw new ConsumerGroupError(
      'FENCED_MEMBER_EPOCH',
      `The consumer group member has a smaller member epoch (${receivedMemberEpoch}) than the one known by the group coordinator (${member.memberEpoch}). The member must abandon all its partitions and rejoin.`,
    );
  }
}

/** Kafka's `throwIfConsumerGroupIsFull`: a member already in the group may always heartbeat. */
export function throwIfGroupIsFull(group: ConsumerGroup, memberId: string, maxSize: number): void {
  if (group.size >= maxSize && (memberId === '' || !group.member(memberId))) {
    throw new ConsumerGroupError(
      'GROUP_MAX_SIZE_REACHED',
      `The consumer group has reached its maximum capacity of ${maxSize} members.`,
    );
  }
}

/** Kafka's `throwIfInstanceIdIsUnreleased`: a static member's id is taken over only after it left with -2. */
export function throwIfInstanceIdIsUnreleased(
  existing: ConsumerGroupMember,
  receivedMemberId: string,
  instanceId: string,
): void {
  if (existing.memberEpoch !== LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
    throw new ConsumerGroupError(
      'UNRELEASED_INSTANCE_ID',
      `Static member ${receivedMemberId} with instance id ${instanceId} cannot join the group because the instance id is owned by ${existing.memberId} member.`,
    );
  }
}

/** Kafka's `throwIfInstanceIdIsFenced`: the instance belongs to another member id. */
export function throwIfInstanceIdIsFenced(
  existing: ConsumerGroupMember,
  receivedMemberId: string,
  instanceId: string,
): void {
  if (existing.memberId !== receivedMemberId) {
    throw new ConsumerGroupError(
      'FENCED_INSTANCE_ID',
      `Static member ${receivedMemberId} with instance id ${instanceId} was fenced by member ${existing.memberId}.`,
    );
  }
}

/** Kafka's `throwIfStaticMemberIsUnknown`. */
export function throwIfStaticMemberIsUnknown(
  existing: ConsumerGroupMember | undefined,
  instanceId: string,
): asserts existing is ConsumerGroupMember {
  if (!existing) throw new ConsumerGroupError('UNKNOWN_MEMBER_ID', `Instance id ${instanceId} is unknown.`);
}
