import {
  addToTimeIndex,
  decodeTimeIndex,
  encodeTimeIndex,
  endOffsetAsOf,
  type EndOffsetTimeIndex,
  TIME_INDEX_CAPACITY,
  timeIndexEntries,
  timeIndexSize,
  timeLagMs,
} from './end-offset-time-index';

function indexOf(...reports: [number, number][]): EndOffsetTimeIndex {
  let index: EndOffsetTimeIndex | undefined;
  for (const [time, end] of reports) index = addToTimeIndex(index, time, end);
  return index!;
}

describe('end-offset time index', () => {
  it('keeps reports in time order, dating a late report at the latest time so far', () => {
    const index = indexOf([1_000, 10], [2_000, 20], [1_500, 25]);
    expect(timeIndexEntries(index)).toEqual([
      { time: 1_000, endOffset: 10 },
      { time: 2_000, endOffset: 20 },
      { time: 2_000, endOffset: 25 },
    ]);
  });

  it('keeps only the first and the last report of a run of equal end offsets', () => {
    const index = indexOf([1_000, 10], [2_000, 10], [3_000, 10], [4_000, 10], [5_000, 12]);
    expect(timeIndexEntries(index)).toEqual([
      { time: 1_000, endOffset: 10 },
      { time: 4_000, endOffset: 10 },
      { time: 5_000, endOffset: 12 },
    ]);
  });

  it('drops the entries above a lower report, so the end offsets never go down', () => {
    const index = indexOf([1_000, 10], [2_000, 20], [3_000, 30], [4_000, 15]);
    expect(timeIndexEntries(index)).toEqual([
      { time: 1_000, endOffset: 10 },
      { time: 4_000, endOffset: 15 },
    ]);
    expect(timeIndexEntries(indexOf([1_000, 10], [2_000, 3]))).toEqual([{ time: 2_000, endOffset: 3 }]);
  });

  it('stays within its capacity, thinning old history and keeping the first and recent entries', () => {
    let index: EndOffsetTimeIndex | undefined;
    // A report every 30 s for a week: 20,160 reports.
    const week = 7 * 86_400_000;
    for (let t = 0; t <= week; t += 30_000) index = addToTimeIndex(index, t, t / 100);
    expect(timeIndexSize(index)).toBe(TIME_INDEX_CAPACITY);
    const times = timeIndexEntries(index).map((e) => e.time);
    expect(times[0]).toBe(0);
    expect(times[times.length - 1]).toBe(week);
    expect(times[times.length - 2]).toBe(week - 30_000);
    // Each gap is the report interval or at most a quarter of its age: fine grained recently, coarse long ago.
    for (let i = 1; i < times.length; i++) {
      const age = week - times[i - 1];
      expect(times[i] - times[i - 1]).toBeLessThanOrEqual(Math.max(30_000, age / 4));
    }
    // The steady rate makes the interpolation exact wherever the entries are.
    for (const ago of [10_000, 3_600_000, 86_400_000, 5 * 86_400_000])
      expect(timeLagMs(index, (week - ago) / 100, week)).toBe(ago);
  });

  it('tells how long ago an offset was the log end, interpolating between the entries around it', () => {
    const index = indexOf([10_000, 100], [20_000, 200], [30_000, 200], [40_000, 300]);
    const now = 50_000;
    expect(timeLagMs(index, 300, now)).toBe(0); // caught up
    expect(timeLagMs(index, 350, now)).toBe(0); // past a stale report: no lag
    expect(timeLagMs(index, 250, now)).toBe(15_000); // half way from 200 (30 s) to 300 (40 s)
    expect(timeLagMs(index, 200, now)).toBe(20_000); // the end until 30 s
    expect(timeLagMs(index, 150, now)).toBe(35_000);
    expect(timeLagMs(index, 100, now)).toBe(40_000);
    expect(timeLagMs(index, 40, now)).toBe(40_000); // before the first entry: at least since it
    expect(timeLagMs(undefined, 40, now)).toBeNull();
    expect(timeLagMs(indexOf([60_000, 500]), 40, now)).toBe(0); // dated ahead of this clock: never negative
  });

  it('gives the end offset as of a time: the latest entry at or before it', () => {
    const index = indexOf([10_000, 100], [20_000, 200], [20_000, 250], [30_000, 300]);
    expect(endOffsetAsOf(index, 9_999)).toBeUndefined();
    expect(endOffsetAsOf(index, 10_000)).toBe(100);
    expect(endOffsetAsOf(index, 19_999)).toBe(100); // a step, not an interpolation
    expect(endOffsetAsOf(index, 20_000)).toBe(250);
    expect(endOffsetAsOf(index, 1e15)).toBe(300);
    expect(endOffsetAsOf(undefined, 1)).toBeUndefined();
  });

  it('encodes compactly and decodes what it encoded, refusing anything else', () => {
    let index: EndOffsetTimeIndex | undefined;
    for (let i = 0; i < TIME_INDEX_CAPACITY; i++)
      index = addToTimeIndex(index, 1_764_620_000_000 + i * 5_000, i * 1_000);
    const text = encodeTimeIndex(index!);
    expect(text.length).toBeLessThan(TIME_INDEX_CAPACITY * 10);
    expect(decodeTimeIndex(text)).toEqual(index);
    for (const bad of [
      42,
      null,
      '',
      'x',
      '1.2~',
      '1.2~-3.4',
      'zzzzzzzzzzzz.1',
      Array(TIME_INDEX_CAPACITY + 1)
        .fill('1.1')
        .join('~'),
    ])
      expect(decodeTimeIndex(bad)).toBeUndefined();
  });
});
