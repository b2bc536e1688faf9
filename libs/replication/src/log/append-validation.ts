import { KafkaError } from '@cohort/protocol';
import type { LogRecord } from '../api/log-record';
import type { StoredBatch } from './partition-log';

/** Largest offset or epoch a frame can hold exactly (53-bit offsets, int32 epochs). */
const MAX_EPOCH = 0x7fff_ffff;

/**
 * Rejects malformed records before anything is appended, so a bad append changes nothing
 * (the log never holds a record it could not write or read back).
 */
export function validateRecords(records: LogRecord[]): void {
  if (!Array.isArray(records) || records.length === 0) {
    throw KafkaError.of('INVALID_REQUEST', 'an append needs at least one record');
  }
  for (let i = 0; i < records.length; i++) {
    const r = records[i];
    if (!r || !Buffer.isBuffer(r.key)) throw KafkaError.of('INVALID_REQUEST', `record ${i}: key must be a Buffer`);
    if (r.value !== null && !Buffer.isBuffer(r.value)) {
      throw KafkaError.of('INVALID_REQUEST', `record ${i}: value must be a Buffer or null (tombstone)`);
    }
    if (typeof r.timestamp !== 'number' || !Number.isFinite(r.timestamp)) {
      throw KafkaError.of('INVALID_REQUEST', `record ${i}: timestamp must be a finite number`);
    }
  }
}

/** Leader epochs never go down along the log (docs/guarantees.md, invariant I2). */
export function validateLeaderEpoch(leaderEpoch: number, latestEpoch: number): void {
  if (!Number.isInteger(leaderEpoch) || leaderEpoch < 0 || leaderEpoch > MAX_EPOCH) {
    throw KafkaError.of('INVALID_REQUEST', `leader epoch ${leaderEpoch} is not an int32 >= 0`);
  }
  if (leaderEpoch < latestEpoch) {
    throw KafkaError.of(
      'FENCED_LEADER_EPOCH',
      `append in epoch ${leaderEpoch} but the log already holds epoch ${latestEpoch}`,
    );
  }
}

/**
 * Follower batches keep the leader's offsets and epochs (I7): they start at or after the log end
 * (after it only when the leader's log has a compaction gap there), offsets strictly increase and
 * epochs never decrease. Returns the log end offset after the batches.
 */
export function validateFollowerBatches(batches: StoredBatch[], logEndOffset: number, latestEpoch: number): number {
  let next = logEndOffset;
  let epoch = latestEpoch;
  for (const batch of batches) {
    if (!batch || !Array.isArray(batch.records) || batch.records.length === 0) {
      throw KafkaError.of('INVALID_REQUEST', 'a follower batch must hold at least one record');
    }
    validateRecords(batch.records);
    validateLeaderEpoch(batch.leaderEpoch, epoch);
    if (!Number.isSafeInteger(batch.baseOffset) || batch.baseOffset < next) {
      throw KafkaError.of(
        'INVALID_REQUEST',
        `follower batch at offset ${batch.baseOffset} but the log end offset is ${next}`,
      );
    }
    let previous = batch.baseOffset - 1;
    for (const r of batch.records) {
      if (!Number.isSafeInteger(r.offset) || r.offset <= previous || r.offset - batch.baseOffset > 0xffff_ffff) {
        throw KafkaError.of(
          'INVALID_REQUEST',
          `follower batch at ${batch.baseOffset}: record offset ${r.offset} out of order`,
        );
      }
      if (r.leaderEpoch !== batch.leaderEpoch) {
        throw KafkaError.of(
          'INVALID_REQUEST',
          `follower batch at ${batch.baseOffset}: record epoch differs from the batch epoch`,
        );
      }
      previous = r.offset;
    }
    next = previous + 1;
    epoch = batch.leaderEpoch;
  }
  return next;
}
