import type * as P from '@cohort/protocol';
import type { ConsumerGroup } from '../consumer/consumer-group';
import type { ConsumerGroupMember } from '../consumer/consumer-group-member';
import { epochHistoryView } from '../consumer/epoch-history';
import { MemberState } from '../consumer/member-state';
import { toTopicPartitionList, type TopicPartitions } from '../consumer/topic-partitions';
import type { GroupSummaryView, GroupView, RebalanceView } from '../ports/group-coordinator.api';

/**
 * What REST shows of a consumer group (KIP-848; docs/rest.md): the classic description's fields filled
 * the way a tool that knows only classic groups can still read them (the group epoch as the generation,
 * the server assignor as the protocol, each member's subscription and assignment in the `consumer`
 * protocol's shapes), then the consumer group's own: epochs, and per member its epoch, state, target
 * and the partitions it must still give up.
 */
export function consumerGroupView(group: ConsumerGroup, partition: number, defaultAssignor: string): GroupView {
  const assignor = group.preferredServerAssignor() ?? defaultAssignor;
  return {
    groupId: group.groupId,
    type: 'consumer',
    state: group.state,
    protocolType: 'consumer',
    protocol: assignor,
    generationId: group.groupEpoch,
    leader: null,
    coordinatorPartition: partition,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignor,
    members: [...group.members.values()]
      .sort((a, b) => (a.memberId < b.memberId ? -1 : a.memberId > b.memberId ? 1 : 0))
      .map((m) => memberView(group, m)),
  };
}

function memberView(group: ConsumerGroup, m: ConsumerGroupMember): P.GroupMemberDescription {
  const topics = [...m.subscribedTopicNames].sort();
  return {
    memberId: m.memberId,
    groupInstanceId: m.instanceId,
    clientId: m.clientId,
    clientHost: m.clientHost,
    subscription: m.subscribedTopicRegex === '' ? { topics } : { topics, topicRegex: m.subscribedTopicRegex },
    assignment: { partitions: list(m.assignedPartitions) },
    memberEpoch: m.memberEpoch,
    memberState: MEMBER_STATE_NAMES[m.state] ?? 'UNKNOWN',
    // Kafka's MemberType: 0 for a classic member of a migrated group, 1 for a consumer-protocol member.
    memberType: m.classicMemberMetadata === null ? 1 : 0,
    rackId: m.rackId,
    subscribedTopicNames: topics,
    subscribedTopicRegex: m.subscribedTopicRegex,
    targetAssignment: { partitions: list(group.targetAssignmentOf(m.memberId)) },
    partitionsPendingRevocation: list(m.partitionsPendingRevocation),
  };
}

const MEMBER_STATE_NAMES: Record<number, P.ConsumerMemberState> = {
  [MemberState.STABLE]: 'STABLE',
  [MemberState.UNREVOKED_PARTITIONS]: 'UNREVOKED_PARTITIONS',
  [MemberState.UNRELEASED_PARTITIONS]: 'UNRELEASED_PARTITIONS',
  [MemberState.UNKNOWN]: 'UNKNOWN',
};

function list(partitions: TopicPartitions): P.TopicPartitions[] {
  return toTopicPartitionList(partitions).map(({ topic, partitions: p }) => ({ topic, partitions: p }));
}

export function consumerGroupSummary(group: ConsumerGroup): GroupSummaryView {
  return {
    groupId: group.groupId,
    type: 'consumer',
    protocolType: 'consumer',
    state: group.state,
    members: group.size,
  };
}

/** The group's epoch bumps, newest first, in the shape of the classic rebalance history (docs/rest.md). */
export function consumerRebalanceViews(group: ConsumerGroup): RebalanceView[] {
  return epochHistoryView(group.history.entries).map((e) => ({
    generationId: e.groupEpoch,
    groupEpoch: e.groupEpoch,
    reason: e.reason,
    memberId: e.memberId,
    startedAt: e.startedAt,
    completedAt: e.completedAt,
    durationMs: e.durationMs,
    members: e.members,
    protocol: null,
    outcome: e.outcome,
  }));
}

/** Members that still hold partitions they must give up (the metric of members pending revocation). */
export function membersPendingRevocation(group: ConsumerGroup): number {
  let count = 0;
  for (const m of group.members.values()) if (m.partitionsPendingRevocation.size > 0) count++;
  return count;
}
