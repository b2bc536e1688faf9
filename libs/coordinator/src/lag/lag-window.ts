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
 */
export class LagWindow {
  private readonly items: LagWindowEntry[] = [];

  constructor(
    private readonly capacity: number,
    private readonly minDistanceMs: number,
  ) {}

  add(timestamp: number, offset: number, logEndOffset: number | null): void {
    const lag = logEndOffset === null ? null : Math.max(0, logEndOffset - offset);
    const last = this.items[this.items.length - 1];
    if (last && timestamp - last.timestamp < this.minDistanceMs) {
      last.offset = offset;
      last.logEndOffset = logEndOffset;
      last.lag = lag;
      return;
    }
    this.items.push({ timestamp, offset, logEndOffset, lag });
    if (this.items.length > this.capacity) this.items.shift();
  }

  /** Oldest first; the caller must not change them. */
  entries(): readonly LagWindowEntry[] {
    return this.items;
  }
}
