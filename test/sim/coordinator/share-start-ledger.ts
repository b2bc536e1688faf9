import {
  decodeSharePartitionSnapshot,
  decodeSharePartitionStateKey,
} from '@cohort/coordinator/share/share-state-records';

/** Where a share partition's SPSO stood: its state epoch and start offset, and where that was seen. */
interface StartPoint {
  epoch: number;
  start: number;
  /** The __consumer_offsets offset of the committed record, or the coordinator incarnation that served it. */
  seenAt: string;
}

/**
 * KIP-932's SPSO rule (docs/guarantees.md, share groups): a share partition's start offset never moves
 * back, and its state epoch never goes down; only a new state epoch (a redelivery of dead letters below
 * SPSO, an offset reset) may bring SPSO back. Checked on two sources, after every step of a run:
 *
 * - the committed log: every share-state record of `__consumer_offsets`, in log order, the first time
 *   it is seen below a replica's HW. This is what survives any failover, so each record must hold SPSO
 *   at or past the previous record of its key (same state epoch) or carry a higher epoch. The raw
 *   sequence is checked, so a coordinator that wrote a state behind its own is caught when the record
 *   commits, not only once a new leader loads it.
 * - the coordinator that leads now: its served state must never be behind what is committed (a new
 *   leader's load must bring back every committed SPSO), and one incarnation (node and leader epoch)
 *   never moves SPSO back. Only the metadata leader, active in the metadata's leader epoch, is read: a
 *   deposed leader that has not heard yet still serves an old state nobody can commit.
 *
 * Uncommitted in-memory states of earlier leaders are deliberately not compared across a failover: a
 * redelivery is applied before its write commits, and a leader that dies before the commit leaves its
 * successor with the previous (lower) state epoch, which is correct.
 *
 * A group deleted and created again starts a new history: its state tombstones end the committed one,
 * and the served one starts over once the deletion is answered. While a deletion is unanswered, and
 * after one whose answer was lost (until the next committed record of each key says which history
 * goes on), the served state is not compared.
 */
export class ShareStartLedger {
  private readonly committed = new Map<string, StartPoint & { offset: number }>();
  private readonly served = new Map<string, StartPoint>();
  /** Deletions of the group sent and not yet answered. */
  private deleting = 0;
  /** Keys a deletion may have ended unseen: served states are not compared with committed ones until their next record. */
  private readonly uncertain = new Set<string>();
  readonly violations: string[] = [];
  readonly stats = { committedStates: 0, servedReads: 0, epochRises: 0 };

  private violate(finding: string): void {
    if (!this.violations.includes(finding) && this.violations.length < 50) this.violations.push(finding);
  }

  /**
   * A record of `__consumer_offsets` partition `partition` seen committed at `offset`. Records of other
   * kinds are ignored; a tombstone (the state deleted) ends the key's history.
   */
  committedRecord(partition: number, offset: number, key: Buffer, value: Buffer | null): void {
    let parsedKey: unknown;
    try {
      parsedKey = JSON.parse(key.toString('utf8'));
    } catch {
      return;
    }
    const stateKey = decodeSharePartitionStateKey(parsedKey);
    if (!stateKey) return;
    const tp = `${stateKey.groupId}/${stateKey.topic}-${stateKey.partition}`;
    const previous = this.committed.get(tp);
    // A record filled in below one already seen (another replica's uncompacted copy) is older history.
    if (previous && offset <= previous.offset) return;
    this.uncertain.delete(tp);
    if (value === null) {
      this.committed.delete(tp);
      return;
    }
    const snapshot = decodeSharePartitionSnapshot(value);
    this.stats.committedStates++;
    const seenAt = `committed @${partition}:${offset}`;
    if (previous) this.compare(tp, previous, snapshot.stateEpoch, snapshot.startOffset, seenAt);
    if (previous && snapshot.stateEpoch > previous.epoch) this.stats.epochRises++;
    this.committed.set(tp, { epoch: snapshot.stateEpoch, start: snapshot.startOffset, seenAt, offset });
  }

  /** The leading coordinator `incarnation` serves `tp` at state epoch `epoch` and SPSO `start`. */
  servedState(incarnation: string, tp: string, epoch: number, start: number): void {
    if (this.deleting > 0) return;
    this.stats.servedReads++;
    const seenAt = `served by ${incarnation}`;
    const committed = this.committed.get(tp);
    if (
      committed &&
      !this.uncertain.has(tp) &&
      (epoch < committed.epoch || (epoch === committed.epoch && start < committed.start))
    )
      this.violate(
        `${tp}: ${seenAt} at SPSO ${start} (state epoch ${epoch}), behind ${committed.start} (state epoch ${committed.epoch}) ${committed.seenAt}`,
      );
    const key = `${incarnation}\u0000${tp}`;
    const before = this.served.get(key);
    if (before) this.compare(tp, before, epoch, start, seenAt);
    this.served.set(key, { epoch, start, seenAt });
  }

  /** An operator's DeleteGroups of `groupId` is sent. */
  deletionSent(): void {
    this.deleting++;
  }

  /**
   * The deletion was answered: `refused` changed nothing; after `deleted` the group that may be created
   * again is served from a fresh state; after `maybe` either may be served.
   */
  deletionAnswered(groupId: string, outcome: 'deleted' | 'refused' | 'maybe'): void {
    this.deleting--;
    if (outcome === 'refused') return;
    const prefix = `${groupId}/`;
    for (const key of [...this.served.keys()])
      if (key.slice(key.indexOf('\u0000') + 1).startsWith(prefix)) this.served.delete(key);
    if (outcome === 'maybe') for (const tp of this.committed.keys()) if (tp.startsWith(prefix)) this.uncertain.add(tp);
  }

  private compare(tp: string, before: StartPoint, epoch: number, start: number, seenAt: string): void {
    if (epoch < before.epoch)
      this.violate(`${tp}: state epoch went back from ${before.epoch} (${before.seenAt}) to ${epoch} (${seenAt})`);
    else if (epoch === before.epoch && start < before.start)
      this.violate(
        `${tp}: SPSO moved back from ${before.start} (${before.seenAt}) to ${start} (${seenAt}) in state epoch ${epoch}`,
      );
  }
}
