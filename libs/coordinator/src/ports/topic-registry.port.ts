import type { EndOffsetReport, TopicInfo } from '@cohort/protocol';

/** A topic and an end-offset report are the REST API's shapes (docs/rest.md). */
export type { EndOffsetReport, TopicInfo };

/** What the registry knows of one partition's offsets, read without copying the topic. */
export interface PartitionOffsets {
  endOffset: number;
  startOffset: number | null;
  reportedAt: number | null;
}

/**
 * The topic registry (docs/rest.md): partition counts for assignors and commit validation, and log end
 * offsets reported by producers, for lag. Cluster-wide; persisted by the metadata store of the mode
 * (a file under DATA_DIR in embedded mode, Redis in cluster mode).
 */
export interface TopicRegistry {
  /** A copy of the topic, safe to keep or change. */
  get(name: string): TopicInfo | undefined;
  /** The topic's partition count without copying anything: what per-partition checks ask. */
  partitionCount(name: string): number | undefined;
  list(): TopicInfo[];
  /**
   * How many topics there are, without copying any. Topics are never deleted, so the count moves exactly
   * when one is created: what was derived from which names exist holds while it stays.
   */
  topicCount(): number;
  /** Throws a KafkaError (INVALID_REQUEST) if the topic exists or the count is not a positive integer. */
  create(name: string, partitions: number): Promise<TopicInfo>;
  /** Grows a topic; shrinking is refused (INVALID_REQUEST), as in Kafka. */
  setPartitions(name: string, partitions: number): Promise<TopicInfo>;
  /** Stores the reports with the time they arrived; a report without `startOffset` keeps the known one. */
  setEndOffsets(name: string, endOffsets: EndOffsetReport[]): Promise<TopicInfo>;
  /** The partition's latest report, or undefined when none: lag and resets ask this per partition. */
  partitionOffsets(name: string, partition: number): PartitionOffsets | undefined;
  /** The topic's reported end offsets, not copied (the caller must not change them): a scan of every group reads this once per topic. */
  endOffsetsOf(name: string): Readonly<Record<number, number>> | undefined;
  /**
   * The partition's end offset as of `time` by its time index (docs/lag.md): the latest report dated at
   * or before it; before the first report, the reported start offset, else the first report's end offset
   * (the earliest known); undefined when nothing was reported.
   */
  endOffsetAsOf(name: string, partition: number, time: number): number | undefined;
  /**
   * How long ago (at `now`) `offset` was the partition's log end, by its time index (docs/lag.md): 0 when
   * at or past the latest report, null when nothing was reported.
   */
  timeLagMs(name: string, partition: number, offset: number, now: number): number | null;
  /** Called after a topic is created or grows, on every node. Returns an unsubscribe function. */
  onPartitionsChanged(listener: (topic: TopicInfo) => void): () => void;
  /**
   * Called after end offsets of some partitions of a topic were reported (through any node, in cluster
   * mode once this node re-read them), with those partitions. Returns an unsubscribe function.
   */
  onEndOffsetsChanged?(listener: (topic: string, partitions: number[]) => void): () => void;
}
