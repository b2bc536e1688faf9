import type { TopicRegistry } from '../ports/topic-registry.port';

/** Kafka's metadata check before OffsetCommit/OffsetDelete reach the coordinator: the topic and partition exist. */
export function knownPartition(topics: TopicRegistry, topic: string, partition: number): boolean {
  const count = topics.partitionCount(topic);
  return count !== undefined && Number.isInteger(partition) && partition >= 0 && partition < count;
}
