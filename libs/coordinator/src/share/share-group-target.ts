import { KafkaError } from '@cohort/protocol';
import { simpleShareAssign } from '@cohort/assignors';
import type { LogRecord } from '@cohort/replication';
import {
  fromTopicPartitionList,
  NO_PARTITIONS,
  samePartitions,
  toTopicPartitionList,
  type TopicPartitions,
} from '../consumer/topic-partitions';
import type { ShareGroup, ShareGroupMember } from './share-group-model';
import { shareAssignmentEpochRecord, shareTargetRecord } from './share-group-records';
import { subscribedNameList } from '../consumer/subscribed-name-list';

export interface ShareTargetResult {
  /** A target record per member whose target changed (or who had none), then the assignment epoch. */
  records: LogRecord[];
  /** Every member's new target. */
  targets: Map<string, TopicPartitions>;
  /** The members, other than the one asking, whose target changed: they are told to heartbeat now. */
  changed: string[];
}

/**
 * Kafka's `maybeUpdateTargetAssignment` for a share group: the group's members with `updated` in its
 * place (or `removed` gone) go to the `simple` assignor over the subscribed topics that exist
 * (`partitionsPerTopic`), each with its current target, and the targets that changed are written with
 * the new assignment epoch. An assignor failure is UNKNOWN_SERVER_ERROR, as in Kafka.
 */
export function computeShareTargets(
  group: ShareGroup,
  groupEpoch: number,
  partitionsPerTopic: Record<string, number>,
  now: number,
  change: { updated?: ShareGroupMember; removed?: string },
): ShareTargetResult {
  const members = new Map(group.members);
  if (change.updated) members.set(change.updated.memberId, change.updated);
  if (change.removed !== undefined) members.delete(change.removed);
  let assigned: Record<string, { topic: string; partitions: number[] }[]>;
  try {
    assigned = simpleShareAssign(
      {
        members: [...members.values()].map((member) => ({
          memberId: member.memberId,
          rackId: member.rackId,
          subscribedTopics: subscribedNameList(member.subscribedTopicNames),
          assignment: toTopicPartitionList(group.targetOf(member.memberId)),
        })),
      },
      { partitionsPerTopic },
    );
  } catch (error) {
    throw KafkaError.of(
      'UNKNOWN_SERVER_ERROR',
      `Failed to compute a new target assignment for epoch ${groupEpoch}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
  const records: LogRecord[] = [];
  const targets = new Map<string, TopicPartitions>();
  const changed: string[] = [];
  for (const memberId of members.keys()) {
    const next = assigned[memberId] ? fromTopicPartitionList(assigned[memberId]) : NO_PARTITIONS;
    targets.set(memberId, next);
    const previous = group.targetAssignment.get(memberId);
    if (previous === undefined || !samePartitions(previous, next)) {
      records.push(shareTargetRecord(group.groupId, memberId, next, now));
      if (memberId !== change.updated?.memberId) changed.push(memberId);
    }
  }
  records.push(shareAssignmentEpochRecord(group.groupId, groupEpoch, now));
  return { records, targets, changed };
}

/** Kafka's `ShareGroupAssignmentBuilder.filterAssignedPartitions`: only the topics the member subscribes to. */
export function subscribedPartOf(target: TopicPartitions, subscribed: ReadonlySet<string>): TopicPartitions {
  let filtered: Map<string, ReadonlySet<number>> | undefined;
  for (const topic of target.keys()) {
    if (subscribed.has(topic)) continue;
    filtered ??= new Map(target);
    filtered.delete(topic);
  }
  return filtered ?? target;
}

/** The subscribed topics that exist, with their partition counts (Kafka's subscription metadata). */
export function shareSubscriptionMetadata(
  topics: Iterable<string>,
  partitionsOf: (topic: string) => number | undefined,
): Record<string, number> {
  const metadata: Record<string, number> = {};
  for (const topic of topics) {
    const partitions = partitionsOf(topic);
    if (partitions !== undefined) metadata[topic] = partitions;
  }
  return metadata;
}
