import {
  assignedPartitions,
  formatAgo,
  formatDuration,
  formatPartitions,
  formatTimeLag,
  subscribedTopics,
} from './format';

describe('dashboard formatting', () => {
  it('writes partition lists as ranges', () => {
    expect(formatPartitions([5, 0, 2, 1, 7, 8])).toBe('0-2, 5, 7-8');
    expect(formatPartitions([3])).toBe('3');
    expect(formatPartitions([])).toBe('');
  });

  it('reads a consumer assignment and subscription, and nothing from another protocol', () => {
    expect(assignedPartitions({ partitions: [{ topic: 'orders', partitions: [0, 1] }], userData: null })).toEqual([
      { topic: 'orders', partitions: [0, 1] },
    ]);
    expect(assignedPartitions('opaque bytes')).toBeNull();
    expect(assignedPartitions(null)).toBeNull();
    expect(assignedPartitions({ partitions: [{ topic: 7 }, { topic: 'a', partitions: [2] }] })).toEqual([
      { topic: 'a', partitions: [2] },
    ]);
    expect(subscribedTopics({ topics: ['orders', 3, 'payments'] })).toEqual(['orders', 'payments']);
    expect(subscribedTopics({})).toBeNull();
  });

  it('says durations and ages the way an operator reads them', () => {
    expect(formatDuration(null)).toBe('—');
    expect(formatDuration(42)).toBe('42 ms');
    expect(formatDuration(2500)).toBe('2.50 s');
    expect(formatDuration(125_000)).toBe('2 min 5 s');
    const now = 1_700_000_000_000;
    expect(formatAgo(now - 400, now)).toBe('just now');
    expect(formatAgo(now - 12_000, now)).toBe('12 s ago');
    expect(formatAgo(now - 5 * 60_000, now)).toBe('5 min ago');
    expect(formatAgo(now - 3 * 86_400_000, now)).toBe('2023-11-11');
    expect(formatAgo(0, now)).toBe('—');
  });

  it('says a time lag in the two largest units, and — when it is unknown', () => {
    expect([null, 0, 4_500, 42_400, 450_000, 7_500_000, 273_600_000].map(formatTimeLag)).toEqual([
      '—',
      '0 s',
      '4.5 s',
      '42 s',
      '7 min 30 s',
      '2 h 5 min',
      '3 d 4 h',
    ]);
  });
});
