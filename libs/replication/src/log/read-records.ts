import type { StoredRecord } from '../api/log-record';
import type { ReadResult } from '../api/partition-store.port';
import type { PartitionLog } from './partition-log';

/**
 * PartitionStore.read over one log: the records in [fromOffset, min(upToOffset, LEO)) of the whole
 * batches the log returns (about `maxRecords`), and where the next read continues. Compacted logs
 * have gaps, so `nextOffset` comes from the last record returned, not from a count; with nothing
 * left below the limit it is the limit (or `fromOffset` when that is already past it). The reader
 * (the coordinator's load) decodes each record at once, so keys and values share the read buffer.
 */
export function readRecords(log: PartitionLog, fromOffset: number, upToOffset: number, maxRecords: number): ReadResult {
  const limit = Math.min(upToOffset, log.logEndOffset);
  if (fromOffset >= limit) return { records: [], nextOffset: fromOffset };
  const batches = log.read(fromOffset, limit, maxRecords, { shareBuffers: true });
  const records: StoredRecord[] = [];
  let lastRead = -1;
  for (const batch of batches) {
    for (const r of batch.records) {
      if (r.offset >= fromOffset && r.offset < limit) records.push(r);
      lastRead = r.offset;
    }
  }
  const nextOffset = lastRead >= 0 ? Math.min(limit, Math.max(fromOffset, lastRead + 1)) : limit;
  return { records, nextOffset };
}
