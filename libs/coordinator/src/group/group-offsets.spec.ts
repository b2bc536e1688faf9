import { GroupOffsets } from './group-offsets';

const value = (
  offset: number,
  extra: Partial<{
    leaderEpoch: number;
    metadata: string;
    commitTimestamp: number;
    expireTimestamp: number | null;
  }> = {},
) => ({
  offset,
  leaderEpoch: extra.leaderEpoch ?? 3,
  metadata: extra.metadata ?? '',
  commitTimestamp: extra.commitTimestamp ?? 1_000 + offset,
  expireTimestamp: extra.expireTimestamp ?? null,
});

describe("GroupOffsets (a group's committed offsets)", () => {
  it('keeps every field of each commit, metadata and a legacy expiry included, and a later record wins over an earlier one', () => {
    const offsets = new GroupOffsets();
    offsets.applyRecord('orders', 0, value(10, { metadata: 'm0', leaderEpoch: -1 }), 5);
    offsets.applyRecord('orders', 1, value(20, { expireTimestamp: 9_999 }), 6);
    offsets.applyRecord('orders', 0, value(9), 4); // an older record replayed after a newer one changes nothing
    expect(offsets.get('orders', 0)).toEqual({ ...value(10, { metadata: 'm0', leaderEpoch: -1 }), logOffset: 5 });
    expect(offsets.get('orders', 1)).toEqual({ ...value(20, { expireTimestamp: 9_999 }), logOffset: 6 });
    offsets.applyRecord('orders', 0, value(11), 7);
    offsets.applyRecord('orders', 1, value(21), 8);
    expect(offsets.get('orders', 0)).toEqual({ ...value(11), logOffset: 7 });
    expect(offsets.get('orders', 1)).toEqual({ ...value(21), logOffset: 8 });
    expect(offsets.get('orders', 2)).toBeUndefined();
    expect(offsets.has('orders', 1)).toBe(true);
    expect(offsets.has('payments', 1)).toBe(false);
  });

  it('hands out copies: changing what get or all returned changes nothing held', () => {
    const offsets = new GroupOffsets();
    offsets.applyRecord('orders', 0, value(10), 1);
    offsets.get('orders', 0)!.offset = 99;
    offsets.all()[0].value.metadata = 'changed';
    expect(offsets.get('orders', 0)).toEqual({ ...value(10), logOffset: 1 });
  });

  it('deletes on a tombstone unless the offset held comes from a later record', () => {
    const offsets = new GroupOffsets();
    for (let p = 0; p < 4; p++) offsets.applyRecord('orders', p, value(p, { metadata: `m${p}` }), 10 + p);
    offsets.applyRecord('orders', 2, null, 5); // older than the commit at 12: kept
    offsets.applyRecord('orders', 0, null, 20);
    offsets.applyRecord('orders', 9, null, 21); // nothing to delete
    expect(offsets.all().map((o) => [o.partition, o.value.offset, o.value.metadata])).toEqual([
      [1, 1, 'm1'],
      [2, 2, 'm2'],
      [3, 3, 'm3'],
    ]);
    expect(offsets.size).toBe(3);
    for (const p of [1, 2, 3]) offsets.applyRecord('orders', p, null, 30 + p);
    expect(offsets.size).toBe(0);
    expect(offsets.hasCommitted).toBe(false);
    expect(offsets.hasOffsets).toBe(false);
  });

  it('lists offsets by topic then partition, and scans them in the order partitions were first committed', () => {
    const offsets = new GroupOffsets();
    let log = 0;
    for (const [topic, partition] of [
      ['payments', 2],
      ['orders', 5],
      ['orders', 1],
      ['payments', 0],
      ['orders', 3],
    ] as const) {
      offsets.applyRecord(topic, partition, value(partition), log++);
    }
    offsets.applyRecord('orders', 5, null, log++);
    offsets.applyRecord('orders', 5, value(50), log++);
    offsets.applyRecord('orders', 1, value(10), log++);
    expect(offsets.all().map((o) => `${o.topic}-${o.partition}:${o.value.offset}`)).toEqual([
      'orders-1:10',
      'orders-3:3',
      'orders-5:50',
      'payments-0:0',
      'payments-2:2',
    ]);
    const scanned: string[] = [];
    offsets.forEachCommitted((topic, partition, offset, commitTimestamp) =>
      scanned.push(`${topic}-${partition}:${offset}@${commitTimestamp}`),
    );
    expect(scanned).toEqual([
      'payments-2:2@1002',
      'payments-0:0@1000',
      'orders-1:10@1010',
      'orders-3:3@1003',
      'orders-5:50@1050',
    ]);
  });

  it('marks a partition staged until its own write commits or fails, and counts staged writes as offsets', () => {
    const offsets = new GroupOffsets();
    const first = offsets.stage('orders', 0);
    const second = offsets.stage('orders', 0);
    expect(offsets.hasOffsets).toBe(true);
    offsets.onCommitted('orders', 0, first, value(1), 1);
    expect(offsets.isStaged('orders', 0)).toBe(true);
    offsets.onFailed('orders', 0, second);
    expect(offsets.isStaged('orders', 0)).toBe(false);
    expect(offsets.stagedPartitions()).toEqual([]);
    expect(offsets.get('orders', 0)?.offset).toBe(1);
  });
});

