import { copyFileSync, readFileSync, statSync, truncateSync, writeFileSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import * as path from 'node:path';
import { ErrorCode } from '@cohort/protocol';
import { flatten, journalFixture, rec } from '@cohort/replication/testing';
import { FileLog } from './file-log';
import { decodeJournalEntries } from './journal-entries';
import { LogJournal } from './log-journal';
import { segmentFileName } from './segment-files';

const ALL = Number.MAX_SAFE_INTEGER;

describe('LogJournal', () => {
  const fixture = journalFixture('cohort-journal-');
  const { model, syncs, opened: open2, openAll, crash, journalFiles } = fixture;
  let dir: string;
  beforeEach(() => {
    dir = fixture.dir();
  });

  it('makes the flushes of many logs durable with one fdatasync of one file, and none of the segment files', async () => {
    const { logs } = await openAll(5);
    const before = { ...model.calls };
    logs.forEach((log, p) => log.appendAsLeader([rec(`k${p}`, 'v')], 0));
    await Promise.all(logs.map((l) => l.flush()));
    expect(logs.map((l) => l.flushedOffset)).toEqual([1, 1, 1, 1, 1]);
    expect(model.calls).toEqual({ sync: before.sync, datasync: before.datasync + 1 });
    // The metrics hook hears of that one sync, with the bytes of the five entries it made durable.
    const journalBytes = journalFiles().reduce((n, f) => n + entriesEnd(readFileSync(path.join(dir, 'journal', f))), 0);
    expect(syncs).toEqual([{ durationMs: expect.any(Number), bytes: journalBytes }]);
    expect(journalBytes).toBeGreaterThan(5 * 13);
  });

  it('puts back every flushed batch that a power cut took from the segment files, and reports it', async () => {
    const first = await openAll(3);
    for (let i = 0; i < 20; i++) first.logs[i % 3].appendAsLeader([rec(`k${i}`, `v${i}`)], 0);
    await Promise.all(first.logs.map((l) => l.flush()));
    first.logs[0].appendAsLeader([rec('unflushed', 'x')], 0);
    const expected = first.logs.map((l) => flatten(l.read(0, 7, ALL)));
    await crash(first);
    model.loseUnsynced(dir);

    const { logs, report } = await openAll(3);
    expect(logs.map((l) => flatten(l.read(0, ALL, ALL)))).toEqual(expected);
    expect(report).toMatchObject({
      files: 1,
      entries: 20,
      batchesKept: 0,
      batchesRedone: 20,
      truncationsRedone: 0,
      tornBytes: 0,
    });
    // The replayed batches are in the segment files now, durably: the old journal is gone, and a
    // second power cut at once loses nothing.
    expect(journalFiles()).toHaveLength(1);
    await crash({ logs, journal: open2[open2.length - 1].journal });
    model.loseUnsynced(dir);
    const again = await openAll(3);
    expect(again.report.entries).toBe(0);
    expect(again.logs.map((l) => flatten(l.read(0, ALL, ALL)))).toEqual(expected);
  });

  it('redoes a truncation the segment file lost, and the batches written after it in the new epoch', async () => {
    const first = await openAll(1);
    const [log] = first.logs;
    log.appendAsLeader([rec('a', '1'), rec('b', '1'), rec('c', '1')], 0);
    await log.flush();
    await log.checkpointFiles();
    const segment = path.join(dir, 'p0', segmentFileName(0));
    copyFileSync(segment, `${segment}.before`);
    log.truncateTo(1);
    log.appendAsLeader([rec('b', '2')], 1);
    await log.flush();
    await crash(first);
    // The truncation and the new batch never reached the segment file: it still holds epoch 0's records.
    copyFileSync(`${segment}.before`, segment);

    const { logs, report } = await openAll(1);
    expect(flatten(logs[0].read(0, ALL, ALL))).toEqual([
      [0, 'a', '1'],
      [1, 'b', '2'],
    ]);
    expect(logs[0].read(0, ALL, ALL).map((b) => b.leaderEpoch)).toEqual([0, 1]);
    // The trimmed batch the truncation leaves (offset 0) is the truncation's own work, redone with it.
    expect(report).toMatchObject({ batchesKept: 1, batchesRedone: 1, truncationsRedone: 1 });
  });

  it('redoes a truncation that is the last thing the journal holds for a log', async () => {
    const first = await openAll(1);
    const [log] = first.logs;
    log.appendAsLeader([rec('a', '1'), rec('b', '1'), rec('c', '1')], 0);
    await log.flush();
    await log.checkpointFiles();
    log.truncateTo(2);
    await log.flush();
    await crash(first);
    model.loseUnsynced(dir);
    const { logs, report } = await openAll(1);
    expect(flatten(logs[0].read(0, ALL, ALL))).toEqual([
      [0, 'a', '1'],
      [1, 'b', '1'],
    ]);
    expect(report).toMatchObject({ truncationsRedone: 1 });
  });

  it('fills its file with zeros ahead of the entries, so a sync does not grow it, and reads them as no entry', async () => {
    const first = await openAll(1, 64 * 1024);
    first.logs[0].appendAsLeader([rec('a', '1')], 0);
    await first.logs[0].flush();
    const file = path.join(dir, 'journal', journalFiles()[0]);
    const preallocated = statSync(file).size;
    expect(preallocated).toBe(64 * 1024);
    first.logs[0].appendAsLeader([rec('b', '2')], 0);
    await first.logs[0].flush();
    expect(statSync(file).size).toBe(preallocated);
    await crash(first);
    model.loseUnsynced(dir);
    const { logs, report } = await openAll(1);
    expect(flatten(logs[0].read(0, ALL, ALL))).toEqual([
      [0, 'a', '1'],
      [1, 'b', '2'],
    ]);
    expect(report).toMatchObject({ entries: 2, batchesRedone: 2, tornBytes: 0 });
  });

  it('ignores a torn write at the end of the journal (never synced, never acknowledged)', async () => {
    const first = await openAll(1);
    first.logs[0].appendAsLeader([rec('a', '1')], 0);
    await first.logs[0].flush();
    await crash(first);
    model.loseUnsynced(dir);
    const file = path.join(dir, 'journal', journalFiles()[0]);
    const bytes = readFileSync(file);
    Buffer.from([0, 0, 0, 40, 1, 2, 3]).copy(bytes, entriesEnd(bytes)); // over the zeros that follow the entries
    writeFileSync(file, bytes);
    const { logs, report } = await openAll(1);
    expect(flatten(logs[0].read(0, ALL, ALL))).toEqual([[0, 'a', '1']]);
    expect(report).toMatchObject({ batchesRedone: 1, tornBytes: 7 });
  });

  it('ends the journal at a batch whose frame fails its own checksum, as at a torn write', async () => {
    const first = await openAll(1);
    first.logs[0].appendAsLeader([rec('a', '1')], 0);
    await first.logs[0].flush();
    first.logs[0].appendAsLeader([rec('b', '2')], 0);
    await first.logs[0].flush();
    await crash(first);
    model.loseUnsynced(dir);
    const file = path.join(dir, 'journal', journalFiles()[0]);
    const bytes = readFileSync(file);
    const second = firstEntrySize(bytes);
    const end = entriesEnd(bytes);
    bytes[end - 1] ^= 0x5a; // the last byte of the second entry's frame: a record's value
    writeFileSync(file, bytes);
    const { logs, report } = await openAll(1);
    expect(flatten(logs[0].read(0, ALL, ALL))).toEqual([[0, 'a', '1']]);
    expect(report).toMatchObject({ entries: 1, batchesRedone: 1, tornBytes: end - second });
  });

  it('retires a full journal file only once every log made its own files durable', async () => {
    const first = await openAll(2, 600);
    const expected: Array<Array<[number, string, string | null]>> = [[], []];
    for (let i = 0; i < 60; i++) {
      const p = i % 2;
      const batch = first.logs[p].appendAsLeader([rec(`k${i}`, 'v'.repeat(i % 7))], 0);
      expected[p].push(...flatten([batch]));
      await first.logs[p].flush();
    }
    // Retirement runs in the background; wait until it has caught up.
    for (let i = 0; i < 100 && journalFiles().length > 2; i++) await new Promise((r) => setTimeout(r, 5));
    expect(journalFiles().length).toBeLessThanOrEqual(2);
    await crash(first);
    model.loseUnsynced(dir);
    const { logs } = await openAll(2, 600);
    expect(logs.map((l) => flatten(l.read(0, ALL, ALL)))).toEqual(expected);
  });

  it('keeps every flush that resolved before a power cut, with many flushes in flight and files rotating', async () => {
    const first = await openAll(4, 700);
    const acked: Array<[number, string]> = [];
    const expected: string[][] = [[], [], [], []];
    let cut = false;
    const flushes: Array<Promise<void>> = [];
    for (let i = 0; acked.length < 150 && i < 10_000; i++) {
      const p = i % 4;
      const key = `k${i}`;
      first.logs[p].appendAsLeader([rec(key, 'v'.repeat(i % 9))], 0);
      flushes.push(
        first.logs[p].flush().then(
          () => {
            if (!cut) acked.push([p, key]);
          },
          () => undefined,
        ),
      );
      if (i % 3 === 0) await new Promise((r) => setImmediate(r));
    }
    cut = true;
    model.freeze();
    for (const [p, key] of acked) expected[p].push(key);
    await crash(first);
    await Promise.allSettled(flushes);
    model.loseUnsynced(dir);
    const { logs } = await openAll(4, 700);
    for (let p = 0; p < 4; p++) {
      const kept = new Set(flatten(logs[p].read(0, ALL, ALL)).map(([, key]) => key));
      expect(expected[p].filter((key) => !kept.has(key))).toEqual([]);
    }
    // Hundreds of real fsyncs through the page-cache model: seconds on a busy machine, so not Jest's default 5 s.
  }, 60_000);

  it('overlaps syncs, and acknowledges a flush only once a sync issued after its append has ended', async () => {
    const first = await openAll(2);
    first.logs[0].appendAsLeader([rec('a', '1')], 0);
    await first.logs[0].flush();
    model.hold();
    const acked: string[] = [];
    const flush = (p: number, key: string) => {
      first.logs[p].appendAsLeader([rec(key, 'v')], 0);
      return first.logs[p].flush().then(() => void acked.push(key));
    };
    const b = flush(0, 'b');
    await until(() => model.held.length === 1);
    const c = flush(1, 'c').catch(() => undefined);
    // c's sync is issued while b's still runs, not once it has ended.
    await until(() => model.held.length === 2);
    expect(model.held).toHaveLength(2);
    model.held[0].release();
    await b;
    await until(() => false, 20);
    // b's sync was issued before c was written: its end must not acknowledge c.
    expect(acked).toEqual(['b']);
    // The power is cut before c's sync ends: what was acknowledged is all there after the restart.
    model.freeze();
    await crash(first);
    model.releaseAll();
    await c;
    expect(acked).toEqual(['b']);
    model.loseUnsynced(dir);
    const { logs } = await openAll(2);
    expect(flatten(logs[0].read(0, ALL, ALL)).map(([, key]) => key)).toEqual(['a', 'b']);
  });

  it('answers overlapping syncs in the order they were issued, a later one that ends first waiting for the earlier', async () => {
    const { logs } = await openAll(2);
    model.hold();
    const acked: string[] = [];
    const flush = (p: number, key: string) => {
      logs[p].appendAsLeader([rec(key, 'v')], 0);
      return logs[p].flush().then(() => void acked.push(key));
    };
    const flushes = [flush(0, 'a')];
    await until(() => model.held.length === 1);
    flushes.push(flush(1, 'b'));
    await until(() => model.held.length === 2);
    model.held[1].release();
    await until(() => false, 20);
    expect(acked).toEqual([]);
    model.held[0].release();
    await Promise.all(flushes);
    expect(acked).toEqual(['a', 'b']);
    expect(logs.map((l) => l.flushedOffset)).toEqual([1, 1]);
  });

  it('refuses to start when the journal continues past a hole in a log, or holds a log that is not open', async () => {
    const first = await openAll(2);
    first.logs[0].appendAsLeader([rec('a', '1')], 0);
    first.logs[1].appendAsLeader([rec('b', '1')], 0);
    await first.logs[0].flush();
    await first.logs[0].checkpointFiles();
    first.logs[0].appendAsLeader([rec('a', '2')], 0);
    await first.logs[0].flush();
    await crash(first);

    const journal = await LogJournal.open(path.join(dir, 'journal'));
    const only0 = await FileLog.open(path.join(dir, 'p0'), { journal: { journal, journalId: 0 } });
    await expect(journal.recover()).rejects.toMatchObject({
      errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
      message: expect.stringContaining('log 1'),
    });
    await only0.abort();
    await journal.abort();

    // Offset 0 of p0 is gone from its segment file and the journal says offset 0 was there: replay puts it back.
    // Remove the journal's first entry instead, and offset 1 would follow a hole.
    const file = path.join(dir, 'journal', journalFiles()[0]);
    truncateSync(path.join(dir, 'p0', segmentFileName(0)), 0);
    const bytes = readFileSync(file);
    writeFileSync(file, bytes.subarray(firstEntrySize(bytes)));
    await expect(openAll(2)).rejects.toMatchObject({
      errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
      message: expect.stringContaining('records in between are lost'),
    });
  });

  it('after a clean close leaves no journal behind, and the logs reopen clean', async () => {
    const first = await openAll(2);
    first.logs[1].appendAsLeader([rec('a', '1')], 0);
    await Promise.all(first.logs.map((l) => l.close()));
    await first.journal.close();
    expect(journalFiles()).toEqual([]);
    model.loseUnsynced(dir);
    const { logs, report } = await openAll(2);
    expect(report.files).toBe(0);
    expect(logs.every((l) => l.recovery.clean)).toBe(true);
    expect(flatten(logs[1].read(0, ALL, ALL))).toEqual([[0, 'a', '1']]);
  });

  it('fails the flushes of every log when the journal cannot be written, with KAFKA_STORAGE_ERROR', async () => {
    const { logs, journal } = await openAll(2);
    await (journal as unknown as { current: { handle: FileHandle } }).current.handle.close();
    logs[0].appendAsLeader([rec('a', '1')], 0);
    await expect(logs[0].flush()).rejects.toMatchObject({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
    logs[1].appendAsLeader([rec('b', '1')], 0);
    await expect(logs[1].flush()).rejects.toMatchObject({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
  });
});

/** Lets I/O callbacks run until `done()` holds, at most `turns` times. */
async function until(done: () => boolean, turns = 1000): Promise<void> {
  for (let i = 0; i < turns && !done(); i++) await new Promise((resolve) => setImmediate(resolve));
}

/** Where the entries of a journal file end (the zeros it is preallocated with follow). */
function entriesEnd(bytes: Buffer): number {
  return decodeJournalEntries(bytes).validBytes;
}

function firstEntrySize(bytes: Buffer): number {
  return 8 + bytes.readUInt32BE(0);
}
