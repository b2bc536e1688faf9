import { ErrorCode, KafkaError } from '@cohort/protocol';
import { ManualClock } from '../time/manual-clock';
import { MemoryLog } from './memory-log';
import { flatten, rec, replay } from '@cohort/replication/testing';

const ALL = Number.MAX_SAFE_INTEGER;
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('MemoryLog', () => {
  it('assigns consecutive offsets from the log end and stamps the leader epoch', () => {
    const log = new MemoryLog();
    const a = log.appendAsLeader([rec('a', '1'), rec('b', '1')], 3);
    const b = log.appendAsLeader([rec('a', '2')], 3);
    expect([a.baseOffset, b.baseOffset, log.logEndOffset]).toEqual([0, 2, 3]);
    expect(a.records.map((r) => [r.offset, r.leaderEpoch])).toEqual([
      [0, 3],
      [1, 3],
    ]);
    expect(flatten(log.read(0, ALL, 100))).toEqual([
      [0, 'a', '1'],
      [1, 'b', '1'],
      [2, 'a', '2'],
    ]);
  });

  it('reads whole batches from the one holding fromOffset, at least one batch, stopping near maxRecords', () => {
    const log = new MemoryLog();
    log.appendAsLeader([rec('a', '1'), rec('b', '1'), rec('c', '1')], 0);
    log.appendAsLeader([rec('d', '1')], 0);
    log.appendAsLeader([rec('e', '1')], 0);
    expect(log.read(1, ALL, 1).map((b) => b.baseOffset)).toEqual([0]);
    expect(log.read(1, ALL, 4).map((b) => b.baseOffset)).toEqual([0, 3]);
    expect(log.read(3, 4, 100).map((b) => b.baseOffset)).toEqual([3]);
    expect(log.read(5, ALL, 100)).toEqual([]);
  });

  it('makes appends durable only through flush, and a crash loses the rest', async () => {
    const log = new MemoryLog();
    log.appendAsLeader([rec('a', '1')], 0);
    await log.flush();
    log.appendAsLeader([rec('a', '2')], 0);
    log.appendAsLeader([rec('b', '1')], 0);
    expect(log.flushedOffset).toBe(1);
    log.crash();
    expect(log.logEndOffset).toBe(1);
    expect(flatten(log.read(0, ALL, 100))).toEqual([[0, 'a', '1']]);
    log.appendAsLeader([rec('c', '1')], 0);
    expect(log.logEndOffset).toBe(2);
  });

  it('keeps unflushed appends when reopened after its process stopped (the OS still holds them)', async () => {
    const log = new MemoryLog();
    log.appendAsLeader([rec('a', '1')], 0);
    await log.close();
    expect(() => log.appendAsLeader([rec('a', '2')], 0)).toThrow(/closed/);
    log.reopen();
    log.appendAsLeader([rec('b', '1')], 0);
    log.reopen();
    expect([log.logEndOffset, log.flushedOffset]).toEqual([2, 1]);
    log.appendAsLeader([rec('c', '1')], 0);
    expect(log.logEndOffset).toBe(3);
  });

  it('can keep a prefix of the unflushed batches on a crash, as when the OS wrote some of them', async () => {
    const log = new MemoryLog();
    log.appendAsLeader([rec('a', '1')], 0);
    log.appendAsLeader([rec('b', '1'), rec('c', '1')], 0);
    log.appendAsLeader([rec('d', '1')], 0);
    log.crash(2);
    expect(flatten(log.read(0, ALL, 100)).map(([o]) => o)).toEqual([0, 1, 2]);
    expect([log.logEndOffset, log.flushedOffset]).toEqual([3, 3]);
  });

  it('groups concurrent flushes into one simulated fsync and fails flushes cut short by a crash', async () => {
    const clock = new ManualClock();
    const log = new MemoryLog({ clock, fsyncLatencyMs: 5 });
    log.appendAsLeader([rec('a', '1')], 0);
    const first = log.flush();
    log.appendAsLeader([rec('b', '1')], 0);
    const second = log.flush();
    const third = log.flush();
    const done: string[] = [];
    for (const [name, p] of [
      ['first', first],
      ['second', second],
      ['third', third],
    ] as const)
      void p.then(() => done.push(name));
    clock.advance(5);
    await settle();
    expect(done).toEqual(['first']);
    expect(log.flushedOffset).toBe(1);
    expect(clock.pendingTimers()).toBe(1);
    clock.advance(5);
    await Promise.all([second, third]);
    expect(log.flushedOffset).toBe(2);

    log.appendAsLeader([rec('c', '1')], 0);
    const lost = log.flush();
    log.crash();
    clock.advance(5);
    await expect(lost).rejects.toMatchObject({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
    expect(log.logEndOffset).toBe(2);
  });

  it('never reports data as flushed that a truncation removed while the fsync ran', async () => {
    const clock = new ManualClock();
    const log = new MemoryLog({ clock, fsyncLatencyMs: 5 });
    log.appendAsLeader([rec('a', '1')], 0);
    log.appendAsLeader([rec('b', '1')], 0);
    const flushing = log.flush();
    log.truncateTo(1);
    log.appendAsFollower([
      { baseOffset: 1, leaderEpoch: 1, records: [{ ...rec('x', '1'), offset: 1, leaderEpoch: 1 }] },
    ]);
    clock.advance(5);
    await flushing;
    expect(log.flushedOffset).toBe(1);
  });

  it('truncates inside a batch, keeping the records below the truncation point', () => {
    const log = new MemoryLog();
    log.appendAsLeader([rec('a', '1'), rec('b', '1'), rec('c', '1')], 0);
    log.appendAsLeader([rec('d', '1')], 0);
    log.truncateTo(2);
    expect(log.logEndOffset).toBe(2);
    expect(flatten(log.read(0, ALL, 100))).toEqual([
      [0, 'a', '1'],
      [1, 'b', '1'],
    ]);
    log.truncateTo(5);
    expect(log.logEndOffset).toBe(2);
  });

  it('takes follower batches with the leader offsets and epochs, starting at or after the log end', () => {
    const log = new MemoryLog();
    log.appendAsLeader([rec('a', '1')], 1);
    log.appendAsFollower([
      {
        baseOffset: 1,
        leaderEpoch: 2,
        records: [
          { ...rec('b', '1'), offset: 1, leaderEpoch: 2 },
          { ...rec('c', '1'), offset: 3, leaderEpoch: 2 },
        ],
      },
    ]);
    expect(log.logEndOffset).toBe(4);
    expect(log.read(1, ALL, 10)[0].records.map((r) => [r.offset, r.leaderEpoch])).toEqual([
      [1, 2],
      [3, 2],
    ]);
    const before = flatten(log.read(0, ALL, 100));
    const atWrongOffset = [
      { baseOffset: 2, leaderEpoch: 2, records: [{ ...rec('d', '1'), offset: 2, leaderEpoch: 2 }] },
    ];
    expect(() => log.appendAsFollower(atWrongOffset)).toThrow(KafkaError);
    const olderEpoch = [{ baseOffset: 4, leaderEpoch: 1, records: [{ ...rec('d', '1'), offset: 4, leaderEpoch: 1 }] }];
    expect(() => log.appendAsFollower(olderEpoch)).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.FENCED_LEADER_EPOCH }),
    );
    expect(flatten(log.read(0, ALL, 100))).toEqual(before);
  });

  it('rejects malformed appends with INVALID_REQUEST and an older epoch with FENCED_LEADER_EPOCH, changing nothing', () => {
    const log = new MemoryLog();
    log.appendAsLeader([rec('a', '1')], 5);
    const bad: unknown[] = [
      [],
      [{ key: 'a', value: null, timestamp: 1 }],
      [{ key: Buffer.from('a'), value: 'x', timestamp: 1 }],
      [{ key: Buffer.from('a'), value: null, timestamp: NaN }],
    ];
    for (const records of bad) {
      expect(() => log.appendAsLeader(records as never, 5)).toThrow(
        expect.objectContaining({ errorCode: ErrorCode.INVALID_REQUEST }),
      );
    }
    expect(() => log.appendAsLeader([rec('b', '1')], 4)).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.FENCED_LEADER_EPOCH }),
    );
    expect(log.logEndOffset).toBe(1);
  });

  it('compacts flushed data below the limit to the latest record per key, keeping offsets, epochs and the log end', async () => {
    const log = new MemoryLog();
    log.appendAsLeader([rec('a', '1'), rec('b', '1')], 0);
    log.appendAsLeader([rec('a', '2')], 1);
    log.appendAsLeader([rec('b', '2'), rec('c', '1')], 1);
    await log.flush();
    log.appendAsLeader([rec('c', '2')], 1);
    const stats = await log.compact(ALL, 2_000, 10_000);
    expect(flatten(log.read(0, ALL, 100))).toEqual([
      [2, 'a', '2'],
      [3, 'b', '2'],
      [4, 'c', '1'],
      [5, 'c', '2'],
    ]);
    expect(log.read(0, ALL, 100).map((b) => [b.baseOffset, b.leaderEpoch])).toEqual([
      [2, 1],
      [3, 1],
      [5, 1],
    ]);
    expect(stats).toMatchObject({ recordsBefore: 6, recordsAfter: 4 });
    expect(stats.bytesAfter).toBeLessThan(stats.bytesBefore);
    expect(log.logEndOffset).toBe(6);
    expect(log.appendAsLeader([rec('d', '1')], 1).baseOffset).toBe(6);
  });

  it('drops a tombstone and everything it deleted only once the tombstone is older than the retention', async () => {
    const log = new MemoryLog();
    log.appendAsLeader([rec('a', '1', 100), rec('b', '1', 100)], 0);
    log.appendAsLeader([rec('a', null, 1_000)], 0);
    await log.flush();
    await log.compact(ALL, 1_500, 1_000);
    expect(flatten(log.read(0, ALL, 100))).toEqual([
      [1, 'b', '1'],
      [2, 'a', null],
    ]);
    await log.compact(ALL, 2_000, 1_000);
    expect(flatten(log.read(0, ALL, 100))).toEqual([[1, 'b', '1']]);
    expect(replay(log.read(0, ALL, 100))).toEqual(new Map([['b', '1']]));
    expect(log.logEndOffset).toBe(3);
    expect(log.appendAsLeader([rec('c', '1')], 0).baseOffset).toBe(3);
  });

  it('reports the dirty ratio of its cleanable part and resets it by compacting', async () => {
    const log = new MemoryLog();
    expect(log.dirtyRatio(ALL)).toBe(0);
    for (let i = 0; i < 10; i++) log.appendAsLeader([rec('k', String(i))], 0);
    await log.flush();
    expect(log.dirtyRatio(ALL)).toBe(1);
    await log.compact(ALL, 0, 0);
    expect(log.dirtyRatio(ALL)).toBe(0);
    log.appendAsLeader([rec('k', 'x')], 0);
    await log.flush();
    expect(log.dirtyRatio(ALL)).toBe(0.5);
  });

  it('fails appends and flushes with KAFKA_STORAGE_ERROR after a disk failure, until a restart', async () => {
    const log = new MemoryLog();
    log.appendAsLeader([rec('a', '1')], 0);
    log.failDisk();
    expect(() => log.appendAsLeader([rec('b', '1')], 0)).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR }),
    );
    await expect(log.flush()).rejects.toMatchObject({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
    log.crash();
    expect(log.logEndOffset).toBe(0);
    expect(log.appendAsLeader([rec('b', '1')], 0).baseOffset).toBe(0);
  });
});
