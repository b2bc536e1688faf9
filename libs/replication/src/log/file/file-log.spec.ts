import { copyFileSync, readdirSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { ErrorCode } from '@cohort/protocol';
import { failSyncs, flatten, rec, replay, makeTempDir, removeDir } from '@cohort/replication/testing';
import { CLEAN_CLOSE_INDEX } from './clean-close-index';
import { FileLog } from './file-log';
import { SLICE_BYTES } from './segment-cleaner';
import { segmentFileName, swapFileName } from './segment-files';

const ALL = Number.MAX_SAFE_INTEGER;

describe('FileLog', () => {
  let dir: string;
  const logs: FileLog[] = [];
  const openLog = async (segmentBytes?: number) => {
    const log = await FileLog.open(dir, { segmentBytes });
    logs.push(log);
    return log;
  };

  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((l) => l.close().catch(() => undefined)));
    removeDir(dir);
  });

  it('reads the same records with shared buffers as with copies, from the file and from unwritten appends alike', async () => {
    const log = await openLog();
    log.appendAsLeader([rec('a', '1'), rec('b', null), rec('c', 'three')], 1);
    await log.flush();
    log.appendAsLeader([rec('d', '4')], 1);
    const shared = log.read(0, ALL, 100, { shareBuffers: true });
    expect(flatten(shared)).toEqual(flatten(log.read(0, ALL, 100)));
    expect(flatten(shared)).toEqual([
      [0, 'a', '1'],
      [1, 'b', null],
      [2, 'c', 'three'],
      [3, 'd', '4'],
    ]);
  });

  it('makes appends readable at once and keeps them, offsets and epochs across a reopen', async () => {
    const log = await openLog();
    expect(log.recovery.clean).toBe(true);
    log.appendAsLeader([rec('a', '1'), rec('b', null, 7)], 2);
    log.appendAsLeader([rec('a', '2')], 3);
    expect(flatten(log.read(0, ALL, 100))).toEqual([
      [0, 'a', '1'],
      [1, 'b', null],
      [2, 'a', '2'],
    ]);
    expect(log.flushedOffset).toBe(0);
    await log.flush();
    expect(log.flushedOffset).toBe(3);
    await log.close();

    const reopened = await openLog();
    expect(reopened.recovery).toMatchObject({ clean: true, logEndOffset: 3, batches: 2 });
    const batches = reopened.read(0, ALL, 100);
    expect(batches.map((b) => [b.baseOffset, b.leaderEpoch])).toEqual([
      [0, 2],
      [2, 3],
    ]);
    expect(batches[0].records[1]).toMatchObject({ offset: 1, leaderEpoch: 2, value: null, timestamp: 7 });
    expect(reopened.appendAsLeader([rec('c', '1')], 3).baseOffset).toBe(3);
    expect(() => reopened.appendAsLeader([rec('c', '1')], 2)).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.FENCED_LEADER_EPOCH }),
    );
  });

  it('rolls segments at the configured size, named by base offset, and reads across them', async () => {
    const log = await openLog(200);
    for (let i = 0; i < 30; i++) log.appendAsLeader([rec(`k${i}`, 'v'.repeat(20))], 0);
    await log.flush();
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.log'))
      .sort();
    expect(files.length).toBeGreaterThan(5);
    expect(files[0]).toBe(segmentFileName(0));
    for (const f of files) expect(statSync(path.join(dir, f)).size).toBeLessThanOrEqual(200);
    expect(flatten(log.read(0, ALL, 1000)).map(([o]) => o)).toEqual([...Array(30).keys()]);
    expect(flatten(log.read(17, 20, 1000)).map(([o]) => o)).toEqual([17, 18, 19]);
    await log.close();
    const reopened = await openLog(200);
    expect(reopened.recovery.segments).toBe(files.length);
    expect(flatten(reopened.read(0, ALL, 1000)).map(([o]) => o)).toEqual([...Array(30).keys()]);
  });

  it('cuts a torn tail back to the last whole batch on open and reports it', async () => {
    const log = await openLog();
    log.appendAsLeader([rec('a', '1')], 0);
    log.appendAsLeader([rec('b', '1'), rec('c', '1')], 0);
    await log.close();
    const file = path.join(dir, segmentFileName(0));
    const size = statSync(file).size;
    truncateSync(file, size - 3);

    const reopened = await openLog();
    expect(reopened.recovery.clean).toBe(false);
    expect(reopened.recovery.truncatedTails).toEqual([
      expect.objectContaining({
        file,
        segmentBaseOffset: 0,
        keptUpToOffset: 1,
        droppedBytes: size - 3 - statSync(file).size,
      }),
    ]);
    expect(reopened.logEndOffset).toBe(1);
    expect(flatten(reopened.read(0, ALL, 100))).toEqual([[0, 'a', '1']]);
    expect(reopened.appendAsLeader([rec('d', '1')], 0).baseOffset).toBe(1);
  });

  it('drops a corrupt batch and every later segment after a crash, reporting each file', async () => {
    const log = await openLog(120);
    for (let i = 0; i < 12; i++) log.appendAsLeader([rec(`k${i}`, 'value-' + i)], 0);
    await log.flush();
    await log.abort();
    const files = readdirSync(dir)
      .filter((f) => f.endsWith('.log'))
      .sort();
    expect(files.length).toBeGreaterThan(3);
    const victim = path.join(dir, files[1]);
    const bytes = readFileSync(victim);
    bytes[bytes.length - 2] ^= 0xff;
    writeFileSync(victim, bytes);

    const reopened = await openLog(120);
    const report = reopened.recovery;
    expect(report.truncatedTails).toHaveLength(1);
    expect(report.truncatedTails[0].file).toBe(victim);
    expect(report.removedFiles.map((f) => path.basename(f.file))).toEqual(files.slice(2));
    expect(reopened.logEndOffset).toBe(report.truncatedTails[0].keptUpToOffset);
    const offsets = flatten(reopened.read(0, ALL, 100)).map(([o]) => o);
    expect(offsets).toEqual([...Array(reopened.logEndOffset).keys()]);
  });

  it('groups concurrent flushes into a few fsyncs', async () => {
    const log = await openLog();
    log.appendAsLeader([rec('warm', 'up')], 0);
    await log.flush();
    const handleProto = Object.getPrototypeOf(
      (logs[0] as unknown as { segments: Array<{ handle: object }> }).segments[0].handle,
    );
    const sync = jest.spyOn(handleProto, 'sync');
    const flushes: Promise<void>[] = [];
    for (let i = 0; i < 100; i++) {
      log.appendAsLeader([rec(`k${i}`, 'v')], 0);
      flushes.push(log.flush());
    }
    await Promise.all(flushes);
    expect(sync.mock.calls.length).toBeLessThanOrEqual(2);
    expect(log.flushedOffset).toBe(101);
    sync.mockRestore();
  });

  it('truncates across segments and inside a batch, durably', async () => {
    const log = await openLog(150);
    for (let i = 0; i < 10; i++) log.appendAsLeader([rec(`a${i}`, 'x'.repeat(10)), rec(`b${i}`, 'y'.repeat(10))], 0);
    await log.flush();
    const segmentsBefore = log.segmentCount;
    log.truncateTo(7);
    expect(log.logEndOffset).toBe(7);
    expect(log.flushedOffset).toBe(7);
    expect(log.segmentCount).toBeLessThan(segmentsBefore);
    expect(flatten(log.read(0, ALL, 100)).map(([o]) => o)).toEqual([0, 1, 2, 3, 4, 5, 6]);
    log.appendAsFollower([
      { baseOffset: 7, leaderEpoch: 4, records: [{ ...rec('new', '1'), offset: 7, leaderEpoch: 4 }] },
    ]);
    await log.close();

    const reopened = await openLog(150);
    expect(reopened.recovery.clean).toBe(true);
    const read = flatten(reopened.read(0, ALL, 100));
    expect(read.map(([o]) => o)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(read[7]).toEqual([7, 'new', '1']);
  });

  it('compacts closed segments only, keeping offsets, epochs and the log end across a reopen', async () => {
    const log = await openLog(100);
    for (let i = 0; i < 40; i++) log.appendAsLeader([rec(`k${i % 4}`, `v${i}`, 1_000)], Math.floor(i / 10));
    log.appendAsLeader([rec('k0', null, 1_000)], 3);
    await log.flush();
    const expected = replay(log.read(0, ALL, 1000));
    const leo = log.logEndOffset;
    const lastSegmentBase = (log as unknown as { segments: Array<{ baseOffset: number }> }).segments.at(-1)!.baseOffset;

    const stats = await log.compact(leo, 1_500, 10_000);
    expect(stats.recordsAfter).toBeLessThan(stats.recordsBefore);
    expect(stats.bytesAfter).toBeLessThan(stats.bytesBefore);
    const after = log.read(0, ALL, 1000);
    expect(replay(after)).toEqual(expected);
    const belowActive = flatten(after).filter(([o]) => o < lastSegmentBase);
    expect(new Set(belowActive.map(([, k]) => k)).size).toBe(belowActive.length);
    for (const b of after)
      for (const r of b.records) expect(r.leaderEpoch).toBe(r.offset === 40 ? 3 : Math.floor(r.offset / 10));
    expect(log.logEndOffset).toBe(leo);
    await log.close();

    const reopened = await openLog(100);
    expect(reopened.recovery.clean).toBe(true);
    expect(reopened.logEndOffset).toBe(leo);
    expect(flatten(reopened.read(0, ALL, 1000))).toEqual(flatten(after));
    expect(readdirSync(dir).filter((f) => !f.endsWith('.log') && f !== CLEAN_CLOSE_INDEX)).toEqual([]);
  });

  it('yields to the event loop between slices of at most SLICE_BYTES while compacting big batches', async () => {
    const log = await openLog(4 * 1024 * 1024);
    const value = 'v'.repeat(200 * 1024);
    for (let i = 0; i < 24; i++) log.appendAsLeader([rec(`k${i % 2}`, value, 1_000)], 0);
    await log.flush();
    const closed = (log as unknown as { segments: Array<{ size: number }> }).segments[0].size;
    const immediate = jest.spyOn(global, 'setImmediate');
    try {
      await log.compact(log.logEndOffset, 1_500, 10_000);
      // Both passes read the closed segment a slice at a time (batches of 200 KiB: one slice each).
      expect(immediate.mock.calls.length).toBeGreaterThanOrEqual(2 * Math.floor(closed / SLICE_BYTES));
    } finally {
      immediate.mockRestore();
    }
  });

  it('removes a tombstone and the values it deleted once it is older than the retention', async () => {
    const log = await openLog(60);
    log.appendAsLeader([rec('gone', 'v', 0)], 0);
    log.appendAsLeader([rec('kept', 'v', 0)], 0);
    log.appendAsLeader([rec('gone', null, 0)], 0);
    for (let i = 0; i < 3; i++) log.appendAsLeader([rec(`pad${i}`, 'v', 0)], 0);
    await log.flush();
    await log.compact(ALL, 100, 50);
    const keys = flatten(log.read(0, ALL, 100)).map(([, k]) => k);
    expect(keys).not.toContain('gone');
    expect(keys).toContain('kept');
  });

  it('completes a compaction swap a crash interrupted and deletes unfinished compaction output', async () => {
    const cleanDir = makeTempDir();
    try {
      for (const d of [dir, cleanDir]) {
        const l = await FileLog.open(d, { segmentBytes: 80 });
        for (let i = 0; i < 12; i++) l.appendAsLeader([rec(`k${i % 2}`, `v${i}`)], 0);
        await l.flush();
        if (d === cleanDir) await l.compact(ALL, 0, 1);
        await l.close();
      }
      const cleaned = readdirSync(cleanDir)
        .filter((f) => f.endsWith('.log'))
        .sort();
      const next = Number(cleaned[1].slice(0, 20));
      copyFileSync(path.join(cleanDir, cleaned[0]), path.join(dir, swapFileName(0, next)));
      writeFileSync(path.join(dir, '00000000000000000000.cleaned'), 'partial');
      const expected = await FileLog.open(cleanDir, { segmentBytes: 80 });
      logs.push(expected);

      const reopened = await openLog(80);
      expect(reopened.recovery.completedSwaps).toHaveLength(1);
      expect(reopened.recovery.removedFiles).toEqual([
        expect.objectContaining({ reason: 'incomplete compaction output' }),
      ]);
      expect(flatten(reopened.read(0, ALL, 100))).toEqual(flatten(expected.read(0, ALL, 100)));
    } finally {
      removeDir(cleanDir);
    }
  });

  it('reports the dirty ratio of its closed segments', async () => {
    const log = await openLog(60);
    expect(log.dirtyRatio(ALL)).toBe(0);
    for (let i = 0; i < 6; i++) log.appendAsLeader([rec('k', `v${i}`)], 0);
    expect(log.dirtyRatio(ALL)).toBe(0);
    await log.flush();
    expect(log.dirtyRatio(ALL)).toBe(1);
    await log.compact(ALL, 0, 1);
    expect(log.dirtyRatio(ALL)).toBe(0);
  });

  it('turns an I/O error into KAFKA_STORAGE_ERROR for flushes and later appends, without crashing', async () => {
    const log = await openLog();
    log.appendAsLeader([rec('a', '1')], 0);
    await log.flush();
    // The file disappears from under the log (a disk going away): the next write fails.
    await (log as unknown as { segments: Array<{ handle: { close(): Promise<void> } }> }).segments[0].handle.close();
    log.appendAsLeader([rec('b', '1')], 0);
    await expect(log.flush()).rejects.toMatchObject({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
    expect(() => log.appendAsLeader([rec('c', '1')], 0)).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR }),
    );
    expect(log.flushedOffset).toBe(1);
  });

  it('holds a file operation that fails (a full disk) and runs it again on heal(): failed meanwhile, nothing lost after', async () => {
    const faults: string[] = [];
    const log = await FileLog.open(dir, { onFault: (fault) => faults.push(fault.message) });
    logs.push(log);
    log.appendAsLeader([rec('a', '1')], 0);
    await log.flush();
    const disk = await failSyncs(dir);
    log.appendAsLeader([rec('b', '2')], 0);
    await expect(log.flush()).rejects.toMatchObject({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
    expect(faults).toEqual([expect.stringContaining('ENOSPC')]);
    expect(log.storageFault?.errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    expect(() => log.appendAsLeader([rec('c', '3')], 0)).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR }),
    );
    // Reads go on, the unsynced append included.
    expect(flatten(log.read(0, ALL, ALL))).toEqual([
      [0, 'a', '1'],
      [1, 'b', '2'],
    ]);
    await expect(log.heal()).rejects.toMatchObject({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
    disk.restore();
    await log.heal();
    expect(log.storageFault).toBeUndefined();
    // The fault was told once, however many attempts failed.
    expect(faults).toHaveLength(1);
    log.appendAsLeader([rec('c', '3')], 0);
    await log.flush();
    expect(log.flushedOffset).toBe(3);
    await log.close();
    const reopened = await openLog();
    expect(reopened.recovery.fromCleanClose).toBe(true);
    expect(flatten(reopened.read(0, ALL, ALL)).map(([, key]) => key)).toEqual(['a', 'b', 'c']);
  });

  it('refuses appends after close with KAFKA_STORAGE_ERROR', async () => {
    const log = await openLog();
    await log.close();
    expect(() => log.appendAsLeader([rec('a', '1')], 0)).toThrow(
      expect.objectContaining({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR }),
    );
  });

  it('keeps the log end when a truncation lands in a compaction gap', async () => {
    const log = await openLog(60);
    for (let i = 0; i < 8; i++) log.appendAsLeader([rec('same', `v${i}`)], 0);
    log.appendAsLeader([rec('other', 'x')], 0);
    await log.flush();
    await log.compact(ALL, 0, 1);
    log.truncateTo(6);
    expect(log.logEndOffset).toBe(6);
    await log.close();
    const reopened = await openLog(60);
    expect(reopened.logEndOffset).toBe(6);
    expect(reopened.appendAsLeader([rec('n', '1')], 0).baseOffset).toBe(6);
  });
});
