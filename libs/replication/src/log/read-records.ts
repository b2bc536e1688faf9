import type { ReadResult } from '../api/partition-store.port';
import type { PartitionLog } from './partition-log';

/**
 * PartitionStore.read over one log: the records in [fromOffset, min(upToOffset, LEO)) of the whole
 * batches the log returns (about `maxRecords`), and where the next read continues. Compacted logs
 * have gaps, so `nextOffset` comes from the last record returned, not from a count; with nothing
 * left below the limit it is the limit (or `fromOffset` when that is already past it).
 */
export function readRecords(log: PartitionLog, fromOffset: number, upToOffset: number, maxRecords: number): ReadResult {
  const limit = Math.min(upToOffset, log.logEndOffset);
  if (fromOffset >= limit) return { records: [], nextOffset: fromOffset };
  const batches = log.read(fromOffset, limit, maxRecords);
  const records = batches.flatMap((b) => b.records).filter((r) => r.offset >= fromOffset && r.offset < limit);
  const last = batches.length > 0 ? batches[batches.length - 1].records : [];
  const nextOffset = last.length > 0 ? Math.min(limit, Math.max(fromOffset, last[last.length - 1].offset + 1)) : limit;
  return { records, nextOffset };
}
