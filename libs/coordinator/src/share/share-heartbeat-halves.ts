import type { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '@cohort/protocol';
import type { LogRecord } from '@cohort/replication';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { TimerOp } from '../timers/timer-op';
import { samePartitions, toTopicPartitionList, type TopicPartitions } from '../consumer/topic-partitions';
import type { ShareGroupMember } from './share-group-model';
import { shareCurrentAssignmentRecord } from './share-group-records';
import { subscribedPartOf } from './share-group-target';
import { JOIN_EPOCH } from './share-group-validation';

/** A heartbeat's first half (Kafka's steps 1 and 2): the member before it and with what it changed. */
export interface ShareHeartbeatFirstHalf {
  request: ShareGroupHeartbeatRequest;
  /** The member as the heartbeat found it (a new one for a join). */
  member: ShareGroupMember;
  /** The member with the heartbeat's changes (its subscription, rack, client). */
  updated: ShareGroupMember;
  /** Whether the group knew the member before the heartbeat. */
  known: boolean;
  subscriptionChanged: boolean;
}

/**
 * Step 4 of Kafka's `shareGroupHeartbeat`: no revocation (its `ShareGroupAssignmentBuilder`), the member
 * takes its target at `targetEpoch` at once; its current assignment record when that changed anything,
 * and the answer, which carries the assignment on a full request or when it changed.
 */
export function takeShareTarget(
  first: ShareHeartbeatFirstHalf,
  target: TopicPartitions,
  targetEpoch: number,
  now: number,
  heartbeatIntervalMs: number,
): { records: LogRecord[]; response: ShareGroupHeartbeatResponse } {
  const { request, member, known, subscriptionChanged } = first;
  const { groupId, memberId, memberEpoch } = request;
  const records: LogRecord[] = [];
  const before = first.updated;
  let updated = before;
  if (targetEpoch !== updated.memberEpoch)
    updated = {
      ...updated,
      previousMemberEpoch: updated.memberEpoch,
      memberEpoch: targetEpoch,
      assignedPartitions: subscribedPartOf(target, updated.subscribedTopicNames),
    };
  else if (subscriptionChanged)
    updated = { ...updated, assignedPartitions: subscribedPartOf(target, updated.subscribedTopicNames) };
  if (!known || updated.memberEpoch !== before.memberEpoch || updated.assignedPartitions !== before.assignedPartitions)
    records.push(shareCurrentAssignmentRecord(groupId, updated, now));

  const full = memberEpoch === JOIN_EPOCH || (request.subscribedTopicNames ?? null) !== null;
  const assignmentChanged = !samePartitions(member.assignedPartitions, updated.assignedPartitions);
  const response: ShareGroupHeartbeatResponse = {
    errorCode: 0,
    memberId,
    memberEpoch: updated.memberEpoch,
    heartbeatIntervalMs,
    assignment:
      full || assignmentChanged ? { topicPartitions: toTopicPartitionList(updated.assignedPartitions) } : null,
  };
  return { records, response };
}

/**
 * A batch's heartbeats of one group that wait for its one target (`finishDeferred`): their first halves,
 * and what they wrote and armed so far.
 */
export interface DeferredShareHeartbeats {
  firsts: ShareHeartbeatFirstHalf[];
  /** Applied as one write not yet handed to the log (`ShareGroupWrites.begin`), once there is a record. */
  write: object | null;
  records: LogRecord[];
  timers: TimerOp[];
  followUps: CoordinatorResult<never>[];
}
