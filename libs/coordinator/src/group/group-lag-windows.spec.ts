import { GroupLagWindows } from './group-lag-windows';

describe('GroupLagWindows (the recent commits of each partition)', () => {
  it('keeps the last commits oldest first, merging those closer than the minimum distance into the previous one', () => {
    const windows = new GroupLagWindows(3, 1000);
    expect(windows.entries('orders', 0)).toEqual([]);
    windows.record('orders', 0, 10_000, 5, 20);
    windows.record('orders', 0, 10_500, 7, null); // within a second: replaces the last, keeps its timestamp
    expect(windows.entries('orders', 0)).toEqual([{ timestamp: 10_000, offset: 7, logEndOffset: null, lag: null }]);
    windows.record('orders', 0, 11_000, 8, 6); // a report older than the commit is no lag
    windows.record('orders', 0, 12_000, 9, 30);
    windows.record('orders', 0, 13_000, 10, 31);
    expect(windows.entries('orders', 0)).toEqual([
      { timestamp: 11_000, offset: 8, logEndOffset: 6, lag: 0 },
      { timestamp: 12_000, offset: 9, logEndOffset: 30, lag: 21 },
      { timestamp: 13_000, offset: 10, logEndOffset: 31, lag: 21 },
    ]);
    expect(windows.entries('orders', 1)).toEqual([]);
    expect(windows.entries('payments', 0)).toEqual([]);
  });

  it('gives each partition a window of its own', () => {
    const windows = new GroupLagWindows(10, 1000);
    windows.record('orders', 0, 1_000, 1, 10);
    windows.record('orders', 1, 1_000, 2, 10);
    windows.record('orders', 0, 5_000, 3, 10);
    expect(windows.entries('orders', 0).map((e) => e.offset)).toEqual([1, 3]);
    expect(windows.entries('orders', 1).map((e) => e.offset)).toEqual([2]);
  });
});
