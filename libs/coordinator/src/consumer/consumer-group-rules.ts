import type { DescribedConsumerGroup } from '@cohort/protocol';
import { ConsumerGroupError } from './consumer-errors';
import type { ConsumerGroup } from './consumer-group';
import { toTopicPartitionList } from './topic-partitions';

/**
 * What other requests ask of a consumer group (Kafka's `ConsumerGroup.validateOffsetCommit`,
 * `validateOffsetFetch`, `validateDeleteGroup` and `asDescribedGroup`), as pure functions of its state.
 */

/**
 * An OffsetCommit's member and epoch (`memberId`, `generationId`): a commit from outside the group
 * (negative epoch) is accepted only while the group has no members; an unknown member is
 * UNKNOWN_MEMBER_ID, an epoch other than the member's STALE_MEMBER_EPOCH (retry after the next heartbeat).
 */
export function validateOffsetCommit(group: ConsumerGroup, memberId: string | null, memberEpoch: number): void {
  if (memberEpoch < 0 && group.size === 0) return;
  validateMemberEpoch(group, memberId, memberEpoch);
}

/** An OffsetFetch's optional member and epoch: without both it is an admin's read, always accepted. */
export function validateOffsetFetch(
  group: ConsumerGroup,
  memberId: string | null | undefined,
  memberEpoch: number,
): void {
  if ((memberId === null || memberId === undefined) && memberEpoch < 0) return;
  validateMemberEpoch(group, memberId ?? null, memberEpoch);
}

function validateMemberEpoch(group: ConsumerGroup, memberId: string | null, memberEpoch: number): void {
  const member = memberId === null ? undefined : group.member(memberId);
  if (!member)
    throw new ConsumerGroupError('UNKNOWN_MEMBER_ID', `Member ${memberId} is not a member of group ${group.groupId}.`);
  if (member.memberEpoch !== memberEpoch && member.classicMemberMetadata !== null) {
    // Kafka's `validateMemberEpoch`: a classic member knows its epoch as its generation and rejoins on this.
    throw new ConsumerGroupError(
      'ILLEGAL_GENERATION',
      `The received generation id ${memberEpoch} does not match the expected member epoch ${member.memberEpoch}.`,
    );
  }
  if (member.memberEpoch !== memberEpoch) {
    throw new ConsumerGroupError(
      'STALE_MEMBER_EPOCH',
      `The received member epoch ${memberEpoch} does not match the expected member epoch ${member.memberEpoch}.`,
    );
  }
}

/** DeleteGroups: only an Empty consumer group can be deleted. */
export function validateDeleteGroup(group: ConsumerGroup): void {
  if (group.state !== 'Empty') throw new ConsumerGroupError('NON_EMPTY_GROUP', `Group ${group.groupId} is not empty.`);
}

/** Kafka's `asDescribedGroup`: the assignor the members prefer, or the node's default one. */
export function describeConsumerGroup(group: ConsumerGroup, defaultAssignor: string): DescribedConsumerGroup {
  return {
    errorCode: 0,
    groupId: group.groupId,
    groupState: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignorName: group.preferredServerAssignor() ?? defaultAssignor,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      instanceId: m.instanceId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames].sort(),
      subscribedTopicRegex: m.subscribedTopicRegex,
      assignment: { topicPartitions: toTopicPartitionList(m.assignedPartitions) },
      targetAssignment: { topicPartitions: toTopicPartitionList(group.targetAssignmentOf(m.memberId)) },
      // Kafka's MemberType: 0 for a classic-protocol member, 1 for a consumer-protocol one.
      memberType: m.classicMemberMetadata === null ? 1 : 0,
    })),
  };
}
