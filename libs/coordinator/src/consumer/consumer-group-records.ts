import type { LogRecord } from '@cohort/replication';
import type { ConsumerGroup } from './consumer-group';
import {
  consumerGroupEpochRecord,
  consumerGroupEpochTombstone,
  currentAssignmentRecord,
  currentAssignmentTombstone,
  memberSubscriptionRecord,
  memberSubscriptionTombstone,
  targetAssignmentEpochRecord,
  targetAssignmentEpochTombstone,
  targetAssignmentRecord,
  targetAssignmentTombstone,
} from './consumer-records';

/**
 * Every record of a group as it stands (Kafka's `ConsumerGroup.createConsumerGroupRecords`, in its
 * order: members, group epoch, targets, assignment epoch, current assignments). Replaying them into an
 * empty shard gives the same group; Kafka writes them when a classic group converts.
 */
export function consumerGroupRecords(group: ConsumerGroup, now: number): LogRecord[] {
  const { groupId } = group;
  const records: LogRecord[] = [];
  for (const member of group.members.values()) records.push(memberSubscriptionRecord(groupId, member, now));
  records.push(consumerGroupEpochRecord(groupId, group.groupEpoch, group.metadataHash, now));
  for (const memberId of group.members.keys())
    records.push(targetAssignmentRecord(groupId, memberId, group.targetAssignmentOf(memberId), now));
  records.push(targetAssignmentEpochRecord(groupId, group.assignmentEpoch, now));
  for (const member of group.members.values()) records.push(currentAssignmentRecord(groupId, member, now));
  return records;
}

/**
 * The tombstones that delete a group (Kafka's `createGroupTombstoneRecords`, in its order: current
 * assignments, targets, assignment epoch, members, group epoch), so that replay never meets a member
 * removed before its assignment.
 */
export function consumerGroupTombstones(group: ConsumerGroup, now: number): LogRecord[] {
  const { groupId } = group;
  const ids = [...group.members.keys()];
  return [
    ...ids.map((id) => currentAssignmentTombstone(groupId, id, now)),
    ...ids.map((id) => targetAssignmentTombstone(groupId, id, now)),
    targetAssignmentEpochTombstone(groupId, now),
    ...ids.map((id) => memberSubscriptionTombstone(groupId, id, now)),
    consumerGroupEpochTombstone(groupId, now),
  ];
}

/** The tombstones that remove one member (Kafka's `removeMember` order: current assignment, target, member). */
export function memberTombstones(groupId: string, memberId: string, now: number): LogRecord[] {
  return [
    currentAssignmentTombstone(groupId, memberId, now),
    targetAssignmentTombstone(groupId, memberId, now),
    memberSubscriptionTombstone(groupId, memberId, now),
  ];
}
