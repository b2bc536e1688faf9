import type { LagStatus } from '@cohort/protocol';
import type { LagWindowEntry } from '../group/lag-window';

/**
 * Burrow's partition evaluation (linkedin/Burrow `core/internal/evaluator/caching.go`,
 * `calculatePartitionStatus`), over a window of commits whose lag is known, oldest first:
 *
 * 1. lag is zero now, or was zero at any commit of the window → OK;
 * 2. the committed offset went backwards between two commits (Burrow's REWIND) → ERR;
 * 3. the time since the last commit is longer than the window spans (last − first) → STOP;
 * 4. every commit of the window has the same offset → STALL;
 * 5. the lag never decreased from one commit to the next → WARN;
 * otherwise OK. The checks run in that order, the first that matches wins.
 */
export function evaluatePartition(window: readonly LagWindowEntry[], currentLag: number, now: number): LagStatus {
  if (currentLag <= 0 || window.length === 0) return 'OK';
  // One pass (the metrics scrape evaluates every exported partition): what each rule needs to know.
  let lagWasZero = window[0].lag === 0;
  let rewound = false;
  let allSameOffset = true;
  let lagNeverDecreased = true;
  for (let i = 1; i < window.length; i++) {
    const before = window[i - 1];
    const after = window[i];
    if (after.lag === 0) lagWasZero = true;
    if (after.offset < before.offset) rewound = true;
    if (after.offset !== before.offset) allSameOffset = false;
    if (after.lag! < before.lag!) lagNeverDecreased = false;
  }
  if (lagWasZero) return 'OK';
  if (rewound) return 'ERR';
  const first = window[0];
  const last = window[window.length - 1];
  if (now - last.timestamp > last.timestamp - first.timestamp) return 'STOP';
  if (allSameOffset) return 'STALL';
  if (lagNeverDecreased) return 'WARN';
  return 'OK';
}

/** How bad each status is: a group is as bad as its worst partition; UNKNOWN only when nothing could be evaluated. */
const SEVERITY: Record<LagStatus, number> = { UNKNOWN: 0, OK: 1, WARN: 2, ERR: 3, STOP: 4, STALL: 5 };

export function worstStatus(statuses: Iterable<LagStatus>): LagStatus {
  let worst: LagStatus = 'UNKNOWN';
  for (const status of statuses) if (SEVERITY[status] > SEVERITY[worst]) worst = status;
  return worst;
}
