import type { JoinGroupProtocol } from '@cohort/protocol';
import { assignmentProblems, subscriptionProblems } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';
import type { MemberMetadata } from '../group/member-metadata';
import { type ConsumerGroupMigrationPolicy, isUpgradeEnabled } from '../ports/coordinator-config';
import type { ConsumerGroup } from '../consumer/consumer-group';
import { newConsumerGroupMember } from '../consumer/consumer-group-member';
import { MapConsumerGroupStore } from '../consumer/consumer-group-replay';
import { MemberState } from '../consumer/member-state';
import { fromTopicPartitionList, NO_PARTITIONS, type TopicPartitions } from '../consumer/topic-partitions';

/**
 * Kafka's `validateOnlineUpgrade`: why a classic group with members may not become a consumer group
 * now, or undefined when it may — the policy allows upgrades, the group speaks the `consumer` protocol
 * type with a well-formed embedded subscription (and assignment) for every member, and it is not
 * larger than a consumer group may be.
 */
export function upgradeRefusal(
  group: ClassicGroup,
  policy: ConsumerGroupMigrationPolicy,
  consumerMaxSize: number,
): string | undefined {
  if (!isUpgradeEnabled(policy)) return 'the online upgrade is disabled (GROUP_CONSUMER_MIGRATION_POLICY)';
  if (!group.isConsumerGroup) return 'the group does not use the consumer embedded protocol';
  if (group.size > consumerMaxSize) return 'the group size exceeds the consumer group maximum size';
  const protocol = upgradeProtocol(group);
  for (const member of group.allMembers()) {
    const malformed = [
      ...subscriptionProblems(member.metadata(protocol), 'subscription'),
      ...(member.assignment === null ? [] : assignmentProblems(member.assignment, 'assignment')),
    ];
    if (malformed.length > 0) return `the embedded consumer protocol of member ${member.memberId} is malformed`;
  }
  try {
    consumerGroupFromClassic(group);
  } catch (error) {
    // Two members hold one partition (a leader's assignment can say anything): no consumer group can.
    return `its assignment cannot be a consumer group's: ${error instanceof Error ? error.message : String(error)}`;
  }
  return undefined;
}

/**
 * Kafka's `ConsumerGroup.fromClassicGroup`: the consumer group a classic group becomes. The group and
 * assignment epochs are the classic generation; every member is Stable at it, owning and targeted with
 * the assignment it holds, its subscription from its embedded `consumer` metadata, and its JoinGroup
 * protocols and session timeout kept as its classic member metadata. A member that was rebalancing is
 * asked to rejoin; its JoinGroup then reconciles it like any heartbeat. Throws when two members hold
 * the same partition (the group's records would be an illegal state).
 */
export function consumerGroupFromClassic(group: ClassicGroup): ConsumerGroup {
  const store = new MapConsumerGroupStore();
  const converted = store.create(group.groupId);
  const protocol = upgradeProtocol(group);
  for (const member of group.allMembers()) {
    const subscription = member.metadata(protocol) as { topics: string[]; rackId?: string | null };
    const assigned = assignmentOf(member);
    converted.updateMember(
      newConsumerGroupMember(member.memberId, {
        memberEpoch: group.generationId,
        previousMemberEpoch: group.generationId,
        state: MemberState.STABLE,
        instanceId: member.groupInstanceId,
        rackId: subscription.rackId ?? null,
        rebalanceTimeoutMs: member.rebalanceTimeoutMs,
        clientId: member.clientId,
        clientHost: member.clientHost,
        subscribedTopicNames: new Set(subscription.topics),
        assignedPartitions: assigned,
        classicMemberMetadata: {
          sessionTimeoutMs: member.sessionTimeoutMs,
          supportedProtocols: member.supportedProtocols.map((p): JoinGroupProtocol => ({ ...p })),
        },
      }),
    );
    converted.updateTargetAssignment(member.memberId, assigned);
  }
  converted.setGroupEpoch(group.generationId);
  converted.setTargetAssignmentEpoch(group.generationId);
  return converted;
}

/** The protocol whose metadata the members' subscriptions are read from: the group's, or the vote's before its first generation. */
function upgradeProtocol(group: ClassicGroup): string {
  return group.protocolName ?? group.selectProtocol();
}

function assignmentOf(member: MemberMetadata): TopicPartitions {
  const assignment = member.assignment as { partitions?: { topic: string; partitions: number[] }[] } | null;
  return assignment?.partitions ? fromTopicPartitionList(assignment.partitions) : NO_PARTITIONS;
}
