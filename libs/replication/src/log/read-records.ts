import type { StoredRecord } from '../api/log-record';
import type { ReadResult, RecordVisitor } from '../api/partition-store.port';
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

/**
 * PartitionStore.scan over one log: the records `readRecords` would return, visited in order as their
 * bytes in place (without a record object or a copy, where the log can: the segment files), and the
 * same `nextOffset`.
 */
export function scanRecords(
  log: PartitionLog,
  fromOffset: number,
  upToOffset: number,
  maxRecords: number,
  visit: RecordVisitor,
): number {
  const limit = Math.min(upToOffset, log.logEndOffset);
  if (fromOffset >= limit) return fromOffset;
  let lastRead = -1;
  if (log.scan) {
    log.scan(fromOffset, limit, maxRecords, (offset, buf, keyStart, keyEnd, valueStart, valueEnd) => {
      lastRead = offset;
      if (offset < fromOffset || offset >= limit) return;
      if (valueStart < 0) visit(offset, buf, keyStart, keyEnd, null, 0, 0);
      else visit(offset, buf, keyStart, keyEnd, buf, valueStart, valueEnd);
    });
  } else {
    for (const batch of log.read(fromOffset, limit, maxRecords)) {
      for (const r of batch.records) {
        lastRead = r.offset;
        if (r.offset >= fromOffset && r.offset < limit)
          visit(r.offset, r.key, 0, r.key.length, r.value, 0, r.value === null ? 0 : r.value.length);
      }
    }
  }
  return lastRead >= 0 ? Math.min(limit, Math.max(fromOffset, lastRead + 1)) : limit;
}
