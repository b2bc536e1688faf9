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
