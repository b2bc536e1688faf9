/**
 * Helpers that mirror the fixtures of Kafka's assignor tests (AbstractPartitionAssignorTest and
 * friends), so the ported tests read like the originals and build exactly the same inputs: the same
 * broker racks per replica, the same consumer racks, the same member insertion order.
 */
import type { MemberAssignment, TopicPartitions } from '@cohort/protocol';
import type { ClusterView, MemberSubscription } from '@cohort/assignors/api/partition-assignor';

export const ALL_RACKS = ['a', 'b', 'c', 'd', 'e', 'f'];

export type RackConfig = 'NO_BROKER_RACK' | 'NO_CONSUMER_RACK' | 'BROKER_AND_CONSUMER_RACK';
export const RACK_CONFIGS: RackConfig[] = ['NO_BROKER_RACK', 'NO_CONSUMER_RACK', 'BROKER_AND_CONSUMER_RACK'];

export function racks(count: number): string[] {
  return Array.from({ length: count }, (_, i) => ALL_RACKS[i % ALL_RACKS.length]);
}

export function nullRacks(count: number): (string | null)[] {
  return Array.from({ length: count }, () => null);
}

/** Replica racks of each partition, as AbstractPartitionAssignorTest.partitionInfos lays replicas on brokers. */
export function replicaRacksOf(
  partitions: number,
  replicationFactor: number,
  brokerRacks: (string | null)[],
  nextNodeIndex: number,
): (string | null)[][] {
  return Array.from({ length: partitions }, (_, i) =>
    Array.from({ length: replicationFactor }, (_, j) => brokerRacks[(i + j + nextNodeIndex) % brokerRacks.length]),
  );
}

/** The numBrokerRacks flavour: rf brokers without racks, or numBrokerRacks × rf brokers on racks a, b, c, ... */
export function replicaRacksWithRackCount(
  partitions: number,
  replicationFactor: number,
  numBrokerRacks: number,
  nextNodeIndex: number,
): (string | null)[][] {
  const brokers = numBrokerRacks <= 0 ? replicationFactor : numBrokerRacks * replicationFactor;
  const brokerRacks = Array.from({ length: brokers }, (_, i) =>
    numBrokerRacks <= 0 ? null : ALL_RACKS[i % numBrokerRacks],
  );
  return replicaRacksOf(partitions, replicationFactor, brokerRacks, nextNodeIndex);
}

/** A cluster view being built topic by topic, like Kafka's `Map<String, List<PartitionInfo>>`. */
export class ClusterBuilder {
  readonly partitionsPerTopic: Record<string, number> = {};
  readonly partitionRacks: Record<string, (string | null)[][]> = {};

  put(topic: string, partitions: number, replicaRacksPerPartition?: (string | null)[][]): this {
    this.partitionsPerTopic[topic] = partitions;
    if (replicaRacksPerPartition) this.partitionRacks[topic] = replicaRacksPerPartition;
    else delete this.partitionRacks[topic];
    return this;
  }

  remove(topic: string): this {
    delete this.partitionsPerTopic[topic];
    delete this.partitionRacks[topic];
    return this;
  }

  view(): ClusterView {
    return { partitionsPerTopic: { ...this.partitionsPerTopic }, partitionRacks: { ...this.partitionRacks } };
  }
}

/** `new TopicPartition(topic, p)` as the string Kafka prints: "topic-p". */
export function tp(topic: string, partition: number): string {
  return `${topic}-${partition}`;
}

export function parseTp(value: string): { topic: string; partition: number } {
  const dash = value.lastIndexOf('-');
  return { topic: value.slice(0, dash), partition: Number(value.slice(dash + 1)) };
}

/** "t1-0, t1-3" (Kafka's comma-separated test notation) or ["t1-0", ...] → TopicPartitions[]. */
export function topicPartitions(value: string | readonly string[]): TopicPartitions[] {
  const items = typeof value === 'string' ? value.split(', ').filter((item) => item.length > 0) : value;
  const byTopic = new Map<string, number[]>();
  for (const item of items) {
    const { topic, partition } = parseTp(item);
    const list = byTopic.get(topic) ?? [];
    list.push(partition);
    byTopic.set(topic, list);
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions }));
}

/** A member's assignment as sorted "topic-p" strings, the way the Kafka tests compare them as sets. */
export function flat(assignment: MemberAssignment | TopicPartitions[] | undefined): string[] {
  const partitions = Array.isArray(assignment) ? assignment : (assignment?.partitions ?? []);
  return partitions.flatMap((entry) => entry.partitions.map((p) => tp(entry.topic, p))).sort();
}

/** Kafka's toSortedString: the partitions of a member, sorted as strings, joined by ", ". */
export function sortedString(assignment: MemberAssignment | undefined): string {
  return flat(assignment).join(', ');
}

export function flatAll(result: Record<string, MemberAssignment>): Record<string, string[]> {
  return Object.fromEntries(Object.entries(result).map(([member, assignment]) => [member, flat(assignment)]));
}

/**
 * Members in insertion order, like the Java tests' `subscriptions` HashMap: re-putting a key keeps its
 * place, removing and adding it again moves it to the end. The order matters: it is the leader's
 * arrival order that our Java HashMap emulation starts from.
 */
export class SubscriptionMap extends Map<
  string,
  MemberSubscription['subscription'] & { groupInstanceId?: string | null }
> {
  members(): MemberSubscription[] {
    return [...this].map(([memberId, subscription]) => {
      const { groupInstanceId, ...rest } = subscription;
      return { memberId, groupInstanceId: groupInstanceId ?? null, subscription: rest };
    });
  }
}

export type AssignFn = (cluster: ClusterView, members: MemberSubscription[]) => Record<string, MemberAssignment>;

/**
 * AbstractPartitionAssignorTest.verifyRackAssignment: consumers "consumer0".."consumerN", topics laid
 * on brokers one after the other, optional owned partitions per consumer (Kafka's "t1-0, t1-3"
 * notation), the expected sorted assignment per consumer, and the number of partitions given to a
 * consumer on a rack that holds none of its replicas (-1: not checked).
 */
export function verifyRackAssignment(
  assign: AssignFn,
  topics: [string, number][],
  replicationFactor: number,
  brokerRacks: (string | null)[],
  consumerRacks: (string | null)[],
  consumerTopics: string[][],
  owned: string[] | null,
  expected: string[],
  numPartitionsWithRackMismatch: number,
): Record<string, MemberAssignment> {
  const builder = new ClusterBuilder();
  let nextIndex = 0;
  for (const [topic, count] of topics) {
    builder.put(topic, count, replicaRacksOf(count, replicationFactor, brokerRacks, nextIndex));
    nextIndex += count;
  }
  const view = builder.view();
  const consumers = consumerRacks.map((_, i) => `consumer${i}`);
  const members = consumers.map((memberId, i) => ({
    memberId,
    subscription: {
      topics: consumerTopics[i],
      ownedPartitions: owned && owned[i] ? topicPartitions(owned[i]) : [],
      generationId: -1,
      rackId: consumerRacks[i],
    },
  }));
  const result = assign(view, members);
  expect(consumers.map((c) => sortedString(result[c]))).toEqual(expected);
  if (numPartitionsWithRackMismatch >= 0) {
    let mismatched = 0;
    consumers.forEach((c, i) => {
      const rack = consumerRacks[i];
      if (rack === null) return;
      for (const entry of result[c].partitions) {
        for (const p of entry.partitions) if (!view.partitionRacks?.[entry.topic][p].includes(rack)) mismatched++;
      }
    });
    expect(mismatched).toBe(numPartitionsWithRackMismatch);
  }
  return result;
}
