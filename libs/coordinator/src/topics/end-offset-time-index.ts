/**
 * The end-offset time index of one partition (docs/lag.md "Time lag"): where the partition's log end was
 * and when, from the end-offset reports, as entries (time, endOffset) in order of time, the end offsets
 * never going down. It answers two questions Kafka answers from a log's time index, without the log:
 *
 * - `timeLagMs`: how long ago an offset was the log end (time lag), interpolating linearly between the
 *   two entries around it;
 * - `endOffsetAsOf`: the end offset as of a time (offset resets by datetime or duration), stepping: the
 *   latest entry at or before that time.
 *
 * Bounded: at most `capacity` entries (TIME_INDEX_CAPACITY). When a report would exceed it, the inner
 * entry whose removal leaves the smallest gap relative to its age goes, so recent history stays fine
 * grained and old history thins out geometrically while the first entry stays: 64 entries reported every
 * 5 s span minutes at a 5 s grain and, thinned, weeks at a grain of about a fifth of their age.
 *
 * An index is its numbers only, `[t0, e0, t1, e1, ...]` in one array (a node holds one per reported
 * partition): at most 2 × 64 doubles, 1 KiB.
 */
export type EndOffsetTimeIndex = number[];

/** Entries kept per partition. */
export const TIME_INDEX_CAPACITY = 64;
const STRIDE = 2;

/**
 * The index with a report added (`index` is changed in place or replaced; use the result):
 *
 * - times never go back: a report dated before the last entry counts as made at the last entry's time
 *   (the largest time so far, as Kafka's time index keeps the largest timestamp so far);
 * - a report below the last entry's end offset (the log was truncated, or a stale report) drops the
 *   entries above it, so the ends never go down;
 * - a report of an unchanged end offset only moves the end of a run of equal ends forward, so an idle
 *   partition keeps two entries for its whole idle time (when it became idle, when it was last seen so).
 */
export function addToTimeIndex(
  index: EndOffsetTimeIndex | undefined,
  reportedTime: number,
  endOffset: number,
  capacity = TIME_INDEX_CAPACITY,
): EndOffsetTimeIndex {
  if (index === undefined || index.length === 0) return [reportedTime, endOffset];
  let length = index.length;
  while (length > 0 && index[length - 1] > endOffset) length -= STRIDE;
  if (length < index.length) index = index.slice(0, length);
  if (length === 0) return [reportedTime, endOffset];
  const lastTime = index[length - STRIDE];
  const time = Math.max(reportedTime, lastTime);
  const lastEnd = index[length - 1];
  if (lastEnd === endOffset) {
    if (time === lastTime) return index;
    // A run of equal ends keeps its first and its last entry: move the last one forward.
    if (length >= 2 * STRIDE && index[length - 1 - STRIDE] === endOffset) {
      index[length - STRIDE] = time;
      return index;
    }
  }
  // Below capacity `concat` makes an array of exactly the new length (`push` would leave spare room).
  if (length / STRIDE < capacity) return index.concat([time, endOffset]);
  thinInPlace(index, time);
  index[length - STRIDE] = time;
  index[length - 1] = endOffset;
  return index;
}

/**
 * Frees the last slot: removes the inner entry (never the first) whose gap to the next, counting the
 * new report's time after the last, is the smallest fraction of its age, shifting the later ones down.
 */
function thinInPlace(index: EndOffsetTimeIndex, now: number): void {
  const timeAt = (i: number): number => (i === index.length ? now : index[i]);
  let drop = index.length - STRIDE;
  let smallest = Number.POSITIVE_INFINITY;
  for (let i = STRIDE; i < index.length; i += STRIDE) {
    const previous = index[i - STRIDE];
    const score = (timeAt(i + STRIDE) - previous) / Math.max(1, now - previous);
    if (score < smallest) {
      smallest = score;
      drop = i;
    }
  }
  index.copyWithin(drop, drop + STRIDE);
}

