import type { Segment } from './segment';

/** Index of the segment holding `offset`: the last one whose base offset is <= it (0 if none is). */
export function segmentIndexFor(segments: readonly Segment[], offset: number): number {
  let lo = 0;
  let hi = segments.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >>> 1;
    if (segments[mid].baseOffset <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

/**
 * The whole batches holding offsets in [fromOffset, upToOffset), about `maxRecords` records (at least
 * one batch), handed to `take` as one run of batch indexes per segment, in log order: what
 * `FileLog.read` decodes and `FileLog.scan` visits.
 */
export function forEachBatchRange(
  segments: readonly Segment[],
  fromOffset: number,
  upToOffset: number,
  maxRecords: number,
  take: (segment: Segment, from: number, to: number) => void,
): void {
  let count = 0;
  let taken = 0;
  for (let s = segmentIndexFor(segments, fromOffset); s < segments.length; s++) {
    const segment = segments[s];
    const index = segment.index;
    const from = index.firstEndingAtOrAfter(fromOffset);
    let to = from;
    while (to < index.length && index.firstOffset(to) < upToOffset && (taken + to - from === 0 || count < maxRecords)) {
      count += index.lastOffset(to) - index.firstOffset(to) + 1;
      to++;
    }
    take(segment, from, to);
    taken += to - from;
    if (to < index.length) break;
  }
}
