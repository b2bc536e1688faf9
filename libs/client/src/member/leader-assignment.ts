import {
  runAssignor,
  type MemberSubscription,
  type PartitionAssignor,
  type RebalanceProtocol,
} from '@cohort/assignors';
import type {
  JoinGroupResponse,
  MemberAssignment,
  MetadataResponse,
  Subscription,
  SyncGroupAssignment,
} from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';

/**
 * The leader's part of a rebalance (Kafka's `onLeaderElected` → `performAssignment`): the members'
 * subscriptions from the JoinGroup response, partition counts from Metadata, the chosen assignor run
 * through @cohort/assignors' runner, which checks the result — and, under the cooperative protocol,
 * that no partition is taken from one member and given to another in the same round (Kafka's
 * `validateCooperativeAssignment`).
 */
export async function leaderAssignment(
  join: JoinGroupResponse,
  assignor: PartitionAssignor | undefined,
  protocol: RebalanceProtocol,
  trusted: boolean,
  fetchMetadata: (topics: string[]) => Promise<MetadataResponse>,
): Promise<SyncGroupAssignment[]> {
  if (!assignor)
    throw CohortError.of(
      'INCONSISTENT_GROUP_PROTOCOL',
      `the group chose protocol '${join.protocolName}', which this member does not have`,
    );
  const members: MemberSubscription[] = join.members.map((m) => ({
    memberId: m.memberId,
    groupInstanceId: m.groupInstanceId,
    subscription: subscriptionOf(m.metadata),
  }));
  const topics = [...new Set(members.flatMap((m) => m.subscription.topics))].sort();
  const metadata = await fetchMetadata(topics);
  if (metadata.errorCode !== 0) throw CohortError.fromResponse(metadata as never);
  const partitionsPerTopic: Record<string, number> = Object.create(null) as Record<string, number>;
  // A topic that does not exist (yet) is left out, as Kafka does: nobody gets it.
  for (const topic of metadata.topics)
    if (topic.errorCode === 0 && topic.partitions > 0) partitionsPerTopic[topic.name] = topic.partitions;
  let result: Record<string, MemberAssignment>;
  try {
    result = runAssignor(assignor, { partitionsPerTopic }, members, { protocol, isolateInput: !trusted });
  } catch (error) {
    throw new CohortError(-1, error instanceof Error ? error.message : String(error), {
      name: 'ASSIGNOR_FAILED',
      retriable: false,
      cause: error,
    });
  }
  return members.map((m) => ({ memberId: m.memberId, assignment: result[m.memberId] ?? { partitions: [] } }));
}

function subscriptionOf(metadata: unknown): Subscription {
  const value = metadata as Partial<Subscription> | null;
  return {
    topics: Array.isArray(value?.topics) ? value.topics.filter((t): t is string => typeof t === 'string') : [],
    ...(value?.userData !== undefined ? { userData: value.userData } : {}),
    ...(Array.isArray(value?.ownedPartitions) ? { ownedPartitions: value.ownedPartitions } : {}),
    ...(typeof value?.generationId === 'number' ? { generationId: value.generationId } : {}),
    ...(value?.rackId !== undefined ? { rackId: value.rackId } : {}),
  };
}
