/**
 * The share group assignor (KIP-932): Kafka's `SimpleAssignor`, named `simple`, the only one Kafka
 * ships for share groups. Every partition of a subscribed topic is assigned; when there are more
 * members than partitions, a partition goes to ceil(M/P) members, so that every member works some
 * partition. Balance first (member sizes differ by at most one), stickiness second. The same inputs
 * give Kafka's assignment: members walked in Java's member-map order, topics by their Kafka ids
 * (`UUID.nameUUIDFromBytes` of the name), each current target read as Kafka's `Assignment.fromRecord`
 * reads it. Partitions are all assignable (Cohort's share partitions start on first use, so there is
 * no "initializing" partition to hold back as Kafka's share-state persister needs).
 */
import type { TopicPartitions } from '@cohort/protocol';
import type { ClusterView } from '../api/partition-assignor';
import type { ConsumerGroupSpec } from './consumer-group-assignor';
import { type GroupModelOptions, readGroupModel } from './group-model';
import { buildHeterogeneous } from './share-assignor-heterogeneous';
import { buildHomogeneous } from './share-assignor-homogeneous';
import type { MemberTopics } from './share-assignor-state';

export const SIMPLE_SHARE_ASSIGNOR_NAME = 'simple';

/** memberId → its new target; every member of the spec has an entry, possibly empty. Topics and partitions ascending. */
export type ShareGroupAssignment = Record<string, TopicPartitions[]>;

/**
 * Kafka's `SimpleAssignor.assign`. A share group's members are Kafka's `MemberSubscription`s with their
 * current targets, which may share partitions (ConsumerGroupSpec's shape, `instanceId` unused).
 */
export function simpleShareAssign(
  group: ConsumerGroupSpec,
  cluster: ClusterView,
  options: GroupModelOptions = {},
): ShareGroupAssignment {
  const result: ShareGroupAssignment = {};
  if (group.members.length === 0) return result;
  const model = readGroupModel(group, cluster, { ...options, sharedTargets: true });
  const state = model.homogeneous ? buildHomogeneous(model) : buildHeterogeneous(model);
  model.members.forEach((member, m) => {
    result[member.memberId] = listOf(state.next.get(m) ?? state.old[m], (topic) => model.topics[topic].name);
  });
  return result;
}

function listOf(assignment: MemberTopics, nameOf: (topic: number) => string): TopicPartitions[] {
  const list: TopicPartitions[] = [];
  for (const [topic, partitions] of assignment)
    if (partitions.size > 0) list.push({ topic: nameOf(topic), partitions: [...partitions].sort((a, b) => a - b) });
  return list.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
}
