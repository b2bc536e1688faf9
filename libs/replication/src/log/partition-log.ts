import type { LogRecord, StoredRecord } from '../api/log-record';

/**
 * A batch as stored: consecutive offsets from `baseOffset`, all written in one leader epoch. Batches
 * are the unit of checksums, of replication and of truncation.
 */
export interface StoredBatch {
  baseOffset: number;
  leaderEpoch: number;
  records: StoredRecord[];
}

/**
 * One replica's log of one partition. Implemented in memory (tests, simulator: with a simulated disk
 * that loses unflushed writes on a crash) and as segment files under DATA_DIR.
 *
 * Appends are synchronous (they assign offsets and are readable at once); durability is separate:
 * `flushedOffset` tells how far the data is on stable storage, and `flush()` gets it there, grouping
 * concurrent callers into one fsync.
 */
export interface PartitionLog {
  readonly logStartOffset: number;
  /** Offset the next appended record gets (LEO). */
  readonly logEndOffset: number;
  /** Every offset below this is on stable storage. */
  readonly flushedOffset: number;

  /** Leader append: assigns offsets from the LEO; the batch is stamped with `leaderEpoch`. */
  appendAsLeader(records: LogRecord[], leaderEpoch: number): StoredBatch;
  /** Follower append: batches keep the offsets and epochs the leader gave them; must start at the LEO. */
  appendAsFollower(batches: StoredBatch[]): void;

  /** Whole batches holding offsets in [fromOffset, upToOffset), at most about `maxRecords` records. */
  read(fromOffset: number, upToOffset: number, maxRecords: number, options?: ReadOptions): StoredBatch[];

  /** Optional: the records of the batches `read` would return, visited in place (no record object, no copy). */
  scan?(fromOffset: number, upToOffset: number, maxRecords: number, visit: InPlaceVisitor): void;

  /** Removes every offset >= `offset` (never below the log start). */
  truncateTo(offset: number): void;

  /** Resolves once everything appended before the call is on stable storage. */
  flush(): Promise<void>;

  /**
   * Compaction below `upToOffset` (the HW): keeps the latest record per key, drops tombstones older
   * than `tombstoneRetentionMs` (by record timestamp, relative to `now`); offsets and epochs are kept.
   */
  compact(upToOffset: number, now: number, tombstoneRetentionMs: number): Promise<CompactionStats>;

  close(): Promise<void>;

  /** Set while the log's storage has failed (appends and flushes fail KAFKA_STORAGE_ERROR); file logs only. */
  readonly storageFault?: unknown;
  /** Tries to take writes again after a storage fault; rejects while the storage still fails. File logs only. */
  heal?(): Promise<void>;
}

/** One record of a frame in place: key `buf[keyStart, keyEnd)`, value `buf[valueStart, valueEnd)` (valueStart -1: tombstone). */
export type InPlaceVisitor = (
  offset: number,
  buf: Buffer,
  keyStart: number,
  keyEnd: number,
  valueStart: number,
  valueEnd: number,
) => void;

export interface ReadOptions {
  /**
   * The caller decodes every record at once and keeps none of its buffers (PartitionStore.read, the
   * coordinator's load): keys and values may be views of one shared read buffer instead of copies.
   */
  shareBuffers?: boolean;
}

export interface CompactionStats {
  recordsBefore: number;
  recordsAfter: number;
  bytesBefore: number;
  bytesAfter: number;
}
