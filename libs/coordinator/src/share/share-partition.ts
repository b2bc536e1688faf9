export type { DeadLetterRange } from './share-partition-dead-letters';
import { ErrorCode } from '@cohort/protocol';
import {
  acquiredOffsets,
  summarizeRuns,
  type ArchiveReason,
  isDeadLetterReason,
  isolate,
  isTerminal,
  type Lease,
  newRun,
  normalize,
  type PendingChange,
  RecordState,
  type Run,
  snapshotRange,
} from './share-partition-runs';
import {
  addDeadLetter,
  type DeadLetterRange,
  listDeadLetters,
  redeliverDeadLetters,
} from './share-partition-dead-letters';
import { archiveBelowLogStart } from './share-partition-log-start';
import { DeliveryHorizon } from './share-partition-horizon';
import {
  type AckBatch,
  type AckType,
  AcknowledgeType,
  forEachTypeSpan,
  validateAckBatches,
  whyNotHeld,
} from './share-acknowledge-batches';

/** The limits a share partition works under (GROUP_SHARE_* settings). */
export interface SharePartitionLimits {
  /** GROUP_SHARE_DELIVERY_COUNT_LIMIT: deliveries before an offset is archived. */
  deliveryCountLimit: number;
  /** GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS: the most offsets past SPSO in the window. */
  maxRecordLocks: number;
  /** GROUP_SHARE_RECORD_LOCK_DURATION_MS: how long a lease holds its offsets unless renewed. */
  lockDurationMs: number;
}

/** A leased range as the member receives it. */
export interface AcquiredRange {
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
}

/** A change waiting for its write: what its offsets go back to if the write fails. */
export interface ShareChange {
  readonly pending: PendingChange;
  readonly before: Run[];
}

let nextLeaseId = 0;
let nextChangeId = 0;

/**
 * One share partition (group, topic, partition): Kafka's `SharePartition` state machine over offsets
 * only. The window `[startOffset, endOffset)` holds every offset ever leased and not yet behind SPSO,
 * as runs (share-partition-runs.ts); offsets from `endOffset` up to the reported end are available and
 * never delivered (the log may count those below the delivery horizon delivered once). Pure: time is
 * passed in, and the caller persists `durable` views and arms the lock timer at `nextDeadline`.
 *
 * Every change that must be written (a lease, an acknowledgement, a release) marks its offsets with a
 * pending change, which `complete` commits or takes back: while pending, the offsets are neither leased,
 * acknowledged nor expired, and SPSO does not pass them (Kafka's in-flight state transitions).
 */
export class SharePartition {
  runs: Run[];
  deadLetters: DeadLetterRange[];
  /** The end producers reported (exclusive), never lowered. */
  reportedEnd: number;
  /** Where new offsets can be leased without a write (share-partition-horizon.ts). */
  readonly horizon: DeliveryHorizon;

  constructor(
    public stateEpoch: number,
    public startOffset: number,
    public endOffset: number = startOffset,
    runs: Run[] = [],
    deadLetters: DeadLetterRange[] = [],
  ) {
    this.runs = runs;
    this.deadLetters = deadLetters;
    this.reportedEnd = endOffset;
    // A loaded record's horizon is inside its window now, as offsets available at count 1.
    this.horizon = new DeliveryHorizon(endOffset);
  }

  /** A report of the partition's end offset: `max(old, new)`. True when it grew. */
  reportEnd(end: number): boolean {
    if (end <= this.reportedEnd) return false;
    this.reportedEnd = end;
    return true;
  }

  /** The last offset (inclusive) new offsets may be leased up to: the reported end and the window limit. */
  private newOffsetsLimit(limits: SharePartitionLimits): number {
    return Math.min(this.reportedEnd - 1, this.windowLast(limits));
  }

  /** The window's last offset (inclusive): nothing past it is leased, not even offsets available again. */
  private windowLast(limits: SharePartitionLimits): number {
    return this.startOffset + limits.maxRecordLocks - 1;
  }