describe('GroupOffsets, partitions committed in and out of order', () => {
  /** A reference model: a Map of entries, the way offsets were held before. */
  function model(ops: [number, number | null][]): string[] {
    const m = new Map<number, number>();
    for (const [partition, offset] of ops) {
      if (offset === null) m.delete(partition);
      else m.set(partition, offset);
    }
    return [...m].map(([p, o]) => `${p}:${o}`);
  }

  it('keeps the same offsets in the same scan order as a map of entries, whatever the order of commits and deletions', () => {
    const sequences: [number, number | null][][] = [
      [
        [0, 1],
        [1, 2],
        [2, 3],
      ],
      [
        [0, 1],
        [1, 2],
        [2, 3],
        [2, null],
        [2, 4],
      ],
      [
        [0, 1],
        [1, 2],
        [2, 3],
        [0, null],
        [0, 5],
        [3, 6],
      ],
      [
        [0, 1],
        [1, 2],
        [2, 3],
        [1, null],
        [3, 7],
        [1, 8],
      ],
      [
        [2, 1],
        [0, 2],
        [1, 3],
        [2, null],
      ],
      [
        [0, 1],
        [2, 2],
        [1, 3],
        [3, 4],
        [0, null],
        [1, null],
        [2, null],
        [3, null],
        [0, 9],
      ],
      [
        [-1, 1],
        [0, 2],
        [5, 3],
      ],
    ];
    // Pseudo-random sequences too (a fixed linear congruential sequence, so every run checks the same cases).
    let seed = 7;
    const next = (n: number) => (seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) % n;
    for (let s = 0; s < 200; s++)
      sequences.push(
        Array.from({ length: 1 + next(30) }, (_, i) => [next(8), next(4) === 0 ? null : i] as [number, number | null]),
      );
    for (const ops of sequences) {
      const offsets = new GroupOffsets();
      ops.forEach(([partition, offset], log) =>
        offsets.applyRecord('t', partition, offset === null ? null : value(offset), log),
      );
      const scanned: string[] = [];
      offsets.forEachCommitted((_topic, partition, offset) => scanned.push(`${partition}:${offset}`));
      expect(scanned).toEqual(model(ops));
      expect(offsets.size).toBe(scanned.length);
      for (const entry of model(ops)) {
        const [partition, offset] = entry.split(':').map(Number);
        expect(offsets.get('t', partition)?.offset).toBe(offset);
      }
      expect(offsets.get('t', 99)).toBeUndefined();
      expect(offsets.has('t', 0.5)).toBe(false);
    }
  });
});
