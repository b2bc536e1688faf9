import type { LogRecord } from '@cohort/replication';
import { ConsumerGroupError } from './consumer-errors';
import type { ConsumerGroup } from './consumer-group';
import {
  type ConsumerGroupMember,
  newConsumerGroupMember,
  updatedMember as withChanges,
} from './consumer-group-member';
import { memberTombstones } from './consumer-group-records';
import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';
import { currentAssignmentRecord, memberSubscriptionRecord, targetAssignmentRecord } from './consumer-records';
import {
  throwIfInstanceIdIsFenced,
  throwIfInstanceIdIsUnreleased,
  throwIfMemberEpochIsInvalid,
  throwIfStaticMemberIsUnknown,
} from './heartbeat-validation';

// Who a heartbeat is from: the member it names, checked against its epoch, or the new one it makes.

/** Kafka's `getOrMaybeSubscribeDynamicConsumerGroupMember`. */
export function dynamicMember(
  group: ConsumerGroup,
  memberId: string,
  memberEpoch: number,
  owned: ConsumerGroupHeartbeatRequest['topicPartitions'],
  joining: boolean,
): ConsumerGroupMember {
  const member = group.member(memberId) ?? (joining ? newConsumerGroupMember(memberId) : undefined);
  if (!member)
    throw new ConsumerGroupError('UNKNOWN_MEMBER_ID', `Member ${memberId} is not a member of group ${group.groupId}.`);
  throwIfMemberEpochIsInvalid(member, memberEpoch, owned);
  return member;
}

/**
 * Kafka's `getOrMaybeSubscribeStaticConsumerGroupMember`: a static member that rejoins under a new
 * member id takes over its instance only after the old one left with -2; it then keeps the old
 * member's assignment and target (the old member's records are replaced by the new id's).
 */
export function staticMember(
  group: ConsumerGroup,
  memberId: string,
  memberEpoch: number,
  instanceId: string,
  owned: ConsumerGroupHeartbeatRequest['topicPartitions'],
  joining: boolean,
  records: LogRecord[],
  now: number,
): ConsumerGroupMember {
  const existing = group.staticMember(instanceId);
  if (joining) {
    if (!existing) return group.member(memberId) ?? newConsumerGroupMember(memberId);
    throwIfInstanceIdIsUnreleased(existing, memberId, instanceId);
    const replacement = withChanges(existing, { memberId, memberEpoch: 0, previousMemberEpoch: 0 });
    records.push(
      ...memberTombstones(group.groupId, existing.memberId, now),
      memberSubscriptionRecord(group.groupId, replacement, now),
      targetAssignmentRecord(group.groupId, memberId, group.targetAssignmentOf(existing.memberId), now),
      currentAssignmentRecord(group.groupId, replacement, now),
    );
    return replacement;
  }
  throwIfStaticMemberIsUnknown(existing, instanceId);
  throwIfInstanceIdIsFenced(existing, memberId, instanceId);
  throwIfMemberEpochIsInvalid(existing, memberEpoch, owned);
  return existing;
}