  /** Offsets that may still go in flight: counted only once SPSO moved back (a redelivery) and the leased
   * span `[startOffset, endOffset)` outgrew the window; within it the window's bounds suffice. */
  private inFlightRoom(limits: SharePartitionLimits): number {
    if (this.endOffset - this.startOffset <= limits.maxRecordLocks) return Infinity;
    return limits.maxRecordLocks - acquiredOffsets(this.runs);
  }

  /** Whether an acquire would lease something now. */
  hasLeasable(limits: SharePartitionLimits): boolean {
    if (this.inFlightRoom(limits) <= 0) return false;
    if (this.endOffset <= this.newOffsetsLimit(limits)) return true;
    const windowLast = this.windowLast(limits);
    return this.runs.some(
      (run) => run.first <= windowLast && run.state === RecordState.AVAILABLE && run.pending === null,
    );
  }

  /**
   * Leases available offsets to `memberId` in ascending order: first those in the window (released or
   * expired), then new ones up to the reported end, all at most `maxRecordLocks` past SPSO; at most
   * `budget` offsets, in ranges of at most `batchSize`, and never more than `maxRecordLocks` in flight
   * at once (docs/protocol.md: once a redelivery moved SPSO back, offsets leased before it may lie beyond the
   * window, and they count too). Each leased offset's delivery count goes up by one; an offset on its
   * last delivery is leased alone. The change is pending until `complete`; it is null (with leases) when
   * there is nothing to write: every offset leased is new and below the committed horizon, whose record
   * already counts it delivered once, so the lease may leave at once.
   */
  acquire(
    memberId: string,
    budget: number,
    batchSize: number,
    now: number,
    limits: SharePartitionLimits,
  ): { leases: AcquiredRange[]; change: ShareChange | null } {
    const plan: { first: number; last: number; count: number }[] = [];
    budget = Math.min(budget, this.inFlightRoom(limits));
    const windowLast = this.windowLast(limits);
    let taken = 0;
    let lastAttempt = false;
    // Offsets that come back (or redelivered dead letters, counted from zero) have their count written.
    let covered = true;
    for (const run of this.runs) {
      if (taken >= budget || run.first > windowLast) break;
      if (run.state !== RecordState.AVAILABLE || run.pending !== null) continue;
      const count = run.count + 1;
      if (count >= limits.deliveryCountLimit) {
        // A last attempt goes alone, so a poison offset cannot take others with it to the archive.
        if (taken === 0) plan.push({ first: run.first, last: run.first, count });
        taken += 1;
        lastAttempt = true;
        covered = false;
        break;
      }
      const last = Math.min(run.last, windowLast, run.first + (budget - taken) - 1);
      plan.push({ first: run.first, last, count });
      taken += last - run.first + 1;
      covered = false;
    }
    const newLast = Math.min(this.newOffsetsLimit(limits), this.endOffset + (budget - taken) - 1);
    if (!lastAttempt && newLast >= this.endOffset) {
      this.runs.push(newRun(this.endOffset, newLast));
      plan.push({ first: this.endOffset, last: newLast, count: 1 });
      this.endOffset = newLast + 1;
      if (newLast >= this.horizon.committed) covered = false;
    }
    if (plan.length === 0) return { leases: [], change: null };
    const lease: Lease = { id: ++nextLeaseId, memberId, deadline: now + limits.lockDurationMs, acquiredAt: now };
    const change: ShareChange | null = covered ? null : { pending: { id: ++nextChangeId }, before: [] };
    const pending = change === null ? null : change.pending;
    const leases: AcquiredRange[] = [];
    for (const { first, last, count } of plan) {
      const [from, to] = isolate(this.runs, first, last);
      for (let i = from; i < to; i++) {
        const run = this.runs[i];
        change?.before.push({ ...run });
        Object.assign(run, { state: RecordState.ACQUIRED, count, lease, reason: null, pending });
      }
      for (let f = first; f <= last; f += batchSize)
        leases.push({ firstOffset: f, lastOffset: Math.min(last, f + batchSize - 1), deliveryCount: count });
    }
    normalize(this.runs);
    return { leases, change };
  }

