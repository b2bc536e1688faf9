import * as P from '@cohort/protocol';
import { ErrorCode, errorName } from '@cohort/protocol';

/**
 * Answers for the parts of a request the caller may not touch, in the shapes Kafka gives them, and
 * the merge of those with the coordinator's answer for the rest, in the order the request named them.
 */

type Named = { name: string };

/** Every partition of the refused topics with `errorCode` (29, or 30 when the group itself is refused). */
export function refusedPartitions(
  topics: readonly { name: string; partitions: readonly { partitionIndex: number }[] }[],
  errorCode: number,
): P.TopicPartitionErrors[] {
  return topics.map((topic) => ({
    name: topic.name,
    partitions: topic.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode })),
  }));
}

/** An explicit OffsetFetch topic the caller may not describe: 29 per partition, nothing committed shown. */
export function refusedFetchTopic(topic: P.OffsetFetchTopic): P.OffsetFetchResponse['topics'][number] {
  return {
    name: topic.name,
    partitions: topic.partitionIndexes.map((partitionIndex) => ({
      partitionIndex,
      committedOffset: -1,
      committedLeaderEpoch: -1,
      metadata: null,
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
    })),
  };
}

/** A DescribeGroups entry for a group the caller may not describe. */
export function refusedGroup(groupId: string): P.DescribedGroup {
  return {
    errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED,
    groupId,
    groupState: '',
    protocolType: '',
    protocolData: '',
    members: [],
  };
}

/** The coordinator's topics and the refused ones, in the request's order (a topic named twice keeps its answers). */
export function mergeTopics<T extends Named>(
  requested: readonly Named[],
  answered: readonly T[],
  refused: readonly T[],
): T[] {
  const byName = new Map<string, T[]>();
  for (const topic of [...answered, ...refused]) byName.set(topic.name, [...(byName.get(topic.name) ?? []), topic]);
  const merged: T[] = [];
  for (const name of new Set(requested.map((topic) => topic.name))) merged.push(...(byName.get(name) ?? []));
  // Anything the coordinator answered beyond the request (it never should) is kept, not lost.
  for (const topic of answered) if (!merged.includes(topic)) merged.push(topic);
  return merged;
}

/** Per-group results (DescribeGroups, DeleteGroups) in the request's order. */
export function mergeByGroup<T extends { groupId: string }>(
  requested: readonly string[],
  answered: readonly T[],
  refused: readonly T[],
): T[] {
  const byId = new Map([...answered, ...refused].map((entry) => [entry.groupId, entry]));
  const merged = [...new Set(requested)]
    .map((groupId) => byId.get(groupId))
    .filter((entry): entry is T => entry !== undefined);
  for (const entry of answered) if (!merged.includes(entry)) merged.push(entry);
  return merged;
}

/**
 * The rest of a response refused as a whole, so the ack keeps its usual shape (Kafka's JoinGroupResult
 * with generation -1 and no member id, a FindCoordinator answer with no node...).
 */
export const REFUSED_RESPONSE_FIELDS = {
  FindCoordinator: { nodeId: -1, host: '', port: -1, url: '' },
  JoinGroup: {
    generationId: -1,
    protocolType: null,
    protocolName: null,
    leader: '',
    skipAssignment: false,
    memberId: '',
    members: [],
  },
  SyncGroup: { protocolType: null, protocolName: null, assignment: null },
  Heartbeat: {},
  LeaveGroup: { members: [] },
  OffsetFetch: { topics: [] },
  ConsumerGroupHeartbeat: { memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null },
  ShareGroupHeartbeat: { memberId: null, memberEpoch: 0, heartbeatIntervalMs: 0, assignment: null },
  OffsetDelete: { topics: [] },
  ShareAcquire: { acquisitionLockTimeoutMs: 0, partitions: [] },
  ShareAcknowledge: { partitions: [] },
} as const;

/** The error a request-level refusal carries on its ack, with the response's other fields. */
export function refusal(
  request: keyof typeof REFUSED_RESPONSE_FIELDS,
  errorCode: number,
  message: string,
): P.KafkaError {
  return new P.KafkaError(errorCode as P.ErrorCodeValue, message || errorName(errorCode), {
    ...REFUSED_RESPONSE_FIELDS[request],
  });
}
