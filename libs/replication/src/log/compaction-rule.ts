import type { StoredRecord } from '../api/log-record';
import type { StoredBatch } from './partition-log';

/**
 * The one compaction rule shared by the memory and the file log:
 * among records below `limit`, a record survives only if it is the latest for its key, and a
 * latest tombstone survives only until `tombstoneRetentionMs` after its timestamp. Records at or
 * above `limit` are untouched. Offsets and epochs of survivors never change; batches that lose every
 * record disappear. `limit` must cover a prefix of the log: every older value of a key sits below its
 * tombstone, so the pass that removes a tombstone has already removed those values and nothing is
 * resurrected.
 */
export function compactBatches(
  batches: readonly StoredBatch[],
  limit: number,
  now: number,
  tombstoneRetentionMs: number,
  /** Key → latest offset below `limit`; given when the batches are one slice of a larger cleanable prefix. */
  latest: ReadonlyMap<string, number> = latestOffsetByKey(batches, limit),
): StoredBatch[] {
  const deleteBefore = now - tombstoneRetentionMs;
  const out: StoredBatch[] = [];
  for (const batch of batches) {
    const kept = batch.records.filter((r) => r.offset >= limit || survives(r, latest, deleteBefore));
    if (kept.length === batch.records.length) out.push(batch);
    else if (kept.length > 0) out.push({ baseOffset: batch.baseOffset, leaderEpoch: batch.leaderEpoch, records: kept });
  }
  return out;
}

function survives(r: StoredRecord, latest: ReadonlyMap<string, number>, deleteBefore: number): boolean {
  return recordSurvives(r.offset, keyOf(r.key), r.value === null, r.timestamp, latest, deleteBefore);
}

/**
 * The rule for one record below the limit: it is the latest for its key, and if it is a tombstone,
 * its timestamp is after `deleteBefore` (= now - tombstone retention).
 */
export function recordSurvives(
  offset: number,
  key: string,
  tombstone: boolean,
  timestamp: number,
  latest: ReadonlyMap<string, number>,
  deleteBefore: number,
): boolean {
  if (latest.get(key) !== offset) return false;
  return !tombstone || timestamp > deleteBefore;
}

/** Key → offset of its latest record below `limit`. */
export function latestOffsetByKey(
  batches: readonly StoredBatch[],
  limit: number,
  latest: Map<string, number> = new Map<string, number>(),
): Map<string, number> {
  for (const batch of batches) {
    for (const r of batch.records) {
      if (r.offset >= limit) return latest;
      latest.set(keyOf(r.key), r.offset);
    }
  }
  return latest;
}

/** latin1 maps bytes 1:1 to UTF-16 units: a cheap, collision-free Map key for an opaque byte key. */
export function keyOf(key: Buffer): string {
  return key.toString('latin1');
}
