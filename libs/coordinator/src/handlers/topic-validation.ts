import type { TopicRegistry } from '../ports/topic-registry.port';

/** Kafka's metadata check before OffsetCommit/OffsetDelete reach the coordinator: the topic and partition exist. */
export function knownPartition(topics: TopicRegistry, topic: string, partition: number): boolean {
  const info = topics.get(topic);
  return info !== undefined && Number.isInteger(partition) && partition >= 0 && partition < info.partitions;
}
