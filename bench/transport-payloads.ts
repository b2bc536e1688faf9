import type { StoredBatch } from '@cohort/replication';
import type { FetchRequest, FetchResponse } from '@cohort/replication/testing';

/**
 * Realistic follower Fetch traffic for the transport benchmarks: a follower fetches the partitions it
 * follows from one leader (50 offsets partitions over 3 nodes: about 17 per leader); records are
 * offset-commit sized (key ~48 bytes: group/topic/partition; value ~96 bytes: offset, epoch, metadata).
 */
export const PARTITIONS_PER_LEADER = 17;

export function fetchRequest(): FetchRequest {
  return {
    replicaId: 2,
    replicaEpoch: 41,
    maxWaitMs: 500,
    partitions: Array.from({ length: PARTITIONS_PER_LEADER }, (_, i) => ({
      partition: i * 3,
      currentLeaderEpoch: 7,
      fetchOffset: 123_456 + i,
      lastFetchedEpoch: 7,
      logStartOffset: 100_000,
      maxRecords: 1_000,
    })),
  };
}

/** `recordsPerPartition` records in one batch for each partition (0 = an empty, caught-up fetch). */
export function fetchResponse(recordsPerPartition: number): FetchResponse {
  return {
    errorCode: 0,
    partitions: Array.from({ length: PARTITIONS_PER_LEADER }, (_, i) => ({
      partition: i * 3,
      errorCode: 0,
      highWatermark: 123_456 + i,
      logStartOffset: 100_000,
      logEndOffset: 123_456 + i + recordsPerPartition,
      batches: recordsPerPartition === 0 ? [] : [batch(123_456 + i, recordsPerPartition)],
    })),
  };
}

function batch(baseOffset: number, records: number): StoredBatch {
  return {
    baseOffset,
    leaderEpoch: 7,
    records: Array.from({ length: records }, (_, j) => ({
      key: bytes(48, baseOffset * 7919 + j),
      value: bytes(96, baseOffset * 104_729 + j),
      timestamp: 1_700_000_000_000 + j,
      offset: baseOffset + j,
      leaderEpoch: 7,
    })),
  };
}

export const PAYLOADS = [
  { name: 'empty fetch (caught up)', records: 0 },
  { name: 'fetch, 10 records/partition (~25 KB)', records: 10 },
  { name: 'catch-up fetch, 1000 records/partition (~2.5 MB)', records: 1_000 },
];

/** Deterministic pseudo-random bytes, so that both processes build the same payload and can compare. */
function bytes(length: number, seed: number): Buffer {
  const out = Buffer.allocUnsafe(length);
  let x = (seed ^ 0x9e3779b9) >>> 0;
  for (let i = 0; i < length; i++) {
    x = (Math.imul(x, 1_664_525) + 1_013_904_223) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}
