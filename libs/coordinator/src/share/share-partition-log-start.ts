import { isolate, newRun, normalize, RecordState, type Run } from './share-partition-runs';

/** What of a share partition the log start concerns. */
export interface LogStartWindow {
  runs: Run[];
  startOffset: number;
  endOffset: number;
}

/**
 * The log start moved to `logStart` (records below it were deleted, Kafka's `updateCacheAndOffsets`):
 * available offsets below it are archived (not dead letters: there is nothing to deliver), held ones
 * stay until they come back, and offsets never leased below it are skipped. True when something changed;
 * the caller moves SPSO on.
 */
export function archiveBelowLogStart(window: LogStartWindow, logStart: number): boolean {
  if (logStart <= window.startOffset) return false;
  let changed = false;
  const last = Math.min(logStart, window.endOffset) - 1;
  const spans: [number, number][] = [];
  for (const run of window.runs) {
    if (run.first > last) break;
    if (run.state === RecordState.AVAILABLE && run.pending === null) spans.push([run.first, Math.min(run.last, last)]);
  }
  for (const [first, to] of spans) {
    const [from, end] = isolate(window.runs, first, to);
    for (let i = from; i < end; i++)
      Object.assign(window.runs[i], { state: RecordState.ARCHIVED, reason: 'log-start' });
    changed = true;
  }
  if (window.endOffset < logStart) {
    // Offsets never leased below the log start: skipped, kept as archived only while a lease below them remains.
    if (window.runs.length > 0)
      window.runs.push({ ...newRun(window.endOffset, logStart - 1), state: RecordState.ARCHIVED, reason: 'log-start' });
    window.endOffset = logStart;
    changed = true;
  }
  normalize(window.runs);
  return changed;
}
