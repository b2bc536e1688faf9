/**
 * A record of a compacted partition: an opaque key and value (null = tombstone). The replication layer
 * never looks inside them; compaction keeps the latest record per key.
 */
export interface LogRecord {
  key: Buffer;
  value: Buffer | null;
  timestamp: number;
}

/** A record as read back from a log: with its offset and the leader epoch of the batch that holds it. */
export interface StoredRecord extends LogRecord {
  offset: number;
  leaderEpoch: number;
}
