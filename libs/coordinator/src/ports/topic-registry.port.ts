/**
 * The topic registry (SPEC §4): partition counts for assignors and commit validation, and log end
 * offsets reported by producers, for lag. Cluster-wide; persisted by the metadata store of the mode
 * (a file under DATA_DIR in embedded mode, Redis in cluster mode).
 */
export interface TopicInfo {
  name: string;
  partitions: number;
  /** partition → reported log end offset. */
  endOffsets: Record<number, number>;
}

export interface TopicRegistry {
  /** A copy of the topic, safe to keep or change. */
  get(name: string): TopicInfo | undefined;
  /** The topic's partition count without copying anything: what per-partition checks ask. */
  partitionCount(name: string): number | undefined;
  list(): TopicInfo[];
  /** Throws a KafkaError (INVALID_REQUEST) if the topic exists or the count is not a positive integer. */
  create(name: string, partitions: number): Promise<TopicInfo>;
  /** Grows a topic; shrinking is refused (INVALID_REQUEST), as in Kafka. */
  setPartitions(name: string, partitions: number): Promise<TopicInfo>;
  setEndOffsets(name: string, endOffsets: { partition: number; endOffset: number }[]): Promise<TopicInfo>;
  /** Called after a topic is created or grows, on every node. Returns an unsubscribe function. */
  onPartitionsChanged(listener: (topic: TopicInfo) => void): () => void;
}
