/** Burrow's defaults (`intervals`, `min-distance`): ten commits per partition, at least a second apart. */
export const LAG_WINDOW_SIZE = 10;
export const LAG_MIN_DISTANCE_MS = 1000;

/** One commit as the lag evaluation keeps it: when, which offset, and the lag against the end offset known then. */
export interface LagWindowEntry {
  timestamp: number;
  offset: number;
  /** The partition's reported end offset when the commit landed; null when none was reported yet. */
  logEndOffset: number | null;
  /** `logEndOffset - offset`, never below zero (a report older than the commit is no lag); null without a report. */
  lag: number | null;
}

/**
 * The sliding window of one group partition's commits (Burrow's offset ring, docs/lag.md): the last
 * `capacity` commits, oldest first. A commit less than `minDistanceMs` after the previous one replaces
 * it and keeps its timestamp (Burrow's `min-distance`), so a consumer committing every few milliseconds
 * still leaves a window that spans real time.
 *
 * A node keeps one window per committed partition, a million on a big node, so a window is only its
 * numbers: timestamp, offset and end offset (NaN for none) of each commit, in one array of doubles
 * exactly as long as the commits it holds (the lag follows from the other two). Entries are made when
 * the evaluation reads the window.
 */
export type LagWindow = number[];

const STRIDE = 3;

/** The window with the commit added: `window` changed in place, or a new array when it grows or slides. */
export function addToWindow(
  window: LagWindow | undefined,
  capacity: number,
  minDistanceMs: number,
  timestamp: number,
  offset: number,
  logEndOffset: number | null,
): LagWindow {
  const end = logEndOffset === null ? Number.NaN : logEndOffset;
  if (window === undefined || window.length === 0) return [timestamp, offset, end];
  const last = window.length - STRIDE;
  if (timestamp - window[last] < minDistanceMs) {
    window[last + 1] = offset;
    window[last + 2] = end;
    return window;
  }
  // `concat` makes an array of exactly the new length (`push` would leave room for ~16 more numbers).
  const kept = window.length / STRIDE >= capacity ? window.slice(window.length - (capacity - 1) * STRIDE) : window;
  return kept.concat([timestamp, offset, end]);
}

/** The window's commits, oldest first, as entries of their own. */
export function windowEntries(window: LagWindow): LagWindowEntry[] {
  const out: LagWindowEntry[] = [];
  for (let i = 0; i < window.length; i += STRIDE) {
    const offset = window[i + 1];
    const end = window[i + 2];
    const logEndOffset = Number.isNaN(end) ? null : end;
    out.push({
      timestamp: window[i],
      offset,
      logEndOffset,
      lag: logEndOffset === null ? null : Math.max(0, logEndOffset - offset),
    });
  }
  return out;
}
