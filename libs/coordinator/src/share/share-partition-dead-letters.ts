import {
  type DeadLetterReason,
  isDeadLetterReason,
  isolate,
  newRun,
  normalize,
  RecordState,
  type Run,
} from './share-partition-runs';

/** Archived offsets kept for operators after SPSO passed them (dead letters, docs/protocol.md). */
export interface DeadLetterRange {
  first: number;
  last: number;
  reason: DeadLetterReason;
  count: number;
}

/** The most dead-letter ranges a partition keeps below SPSO; beyond it the oldest are forgotten (they stay done). */
export const MAX_DEAD_LETTER_RANGES = 1000;

/** What of a share partition its dead letters concern. */
export interface DeadLetterWindow {
  runs: Run[];
  deadLetters: DeadLetterRange[];
  startOffset: number;
  endOffset: number;
  stateEpoch: number;
}

/** Keeps archived offsets SPSO passes, merged with the previous range when they continue it. */
export function addDeadLetter(
  deadLetters: DeadLetterRange[],
  first: number,
  last: number,
  reason: DeadLetterReason,
  count: number,
): void {
  const previous = deadLetters[deadLetters.length - 1];
  if (previous && previous.last + 1 === first && previous.reason === reason && previous.count === count)
    previous.last = last;
  else deadLetters.push({ first, last, reason, count });
  if (deadLetters.length > MAX_DEAD_LETTER_RANGES) deadLetters.shift();
}

/** Archived ranges a reject or the delivery limit put there, below SPSO and in the window, ascending. */
export function listDeadLetters(window: DeadLetterWindow): DeadLetterRange[] {
  const inWindow: DeadLetterRange[] = [];
  for (const run of window.runs)
    if (run.state === RecordState.ARCHIVED && isDeadLetterReason(run.reason))
      inWindow.push({ first: run.first, last: run.last, reason: run.reason, count: run.count });
  return [...window.deadLetters.map((d) => ({ ...d })), ...inWindow];
}

/**
 * Dead letters in `[first, last]` become available again, counted from zero, under a new state epoch.
 * Those below SPSO bring SPSO back to the first of them (as an offset reset does); the offsets between
 * them that were done stay done. Returns how many offsets came back.
 */
export function redeliverDeadLetters(window: DeadLetterWindow, first: number, last: number): number {
  let revived = 0;
  const windowFirst = Math.max(first, window.startOffset);
  const windowLast = Math.min(last, window.endOffset - 1);
  const picks: [number, number][] = [];
  for (const run of window.runs) {
    if (run.last < windowFirst || run.first > windowLast) continue;
    if (run.state !== RecordState.ARCHIVED || run.pending !== null || !isDeadLetterReason(run.reason)) continue;
    picks.push([Math.max(run.first, windowFirst), Math.min(run.last, windowLast)]);
  }
  for (const [from, to] of picks) {
    const [a, b] = isolate(window.runs, from, to);
    for (let i = a; i < b; i++) Object.assign(window.runs[i], { state: RecordState.AVAILABLE, count: 0, reason: null });
    revived += to - from + 1;
  }
  const below = window.deadLetters.filter((d) => d.last >= first && d.first <= last && d.first < window.startOffset);
  if (below.length > 0) revived += reopenBelowStart(window, first, last, Math.max(first, below[0].first));
  // Counting from zero again starts a new state epoch: within one, an offset's delivery count only grows.
  else if (revived > 0) window.stateEpoch++;
  normalize(window.runs);
  return revived;
}

/** Brings `[newStart, startOffset)` back into the window: the dead letters chosen available, the rest as they were. */
function reopenBelowStart(window: DeadLetterWindow, first: number, last: number, newStart: number): number {
  let revived = 0;
  const reopened: Run[] = [];
  const kept: DeadLetterRange[] = [];
  let cursor = newStart;
  for (const dead of window.deadLetters) {
    if (dead.last < newStart) {
      kept.push(dead);
      continue;
    }
    if (dead.first < newStart) kept.push({ ...dead, last: newStart - 1 });
    const from = Math.max(dead.first, newStart);
    if (from > cursor) reopened.push(doneRun(cursor, from - 1));
    const pickFirst = Math.max(from, first);
    const pickLast = Math.min(dead.last, last);
    const archived = (a: number, b: number): Run => ({
      ...newRun(a, b),
      state: RecordState.ARCHIVED,
      count: dead.count,
      reason: dead.reason,
    });
    if (pickFirst > from) reopened.push(archived(from, Math.min(pickFirst - 1, dead.last)));
    if (pickFirst <= pickLast) {
      reopened.push(newRun(pickFirst, pickLast));
      revived += pickLast - pickFirst + 1;
    }
    if (pickLast < dead.last) reopened.push(archived(Math.max(from, pickLast + 1), dead.last));
    cursor = dead.last + 1;
  }
  if (cursor < window.startOffset) reopened.push(doneRun(cursor, window.startOffset - 1));
  window.deadLetters = kept;
  window.runs = [...reopened, ...window.runs];
  window.startOffset = newStart;
  window.stateEpoch++;
  return revived;
}

/** Offsets that were done before SPSO moved back over them (acknowledged or gaps: delivered no more). */
function doneRun(first: number, last: number): Run {
  return { ...newRun(first, last), state: RecordState.ACKNOWLEDGED };
}
