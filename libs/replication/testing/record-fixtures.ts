import { randomBytes } from 'node:crypto';
import type { LogRecord, StoredBatch } from '@cohort/replication';

/** A record with a string key and value (null = tombstone), for tests of either log. */
export function rec(key: string, value: string | null, timestamp = 1_000): LogRecord {
  return { key: Buffer.from(key), value: value === null ? null : Buffer.from(value), timestamp };
}

/** Offsets, keys and values of what `read` returned, flattened, for readable assertions. */
export function flatten(batches: StoredBatch[]): Array<[number, string, string | null]> {
  return batches.flatMap((b) =>
    b.records.map((r): [number, string, string | null] => [
      r.offset,
      r.key.toString(),
      r.value === null ? null : r.value.toString(),
    ]),
  );
}

/** Key → latest value (tombstones delete), replaying batches the way the coordinator loads a partition. */
export function replay(batches: StoredBatch[]): Map<string, string> {
  const state = new Map<string, string>();
  for (const b of batches) {
    for (const r of b.records) {
      if (r.value === null) state.delete(r.key.toString());
      else state.set(r.key.toString(), r.value.toString());
    }
  }
  return state;
}

/**
 * A batch with what the wire and the log format must carry byte-exactly: random binary keys and
 * values, a tombstone, an empty key and value, a fractional timestamp and sparse offsets.
 */
export function edgeCaseBatch(baseOffset: number, leaderEpoch: number): StoredBatch {
  return {
    baseOffset,
    leaderEpoch,
    records: [
      { key: randomBytes(40), value: randomBytes(300), timestamp: 1_700_000_000_123, offset: baseOffset, leaderEpoch },
      { key: Buffer.alloc(0), value: null, timestamp: 1_700_000_000_124.5, offset: baseOffset + 3, leaderEpoch },
      { key: Buffer.from([0, 255, 0]), value: Buffer.alloc(0), timestamp: 0, offset: baseOffset + 4, leaderEpoch },
    ],
  };
}