  /**
   * Applies one member's acknowledgements of this partition, all or nothing (Kafka's
   * `testAcknowledgeRollbackWithSubsetError`): every offset named at or past SPSO must be ACQUIRED by
   * `memberId`, unexpired and not in a pending change, else 42 and nothing changes. Offsets below SPSO
   * are already done and are skipped. RENEW swaps a fresh lease onto its offsets and is not written.
   */
  acknowledge(
    memberId: string,
    batches: readonly AckBatch[],
    now: number,
    limits: SharePartitionLimits,
  ): { errorCode: number; message?: string; change: ShareChange | null } {
    const invalid = validateAckBatches(batches);
    if (invalid) return { errorCode: ErrorCode.INVALID_REQUEST, message: invalid, change: null };
    for (const batch of batches) {
      const first = Math.max(batch.firstOffset, this.startOffset);
      if (first > batch.lastOffset) continue;
      const refused = whyNotHeld(this, memberId, first, batch.lastOffset, now);
      if (refused)
        return {
          errorCode: ErrorCode.INVALID_REQUEST,
          message: refused,
          change: null,
        };
    }
    const change: ShareChange = { pending: { id: ++nextChangeId }, before: [] };
    let renewed: Lease | undefined;
    for (const batch of batches) {
      forEachTypeSpan(batch, this.startOffset, (first, last, type) => {
        if (type === AcknowledgeType.RENEW) {
          renewed ??= { id: ++nextLeaseId, memberId, deadline: now + limits.lockDurationMs, acquiredAt: now };
          this.set(first, last, { lease: renewed });
          return;
        }
        change.before.push(...snapshotRange(this.runs, first, last));
        this.transition(first, last, type, change.pending, limits);
      });
    }
    normalize(this.runs);
    return { errorCode: ErrorCode.NONE, change: change.before.length > 0 ? change : null };
  }

  private transition(first: number, last: number, type: AckType, pending: PendingChange, limits: SharePartitionLimits) {
    const [from, to] = isolate(this.runs, first, last);
    for (let i = from; i < to; i++) {
      const run = this.runs[i];
      run.lease = null;
      run.pending = pending;
      if (type === AcknowledgeType.ACCEPT) run.state = RecordState.ACKNOWLEDGED;
      else if (type === AcknowledgeType.RELEASE) backToAvailable(run, limits);
      else archive(run, type === AcknowledgeType.GAP ? 'gap' : 'rejected');
    }
  }

  private set(first: number, last: number, fields: Partial<Run>): void {
    const [from, to] = isolate(this.runs, first, last);
    for (let i = from; i < to; i++) Object.assign(this.runs[i], fields);
  }

  /**
   * A pending change's write ended: committed, its offsets take their new state for good; failed, they
   * go back to what they were, except that a lease whose lock expired meanwhile (or whose member left)
   * ends: AVAILABLE, or ARCHIVED at the delivery limit (Kafka's rollback after `hasExpired`).
   */
  complete(change: ShareChange, ok: boolean, now: number, limits: SharePartitionLimits): void {
    const { pending } = change;
    if (ok) {
      for (const run of this.runs) if (run.pending === pending) run.pending = null;
    } else {
      for (const before of change.before) {
        if (before.last < this.startOffset || before.first >= this.endOffset) continue;
        const first = Math.max(before.first, this.startOffset);
        const [from, to] = isolate(this.runs, first, before.last);
        for (let i = from; i < to; i++) {
          const run = this.runs[i];
          if (run.pending !== pending) continue;
          Object.assign(run, { state: before.state, count: before.count, lease: before.lease, reason: before.reason });
          run.pending = null;
          if (run.state === RecordState.ACQUIRED && run.lease!.deadline <= now) backToAvailable(run, limits);
        }
      }
    }
    normalize(this.runs);
    this.advanceStart();
  }

