/**
 * The offsets of one share partition's window as runs: each run is a range of consecutive offsets in
 * one state with one delivery count (and, while acquired, one lease), so the memory of a window is
 * the number of distinct stretches, not the number of offsets (Kafka's `InFlightBatch` without the
 * per-offset split). Runs cover the window `[first, end)` without holes; neighbours that are equal in
 * every field are merged back by `normalize`.
 */

/** Kafka's `RecordState` ids (ARCHIVING is not used: there is no dead-letter topic to write first). */
export const RecordState = {
  AVAILABLE: 0,
  ACQUIRED: 1,
  ACKNOWLEDGED: 2,
  ARCHIVED: 4,
} as const;
export type RecordStateId = (typeof RecordState)[keyof typeof RecordState];

/** Why an offset was archived: a gap (no record), a reject, the delivery limit, or the log start passing it. */
export type ArchiveReason = 'gap' | 'rejected' | 'delivery-limit' | 'log-start';

/** A dead letter's reason, as operators see it (docs/protocol.md). */
export type DeadLetterReason = 'rejected' | 'delivery-limit';

/** One member's hold on the offsets one acquire gave it; RENEW swaps a new lease onto the renewed offsets. */
export interface Lease {
  readonly id: number;
  readonly memberId: string;
  /** When the lock ends (the shard's clock); a member that goes away has it brought to now. */
  deadline: number;
  /** When the offsets were leased (or renewed), for the oldest lease's age. */
  readonly acquiredAt: number;
}

/** A change still being written: its offsets are neither leasable nor acknowledgeable until it ends. */
export interface PendingChange {
  readonly id: number;
}

export interface Run {
  first: number;
  last: number;
  state: RecordStateId;
  count: number;
  /** The holder, while ACQUIRED; null otherwise. */
  lease: Lease | null;
  /** Why, while ARCHIVED; null otherwise. */
  reason: ArchiveReason | null;
  /** The write in flight that changed these offsets, or null. */
  pending: PendingChange | null;
}

export const isTerminal = (state: RecordStateId): boolean =>
  state === RecordState.ACKNOWLEDGED || state === RecordState.ARCHIVED;

export const isDeadLetterReason = (reason: ArchiveReason | null): reason is DeadLetterReason =>
  reason === 'rejected' || reason === 'delivery-limit';

function sameContent(a: Run, b: Run): boolean {
  return (
    a.state === b.state &&
    a.count === b.count &&
    a.lease === b.lease &&
    a.reason === b.reason &&
    a.pending === b.pending
  );
}

/** The index of the run holding `offset`, or -1 when the window does not hold it. */
export function runIndexOf(runs: readonly Run[], offset: number): number {
  let low = 0;
  let high = runs.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const run = runs[mid];
    if (offset < run.first) high = mid - 1;
    else if (offset > run.last) low = mid + 1;
    else return mid;
  }
  return -1;
}

/**
 * Splits runs so that `first` starts one and `last` ends one, and returns the index range `[from, to)`
 * of the runs that now cover exactly `[first, last]` (which the window must hold).
 */
export function isolate(runs: Run[], first: number, last: number): [number, number] {
  let from = runIndexOf(runs, first);
  if (runs[from].first < first) {
    const head = runs[from];
    runs.splice(from + 1, 0, { ...head, first });
    head.last = first - 1;
    from++;
  }
  let to = runIndexOf(runs, last);
  if (runs[to].last > last) {
    const tail = runs[to];
    runs.splice(to + 1, 0, { ...tail, first: last + 1 });
    tail.last = last;
  }
  to++;
  return [from, to];
}

/** Merges neighbours that are equal in every field, from index `from - 1` on (all of them by default). */
export function normalize(runs: Run[]): void {
  let write = 0;
  for (let read = 0; read < runs.length; read++) {
    const run = runs[read];
    const previous = write > 0 ? runs[write - 1] : undefined;
    if (previous && previous.last + 1 === run.first && sameContent(previous, run)) previous.last = run.last;
    else runs[write++] = run;
  }
  runs.length = write;
}

/** A copy of the runs covering `[first, last]`, clipped to it: what a change there can be taken back to. */
export function snapshotRange(runs: readonly Run[], first: number, last: number): Run[] {
  const copies: Run[] = [];
  for (let i = Math.max(0, runIndexOf(runs, first)); i < runs.length && runs[i].first <= last; i++) {
    const run = runs[i];
    copies.push({ ...run, first: Math.max(first, run.first), last: Math.min(last, run.last) });
  }
  return copies;
}

/** Offsets never delivered, available. */
export function newRun(first: number, last: number): Run {
  return { first, last, state: RecordState.AVAILABLE, count: 0, lease: null, reason: null, pending: null };
}

/** How many offsets of `runs` are leased (ACQUIRED, their write pending or not): the partition's offsets in flight. */
export function acquiredOffsets(runs: readonly Run[]): number {
  let acquired = 0;
  for (const run of runs) if (run.state === RecordState.ACQUIRED) acquired += run.last - run.first + 1;
  return acquired;
}

/**
 * Offsets per state and the oldest lease's age, for operators: `neverDelivered` offsets (past the window's
 * end, up to the reported end) count as available.
 */
export function summarizeRuns(runs: readonly Run[], neverDelivered: number, now: number) {
  const counts = { available: neverDelivered, acquired: 0, acknowledged: 0, archived: 0 };
  let oldest: number | undefined;
  for (const run of runs) {
    const size = run.last - run.first + 1;
    if (run.state === RecordState.AVAILABLE) counts.available += size;
    else if (run.state === RecordState.ACQUIRED) {
      counts.acquired += size;
      if (oldest === undefined || run.lease!.acquiredAt < oldest) oldest = run.lease!.acquiredAt;
    } else if (run.state === RecordState.ACKNOWLEDGED) counts.acknowledged += size;
    else counts.archived += size;
  }
  return { ...counts, oldestLeaseAgeMs: oldest === undefined ? null : now - oldest };
}
