import type { LogRecord, StoredRecord } from './log-record';

/**
 * The narrow port through which the group coordinator uses the (replicated) log of `__consumer_offsets`
 * (docs/architecture.md: append records and be told when they are committed or failed; read a partition from
 * a start offset; be told when leadership of a partition is gained or lost).
 *
 * Implemented by the single-node embedded store and by the replicated ReplicaManager; the coordinator
 * code is the same over both.
 */
export interface PartitionStore {
  /**
   * Appends `records` as one batch to this node's log of `partition`, as leader in `leaderEpoch`.
   * Synchronous so that a caller can assign offsets inside one serialized operation: returns the
   * offsets given, or throws a KafkaError — NOT_COORDINATOR when this node is not the leader in that
   * epoch, NOT_ENOUGH_REPLICAS when the ISR is below MIN_INSYNC_REPLICAS, KAFKA_STORAGE_ERROR when the
   * log is failed. Nothing is appended when it throws.
   */
  append(partition: number, leaderEpoch: number, records: LogRecord[]): AppendResult;

  /**
   * Resolves once the high watermark has passed `lastOffset` while this node still leads `partition`
   * in `leaderEpoch` (so the records are committed: acks=all with MIN_INSYNC_REPLICAS). Rejects with
   * NOT_COORDINATOR if leadership of that epoch is lost first, and with REQUEST_TIMED_OUT after
   * `timeoutMs` (the outcome is then unknown: the records may still commit later). The replicated store
   * may also reject with NOT_ENOUGH_REPLICAS_AFTER_APPEND when the records are committed but the ISR
   * has meanwhile fallen below MIN_INSYNC_REPLICAS (Kafka's DelayedProduce; a retry duplicates them).
   */
  awaitCommit(partition: number, leaderEpoch: number, lastOffset: number, timeoutMs: number): Promise<void>;

  /**
   * Reads records of this node's log of `partition` from `fromOffset` (inclusive) up to `maxRecords`,
   * never beyond `upToOffset` (exclusive) nor the log end. Compacted logs have gaps: `nextOffset` is where
   * the next read continues.
   */
  read(partition: number, fromOffset: number, upToOffset: number, maxRecords: number): Promise<ReadResult>;

  /**
   * Optional `read` for a reader that decodes each record at once and keeps none of its bytes (the
   * coordinator's load): visits the records `read` would return, in order, as their bytes in place — no
   * record object, no copy — and resolves with the `nextOffset` `read` would give.
   */
  scan?(
    partition: number,
    fromOffset: number,
    upToOffset: number,
    maxRecords: number,
    visit: RecordVisitor,
  ): Promise<number>;

  /** Offsets of this node's log of `partition`. */
  offsets(partition: number): PartitionOffsets;

  /**
   * Registers for leadership changes. On subscribe, `onBecomeLeader` is called at once for every
   * partition this node already leads. Returns an unsubscribe function.
   */
  subscribe(listener: LeadershipListener): () => void;
}

/**
 * One record of a `scan`: its key is `key[keyStart, keyEnd)`, its value `value[valueStart, valueEnd)`
 * or a tombstone when `value` is null. The buffers are only valid during the call.
 */
export type RecordVisitor = (
  offset: number,
  key: Buffer,
  keyStart: number,
  keyEnd: number,
  value: Buffer | null,
  valueStart: number,
  valueEnd: number,
) => void;

export interface AppendResult {
  baseOffset: number;
  lastOffset: number;
}

export interface ReadResult {
  records: StoredRecord[];
  nextOffset: number;
}

export interface PartitionOffsets {
  logStartOffset: number;
  logEndOffset: number;
  highWatermark: number;
}

export interface LeadershipListener {
  /**
   * This node now leads `partition` in `leaderEpoch`: load the partition, then serve it. The replicated
   * store calls this only once the node is the leader in the metadata and its HW has reached the start
   * of the epoch, so every record from earlier epochs in the log is committed when the load begins.
   */
  onBecomeLeader(partition: number, leaderEpoch: number): void;
  /**
   * This node no longer leads `partition` (it became a follower, was fenced, or is shutting down).
   * Every pending awaitCommit of that epoch is rejected with NOT_COORDINATOR; stop serving its groups.
   */
  onResign(partition: number, leaderEpoch: number): void;
}