  /** Ends every lease whose lock is due (not those of a pending change): true when something changed. */
  expire(now: number, limits: SharePartitionLimits): boolean {
    let changed = false;
    for (const run of this.runs) {
      if (run.state !== RecordState.ACQUIRED || run.pending !== null || run.lease!.deadline > now) continue;
      backToAvailable(run, limits);
      changed = true;
    }
    if (changed) {
      normalize(this.runs);
      this.advanceStart();
    }
    return changed;
  }

  /** The member went away: its leases end now (those being written end when their write does). */
  releaseMember(memberId: string, now: number, limits: SharePartitionLimits): boolean {
    for (const run of this.runs)
      if (run.lease?.memberId === memberId && run.lease.deadline > now) run.lease.deadline = now;
    return this.expire(now, limits);
  }

  /** The earliest lock deadline of a lease that can expire now, for the lock timer. */
  nextDeadline(): number | undefined {
    let next: number | undefined;
    for (const run of this.runs)
      if (
        run.state === RecordState.ACQUIRED &&
        run.pending === null &&
        (next === undefined || run.lease!.deadline < next)
      )
        next = run.lease!.deadline;
    return next;
  }

  /** The log start passed `logStart`: what was available below it is archived and SPSO moves on. */
  reportLogStart(logStart: number): boolean {
    if (!archiveBelowLogStart(this, logStart)) return false;
    this.advanceStart();
    return true;
  }

  /** Available offsets delivered `deliveryCountLimit` times (a lowered limit, a replayed state) are archived. */
  archiveOverLimit(limits: SharePartitionLimits): boolean {
    let changed = false;
    for (const run of this.runs)
      if (run.state === RecordState.AVAILABLE && run.pending === null && run.count >= limits.deliveryCountLimit) {
        archive(run, 'delivery-limit');
        changed = true;
      }
    if (changed) {
      normalize(this.runs);
      this.advanceStart();
    }
    return changed;
  }

  /** SPSO moves past every leading offset that is acknowledged or archived (and not being written). */
  advanceStart(): void {
    let drop = 0;
    while (drop < this.runs.length && isTerminal(this.runs[drop].state) && this.runs[drop].pending === null) {
      const run = this.runs[drop++];
      if (isDeadLetterReason(run.reason)) addDeadLetter(this.deadLetters, run.first, run.last, run.reason, run.count);
    }
    if (drop > 0) this.runs.splice(0, drop);
    this.startOffset = this.runs.length > 0 ? this.runs[0].first : this.endOffset;
  }

  /** Archived ranges a reject or the delivery limit put there, below SPSO and in the window, ascending. */
  deadLetterList(): DeadLetterRange[] {
    return listDeadLetters(this);
  }

  /**
   * Dead letters in `[first, last]` become available again, counted from zero (the one way an archived
   * offset comes back), under a new state epoch; those below SPSO bring SPSO back. Returns how many came back.
   */
  redeliver(first: number, last: number): number {
    return redeliverDeadLetters(this, first, last);
  }

  /** Offsets per state and the oldest lease's age, for operators. */
  summary(now: number) {
    return summarizeRuns(this.runs, Math.max(0, this.reportedEnd - this.endOffset), now);
  }
}

/** Back to AVAILABLE at the same count, or ARCHIVED when that count reached the delivery limit. */
function backToAvailable(run: Run, limits: SharePartitionLimits): void {
  run.lease = null;
  if (run.count >= limits.deliveryCountLimit) archive(run, 'delivery-limit');
  else {
    run.state = RecordState.AVAILABLE;
    run.reason = null;
  }
}

function archive(run: Run, reason: ArchiveReason): void {
  run.state = RecordState.ARCHIVED;
  run.lease = null;
  run.reason = reason;
}
