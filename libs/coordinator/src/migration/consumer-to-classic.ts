import { CONSUMER_PROTOCOL_TYPE } from '@cohort/protocol';
import { ClassicGroup } from '../group/classic-group';
import type { GroupOffsets } from '../group/group-offsets';
import { MemberMetadata } from '../group/member-metadata';
import { type ConsumerGroupMigrationPolicy, isDowngradeEnabled } from '../ports/coordinator-config';
import type { ConsumerGroup } from '../consumer/consumer-group';
import type { ConsumerGroupMember } from '../consumer/consumer-group-member';
import { toTopicPartitionList } from '../consumer/topic-partitions';

/**
 * Kafka's `validateOnlineDowngradeWithFencedMember`: whether the group becomes classic once
 * `leavingId` is gone — it was the last member speaking the consumer protocol, classic members remain,
 * the policy allows downgrades, and they are not more than a classic group may hold.
 */
export function downgradeAllowed(
  group: ConsumerGroup,
  leavingId: string,
  policy: ConsumerGroupMigrationPolicy,
  classicMaxSize: number,
): boolean {
  return (
    group.allMembersUseClassicProtocolExcept(leavingId) &&
    group.size > 1 &&
    isDowngradeEnabled(policy) &&
    group.size - 1 <= classicMaxSize
  );
}

/**
 * Kafka's `validateOnlineDowngradeWithReplacedMemberId`: whether a classic static member taking over
 * `replacedId`'s instance makes the group classic — `replacedId` was its last consumer-protocol member,
 * the policy allows downgrades, and the members are not more than a classic group may hold.
 */
export function downgradeOnReplaceAllowed(
  group: ConsumerGroup,
  replacedId: string,
  policy: ConsumerGroupMigrationPolicy,
  classicMaxSize: number,
): boolean {
  return (
    group.allMembersUseClassicProtocolExcept(replacedId) && isDowngradeEnabled(policy) && group.size <= classicMaxSize
  );
}

/**
 * Kafka's `ClassicGroup.fromConsumerGroup`: the classic group a consumer group becomes without
 * `leavingId` (and with `joining`, a classic static member taking over its instance and target). Stable at the group epoch as its generation, protocol type `consumer`, the protocol the
 * members' JoinGroup protocols vote for, and each member's target assignment (not what it holds yet,
 * which may still be revoking) encoded as its `consumer` assignment, with the group's offsets. The
 * caller starts a rebalance at once, so the members rejoin and the leader assigns again.
 */
export function classicGroupFromConsumer(
  group: ConsumerGroup,
  leavingId: string,
  offsets: GroupOffsets,
  now: number,
  historySize: number,
  joining?: ConsumerGroupMember,
): ClassicGroup {
  const classic = new ClassicGroup(group.groupId, 'Stable', now, historySize, offsets);
  classic.generationId = group.groupEpoch;
  classic.protocolType = CONSUMER_PROTOCOL_TYPE;
  const members = [...group.members.values()].filter((m) => m.memberId !== leavingId);
  if (joining) members.push(joining);
  for (const member of members) {
    if (member.classicMemberMetadata === null) continue;
    const init = {
      memberId: member.memberId,
      groupInstanceId: member.instanceId,
      clientId: member.clientId,
      clientHost: member.clientHost,
      rebalanceTimeoutMs: member.rebalanceTimeoutMs,
      sessionTimeoutMs: member.classicMemberMetadata.sessionTimeoutMs,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocols: member.classicMemberMetadata.supportedProtocols.map((p) => ({ ...p })),
    };
    const classicMember = new MemberMetadata(init);
    const target = group.targetAssignmentOf(member === joining ? leavingId : member.memberId);
    classicMember.assignment = { partitions: toTopicPartitionList(target) };
    classic.add(classicMember, null);
  }
  classic.protocolName = classic.selectProtocol();
  classic.subscribedTopics = classic.computeSubscribedTopics();
  return classic;
}