/** Entries in the index. */
export function timeIndexSize(index: EndOffsetTimeIndex | undefined): number {
  return index === undefined ? 0 : index.length / STRIDE;
}

/** The index as `{ time, endOffset }` entries, oldest first. */
export function timeIndexEntries(index: EndOffsetTimeIndex | undefined): { time: number; endOffset: number }[] {
  const out: { time: number; endOffset: number }[] = [];
  for (let i = 0; index !== undefined && i < index.length; i += STRIDE)
    out.push({ time: index[i], endOffset: index[i + 1] });
  return out;
}

/**
 * The end offset as of `time`: the latest entry at or before it (a step, never an interpolation, so
 * a reset never skips an offset appended after `time`); undefined when `time` is before the first entry.
 */
export function endOffsetAsOf(index: EndOffsetTimeIndex | undefined, time: number): number | undefined {
  if (index === undefined) return undefined;
  let found: number | undefined;
  for (let i = 0; i < index.length && index[i] <= time; i += STRIDE) found = index[i + 1];
  return found;
}

/**
 * How long ago (at `now`) `offset` was the log end, in ms: 0 when `offset` is at or past the last
 * entry's end (caught up), null when the index is empty. Between the last entry at or below `offset`
 * and the first above it, the time is interpolated linearly (an offset equal to an entry's end was the
 * end at that entry's time); before the first entry, the first entry's time is all that is known, so
 * the answer is a lower bound. Never negative (a report dated ahead of this node's clock).
 */
export function timeLagMs(index: EndOffsetTimeIndex | undefined, offset: number, now: number): number | null {
  if (index === undefined || index.length === 0) return null;
  if (offset >= index[index.length - 1]) return 0;
  // The first entry whose end is past the offset (ends never go down: binary search).
  let low = 0;
  let high = index.length / STRIDE - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (index[middle * STRIDE + 1] > offset) high = middle;
    else low = middle + 1;
  }
  const at = low * STRIDE;
  let time = index[at];
  if (at > 0) {
    const [beforeTime, beforeEnd, afterTime, afterEnd] = [index[at - 2], index[at - 1], index[at], index[at + 1]];
    time = beforeTime + ((afterTime - beforeTime) * (offset - beforeEnd)) / (afterEnd - beforeEnd);
  }
  return Math.max(0, Math.round(now - time));
}

/**
 * The index as text for the stores (the topic file, Redis): base-36 pairs `time.end`, each after the
 * first as the difference from the previous one (times and ends never go down), joined by `~`: about
 * 8 bytes an entry.
 */
export function encodeTimeIndex(index: EndOffsetTimeIndex): string {
  const parts: string[] = [];
  for (let i = 0; i < index.length; i += STRIDE) {
    const time = i === 0 ? index[0] : index[i] - index[i - STRIDE];
    const end = i === 0 ? index[1] : index[i + 1] - index[i - 1];
    parts.push(`${time.toString(36)}.${end.toString(36)}`);
  }
  return parts.join('~');
}

/** The index `encodeTimeIndex` wrote; undefined for text it did not write (the caller starts afresh). */
export function decodeTimeIndex(text: unknown, capacity = TIME_INDEX_CAPACITY): EndOffsetTimeIndex | undefined {
  if (typeof text !== 'string' || text === '') return undefined;
  const parts = text.split('~');
  if (parts.length > capacity) return undefined;
  const index: EndOffsetTimeIndex = [];
  for (const part of parts) {
    const match = /^([0-9a-z]{1,11})\.([0-9a-z]{1,11})$/.exec(part);
    if (!match) return undefined;
    const time = parseInt(match[1], 36) + (index.length > 0 ? index[index.length - STRIDE] : 0);
    const end = parseInt(match[2], 36) + (index.length > 0 ? index[index.length - 1] : 0);
    if (!Number.isSafeInteger(time) || !Number.isSafeInteger(end)) return undefined;
    index.push(time, end);
  }
  return index;
}
