import type { TopicPartitions } from '@cohort/protocol';

/** A topic partition as one string, `topic-p`: how the simulated members and ledgers name partitions. */
export const keyOf = (topic: string, partition: number): string => `${topic}-${partition}`;

export function split(key: string): [string, number] {
  const at = key.lastIndexOf('-');
  return [key.slice(0, at), Number(key.slice(at + 1))];
}

/** A protocol assignment as keys, for traces. */
export function keysOf(list: TopicPartitions[]): string {
  return list.flatMap((tp) => tp.partitions.map((p) => keyOf(tp.topic, p))).join(',') || '-';
}

/** Keys as the protocol's list of topics with their partitions. */
export function toList(keys: string[]): TopicPartitions[] {
  const byTopic = new Map<string, number[]>();
  for (const key of keys) {
    const [topic, partition] = split(key);
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), partition]);
  }
  return [...byTopic].map(([topic, partitions]) => ({ topic, partitions: partitions.sort((a, b) => a - b) }));
}

/** Offsets to commit, by key, as OffsetCommit's list of topics with their partitions. */
export function commitTopics(
  entries: Array<{ key: string; offset: number }>,
): Array<{ name: string; partitions: Array<{ partitionIndex: number; committedOffset: number }> }> {
  const byTopic = new Map<string, Array<{ partitionIndex: number; committedOffset: number }>>();
  for (const { key, offset } of entries) {
    const [topic, partitionIndex] = split(key);
    const partitions = byTopic.get(topic) ?? [];
    partitions.push({ partitionIndex, committedOffset: offset });
    byTopic.set(topic, partitions);
  }
  return [...byTopic].map(([name, partitions]) => ({ name, partitions }));
}
