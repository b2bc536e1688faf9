import type { GroupDescription, GroupMemberDescription, MemberAssignment, TopicPartitions } from '@cohort/protocol';

/**
 * The topics `GET /v1/groups/:groupId` shows of a consumer or share group: what each member subscribes
 * to, holds, is targeted with or must give up, and the share partitions. Kafka 4's ConsumerGroupDescribe
 * and ShareGroupDescribe refuse a group showing a topic the caller may not DESCRIBE (29), as the socket
 * describes do here; a classic group's describe, as Kafka's DescribeGroups, checks no topic (none for it).
 */
export function topicsShownBy(group: Pick<GroupDescription, 'type' | 'members' | 'sharePartitions'>): string[] {
  if (group.type !== 'consumer' && group.type !== 'share') return [];
  return [...group.members.flatMap(memberTopics), ...(group.sharePartitions ?? []).map((p) => p.topic)];
}

function memberTopics(member: GroupMemberDescription): string[] {
  const named = (list: TopicPartitions[] | undefined): string[] => (list ?? []).map((tp) => tp.topic);
  return [
    ...(member.subscribedTopicNames ?? []),
    ...named((member.assignment as MemberAssignment | null)?.partitions),
    ...named(member.targetAssignment?.partitions),
    ...named(member.partitionsPendingRevocation),
  ];
}
