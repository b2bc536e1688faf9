import type { LogRecord } from '@cohort/replication';
import { ConsumerGroupError } from './consumer-errors';
import { ConsumerGroup } from './consumer-group';
import { type ConsumerGroupMember, updatedMember as withChanges } from './consumer-group-member';
import type { ConsumerGroupStore } from './consumer-group-replay';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  ConsumerRequestContext,
} from './consumer-heartbeat.types';
import { JOIN_GROUP_MEMBER_EPOCH, throwIfGroupIsFull } from './heartbeat-validation';
import type { MemberChange } from './member-progress';
import { dynamicMember, staticMember } from './member-resolution';
import { sameNames } from './member-equality';
import { samePartitions, toTopicPartitionList } from './topic-partitions';

/**
 * Who a heartbeat is from (Kafka's `getOrMaybeSubscribe*ConsumerGroupMember`) and the member with what
 * it changed, ready for `MemberProgress`; `full` when the answer must carry the assignment (a join, or a
 * request with every field). Throws the heartbeat's error, having recorded nothing.
 */
export function heartbeatChange(
  groups: ConsumerGroupStore,
  maxSize: number,
  request: ConsumerGroupHeartbeatRequest,
  context: ConsumerRequestContext,
  records: LogRecord[],
  now: number,
): { change: MemberChange; full: boolean } {
  const { groupId, memberEpoch } = request;
  const joining = memberEpoch === JOIN_GROUP_MEMBER_EPOCH;
  const existing = groups.get(groupId);
  if (!existing && !joining) throw new ConsumerGroupError('GROUP_ID_NOT_FOUND', `Consumer group ${groupId} not found.`);
  // A group a join creates exists once its records are applied; until then it is empty.
  const group = existing ?? new ConsumerGroup(groupId);
  throwIfGroupIsFull(group, request.memberId, maxSize);

  const owned = request.topicPartitions ?? null;
  const member =
    request.instanceId === undefined || request.instanceId === null
      ? dynamicMember(group, request.memberId, memberEpoch, owned, joining)
      : staticMember(group, request.memberId, memberEpoch, request.instanceId, owned, joining, records, now);

  // The member with what this heartbeat changed, then steps 1-4 (records, epochs, target, reconciliation).
  const changes = {
    instanceId: request.instanceId ?? member.instanceId,
    rackId: request.rackId ?? member.rackId,
    rebalanceTimeoutMs:
      request.rebalanceTimeoutMs === undefined ||
      request.rebalanceTimeoutMs === null ||
      request.rebalanceTimeoutMs === -1
        ? member.rebalanceTimeoutMs
        : request.rebalanceTimeoutMs,
    serverAssignorName: request.serverAssignor ?? member.serverAssignorName,
    subscribedTopicNames: request.subscribedTopicNames
      ? new Set(request.subscribedTopicNames)
      : member.subscribedTopicNames,
    subscribedTopicRegex: request.subscribedTopicRegex ?? member.subscribedTopicRegex,
    clientId: context.clientId,
    clientHost: context.clientHost,
  };
  // A steady heartbeat (every field left out or as it was) changes nothing: the member itself, not a copy.
  const updated = changesNothing(member, changes) ? member : withChanges(member, changes);
  const change = { group, groupExists: existing !== undefined, member, owned, updated };
  const full =
    joining ||
    (request.rebalanceTimeoutMs !== undefined &&
      request.rebalanceTimeoutMs !== null &&
      request.rebalanceTimeoutMs !== -1 &&
      (request.subscribedTopicNames != null || request.subscribedTopicRegex != null) &&
      request.topicPartitions != null);
  return { change, full };
}

/** Whether `changes` leave every field of `member` as it is (names compared by content). */
function changesNothing(member: ConsumerGroupMember, changes: Partial<ConsumerGroupMember>): boolean {
  return (
    changes.instanceId === member.instanceId &&
    changes.rackId === member.rackId &&
    changes.rebalanceTimeoutMs === member.rebalanceTimeoutMs &&
    changes.serverAssignorName === member.serverAssignorName &&
    changes.subscribedTopicRegex === member.subscribedTopicRegex &&
    changes.clientId === member.clientId &&
    changes.clientHost === member.clientHost &&
    (changes.subscribedTopicNames === member.subscribedTopicNames ||
      sameNames(changes.subscribedTopicNames!, member.subscribedTopicNames))
  );
}

/** The answer to a member's heartbeat: its epoch, and its assignment when it changed or was asked for in full. */
export function heartbeatAnswer(
  before: ConsumerGroupMember,
  after: ConsumerGroupMember,
  full: boolean,
  heartbeatIntervalMs: number,
): ConsumerGroupHeartbeatResponse {
  const changed = !samePartitions(before.assignedPartitions, after.assignedPartitions);
  return {
    errorCode: 0,
    memberId: after.memberId,
    memberEpoch: after.memberEpoch,
    heartbeatIntervalMs,
    assignment: full || changed ? { topicPartitions: toTopicPartitionList(after.assignedPartitions) } : null,
  };
}
