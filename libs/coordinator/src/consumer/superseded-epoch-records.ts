import type { LogRecord } from '@cohort/replication';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { decodeConsumerGroupMetadataValue, decodeConsumerRecordKey } from './consumer-records';
import { valueToReplay } from './written-bytes';

/**
 * Drops, from the writes one heartbeat step hands to the shard, each group epoch record whose group gets
 * another epoch record with its history later in the same writes; returns how many it dropped.
 *
 * Why: every join of a burst bumps the group epoch, and every bump's record carries the group's whole
 * epoch history (`EpochHistory`, up to its capacity), so a group forming from empty wrote one history per
 * join (10,000 joins: about 16 MB of records, most of what forming wrote, then encoded, journaled and
 * cleaned). The writes of one step are run together in one turn and so go to the log as one append (the
 * shard's runtime: one turn, one batch), which commits, fails, replicates and is replayed as a whole, and
 * compaction keeps a key's last record: a record followed in the same append by a record of the same key
 * that sets every field it sets is never what a replay or a reader of the log ends with. Replaying the
 * append without it gives the same group (epoch, metadata hash and history come from the later record;
 * no other record's replay reads the group epoch), and the live state is unchanged: it applied every bump
 * when it was written. The epoch bumps stay Kafka's, one per join, as do the epochs members are given.
 *
 * Only records that carry a history are dropped, and only for a later one that carries one too (the
 * next epoch record of the group in log order: a tombstone between keeps it). A write is never emptied:
 * its completion (commit, metrics of its epoch events) runs only for a write with records.
 */
export function dropSupersededEpochRecords(runs: readonly CoordinatorResult<unknown>[]): number {
  const writes = writesInLogOrder(runs);
  /** groupId → whether the group's next epoch record, later in the log, is a value with a history. */
  const nextHasHistory = new Map<string, boolean>();
  let dropped = 0;
  for (let w = writes.length - 1; w >= 0; w--) {
    const records = writes[w].records;
    for (let i = records.length - 1; i >= 0; i--) {
      const epoch = epochRecordOf(records[i]);
      if (epoch === undefined) continue;
      if (epoch.hasHistory && nextHasHistory.get(epoch.groupId) === true && records.length > 1) {
        records.splice(i, 1);
        dropped++;
        continue;
      }
      nextHasHistory.set(epoch.groupId, epoch.hasHistory);
    }
  }
  return dropped;
}

/** The writes of `runs` in the order the shard appends them: each run's follow-ups, then its own records. */
function writesInLogOrder(runs: readonly CoordinatorResult<unknown>[]): CoordinatorResult<unknown>[] {
  const writes: CoordinatorResult<unknown>[] = [];
  for (const run of runs) {
    for (const followUp of run.followUps ?? []) if (appended(followUp)) writes.push(followUp);
    if (appended(run)) writes.push(run);
  }
  return writes;
}

/** A write whose records go to the log (one that could not be built appends nothing). */
function appended(write: CoordinatorResult<unknown>): boolean {
  return write.records.length > 0 && write.unwritable === undefined;
}

/** The group of a group epoch record (a tombstone has no history), or undefined for a record of another kind. */
function epochRecordOf(record: LogRecord): { groupId: string; hasHistory: boolean } | undefined {
  const key = decodeConsumerRecordKey(record.key);
  if (key?.type !== 'consumer-group-metadata') return undefined;
  // What the record was built from, not its bytes: a record dropped here is never encoded.
  const value = valueToReplay(record);
  const hasHistory = value !== null && decodeConsumerGroupMetadataValue(value).history !== undefined;
  return { groupId: key.groupId, hasHistory };
}
