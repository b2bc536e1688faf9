import type { LogRecord } from '@cohort/replication';
import { type CoordinatorResult, PARKED, type WriteOutcome } from '../runtime/coordinator-result';
import type { SharePartitionLimits } from './share-partition';
import type { ShareSlot, SlotChange } from './share-slot';
import { sharePartitionStateKey, sharePartitionStateValue } from './share-state-records';
import { snapshotOf } from './share-state-snapshot';

/** What the writer asks of the share partitions it writes. */
export interface ShareStateWriterHost {
  readonly now: number;
  readonly limits: SharePartitionLimits;
  /** A slot's write ended: its lock timer and held acquires are seen to. */
  afterChange(slot: ShareSlot): void;
}

/**
 * A slot's record in the runtime's open batch, not yet encoded: later writes of the slot in the same
 * turn join it (their changes are in it once it is encoded) and end when it does.
 */
interface TurnRecord {
  readonly slot: ShareSlot;
  readonly record: LogRecord;
  encoded: boolean;
  /** The delivery horizon the record holds, once encoded: the slot's once the record commits. */
  horizon: number;
  readonly waiters: ((outcome: WriteOutcome) => void)[];
}

/** The outcome of a write with nothing to write: settled at once, as committed. */
const NOTHING_WRITTEN: WriteOutcome = Object.freeze({ ok: true, baseOffset: -1, lastOffset: -1 });

/**
 * The snapshot writes of one shard's share partitions: each write carries the state records of the
 * slots it touched, and when it ends its changes are committed or taken back and the slots seen to.
 * A slot has at most one record in the runtime's open batch (`turn`).
 */
export class ShareStateWriter {
  /** The slots with a record in the open batch, not yet encoded. */
  private readonly turn = new Map<ShareSlot, TurnRecord>();

  constructor(private readonly host: ShareStateWriterHost) {}

  /**
   * The write of `touched` slots' snapshots. When it ends, every change it carries is committed or taken
   * back, lock timers are re-armed, held acquires are woken where offsets became leasable, and `then`
   * runs. Nothing to write: all of that happens at once and the result writes nothing.
   *
   * A slot has at most one record in the runtime's open batch, encoded when the batch is appended, so
   * it holds every change the turn made to the slot and a turn of N acquires and acknowledgements on a
   * partition encodes its snapshot once, not N times. A write whose slots all have a record there adds
   * none: it ends when those records do, and its result waits for the writes already handed over.
   */
  write(
    touched: Iterable<ShareSlot>,
    changes: readonly SlotChange[],
    then: (outcome: WriteOutcome) => void,
  ): CoordinatorResult<never> {
    const slots = distinct(touched);
    if (slots.length === 0) {
      // Nothing to write (a lease under the committed horizon): settled at once, nothing allocated for a write.
      this.settle(changes, slots, then, NOTHING_WRITTEN);
      return PARKED;
    }
    const records: LogRecord[] = [];
    const own: TurnRecord[] = [];
    const joined: TurnRecord[] = [];
    for (const slot of slots) {
      const open = this.turn.get(slot);
      if (open !== undefined && !open.encoded) joined.push(open);
      else {
        const entry = this.openRecord(slot);
        own.push(entry);
        records.push(entry.record);
      }
    }
    const settle = (outcome: WriteOutcome): void => this.settle(changes, slots, then, outcome);
    // Settles once its own records and every record it joined have: failed if any of them failed.
    let waiting = joined.length + (records.length > 0 ? 1 : 0);
    let failed: WriteOutcome | undefined;
    const arrived = (outcome: WriteOutcome): void => {
      if (!outcome.ok) failed ??= outcome;
      if (--waiting === 0) settle(failed ?? outcome);
    };
    for (const entry of joined) entry.waiters.push(arrived);
    if (records.length === 0) return { records, awaitsPendingWrites: true };
    return {
      records,
      appendFuture: (outcome) => {
        for (const entry of own) {
          if (this.turn.get(entry.slot) === entry) this.turn.delete(entry.slot);
          // Before the changes settle: an acquire woken by them may lease under the new horizon.
          if (outcome.ok && entry.encoded) entry.slot.state.horizon.commit(entry.horizon);
        }
        arrived(outcome);
        // Emptied as they are called: the record (through its value getter, this entry) outlives the write in
        // the runtime's batches, and each waiter reaches a joined write's request and answer, then promoted.
        for (const entry of own) for (const waiter of entry.waiters.splice(0)) waiter(outcome);
      },
    };
  }

  /** The shard stopped leading: records not yet encoded are forgotten with it. */
  clear(): void {
    this.turn.clear();
  }

  /** A write ended: its changes committed or taken back, its slots' timers and held acquires seen to, then `then`. */
  private settle(
    changes: readonly SlotChange[],
    slots: readonly ShareSlot[],
    then: (outcome: WriteOutcome) => void,
    outcome: WriteOutcome,
  ): void {
    const { now, limits } = this.host;
    for (const { slot, change } of changes) slot.state.complete(change, outcome.ok, now, limits);
    for (const slot of slots) this.host.afterChange(slot);
    then(outcome);
  }

  /** A slot's record for the open batch, its snapshot taken when the batch is appended (its value read). */
  private openRecord(slot: ShareSlot): TurnRecord {
    const now = this.host.now;
    const turn = this.turn;
    let value: Buffer | null = null;
    const limits = this.host.limits;
    const entry: TurnRecord = {
      slot,
      encoded: false,
      horizon: 0,
      waiters: [],
      record: {
        key: sharePartitionStateKey(slot.groupId, slot.topic, slot.partition),
        timestamp: now,
        get value(): Buffer | null {
          if (!entry.encoded) {
            entry.encoded = true;
            if (turn.get(slot) === entry) turn.delete(slot);
            const state = slot.state;
            entry.horizon = state.horizon.toWrite(state.endOffset, state.reportedEnd, limits.maxRecordLocks);
            value = sharePartitionStateValue(snapshotOf(state, entry.horizon));
          }
          return value;
        },
      },
    };
    turn.set(slot, entry);
    return entry;
  }
}

/** `touched` without repeats, in order; an array of at most one slot as it is (nearly every write's). */
function distinct(touched: Iterable<ShareSlot>): readonly ShareSlot[] {
  if (Array.isArray(touched) && touched.length <= 1) return touched as readonly ShareSlot[];
  return [...new Set(touched)];
}
