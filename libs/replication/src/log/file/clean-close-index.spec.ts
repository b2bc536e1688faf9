import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  unlinkSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import * as path from 'node:path';
import { flatten, makeTempDir, rec, removeDir } from '@cohort/replication/testing';
import { CLEAN_CLOSE_INDEX } from './clean-close-index';
import { FileLog } from './file-log';
import { segmentFileName } from './segment-files';

const ALL = Number.MAX_SAFE_INTEGER;

describe('FileLog after a clean close', () => {
  let dir: string;
  const logs: FileLog[] = [];
  const openLog = async () => {
    const log = await FileLog.open(dir, { segmentBytes: 200 });
    logs.push(log);
    return log;
  };
  /** A log of several segments, two epochs and a truncation, closed cleanly. */
  const closedLog = async () => {
    const log = await openLog();
    for (let i = 0; i < 10; i++) log.appendAsLeader([rec(`k${i}`, `value-${i}`), rec(`j${i}`, null)], i < 5 ? 1 : 2);
    log.truncateTo(17);
    log.appendAsLeader([rec('last', 'one')], 3);
    const before = { end: log.logEndOffset, epoch: log.latestEpoch, records: flatten(log.read(0, ALL, 1000)) };
    await log.close();
    return before;
  };
  const segmentsOnDisk = () =>
    readdirSync(dir)
      .filter((f) => f.endsWith('.log'))
      .sort();

  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((l) => l.close().catch(() => undefined)));
    removeDir(dir);
  });

  it('opens from the index the close left, without reading the segments, and serves the same log', async () => {
    const before = await closedLog();
    expect(segmentsOnDisk().length).toBeGreaterThan(2);
    expect(existsSync(path.join(dir, CLEAN_CLOSE_INDEX))).toBe(true);

    const reopened = await openLog();
    expect(reopened.recovery).toMatchObject({
      clean: true,
      fromCleanClose: true,
      logEndOffset: before.end,
      segments: segmentsOnDisk().length,
    });
    expect(reopened.latestEpoch).toBe(before.epoch);
    expect(flatten(reopened.read(0, ALL, 1000))).toEqual(before.records);
    expect(reopened.appendAsLeader([rec('next', '1')], 3).baseOffset).toBe(before.end);
    await reopened.flush();
    // Gone before the append reached the file, so a crash from here on cannot find it stale.
    expect(existsSync(path.join(dir, CLEAN_CLOSE_INDEX))).toBe(false);
  });

  it.each([
    ['a segment grew', () => appendFileSync(path.join(dir, segmentsOnDisk()[1]), Buffer.alloc(7))],
    ['a segment was removed', () => unlinkSync(path.join(dir, segmentsOnDisk().at(-1)!))],
    ['a segment was added', () => writeFileSync(path.join(dir, segmentFileName(1_000)), '')],
    [
      'a segment was rewritten in place, keeping its size',
      async () => {
        await new Promise((resolve) => setTimeout(resolve, 50));
        const victim = path.join(dir, segmentsOnDisk()[0]);
        writeFileSync(victim, readFileSync(victim));
      },
    ],
    [
      'the index is damaged',
      () => {
        const index = readFileSync(path.join(dir, CLEAN_CLOSE_INDEX));
        index[20] ^= 1;
        writeFileSync(path.join(dir, CLEAN_CLOSE_INDEX), index);
      },
    ],
  ])('reads the whole log instead when %s since the close', async (_what, change) => {
    const before = await closedLog();
    await change();
    const reopened = await openLog();
    expect(reopened.recovery.fromCleanClose).toBe(false);
    expect(existsSync(path.join(dir, CLEAN_CLOSE_INDEX))).toBe(false);
    const records = flatten(reopened.read(0, ALL, 1000));
    expect(records.length).toBeGreaterThan(0);
    expect(records).toEqual(before.records.slice(0, records.length));
  });

  it('leaves nothing to trust after a crash: the next open reads the log, even when a truncation and an append kept the size', async () => {
    await closedLog();
    const log = await openLog();
    const end = log.logEndOffset;
    log.truncateTo(end - 1);
    log.appendAsLeader([rec('LAST', 'ONE')], 3);
    await log.flush();
    await log.abort();

    const reopened = await openLog();
    expect(reopened.recovery.fromCleanClose).toBe(false);
    expect(flatten(reopened.read(end - 1, ALL, 10))).toEqual([[end - 1, 'LAST', 'ONE']]);
  });

  it('fails the read of a batch damaged since the close, and then closes without an index so the next open cuts the damage', async () => {
    await closedLog();
    // Bit rot: the bytes change, the file's size and modification time do not.
    const victim = path.join(dir, segmentsOnDisk()[1]);
    const { atimeMs, mtimeMs } = statSync(victim);
    const bytes = readFileSync(victim);
    bytes[bytes.length - 2] ^= 0xff;
    writeFileSync(victim, bytes);
    // The middle of the same millisecond, so converting seconds to a timestamp cannot cross into the next.
    utimesSync(victim, atimeMs / 1000, (Math.trunc(mtimeMs) + 0.5) / 1000);

    const trusting = await openLog();
    expect(trusting.recovery.fromCleanClose).toBe(true);
    expect(() => trusting.read(0, ALL, 1000)).toThrow(/checksum/);
    await trusting.close();
    expect(existsSync(path.join(dir, CLEAN_CLOSE_INDEX))).toBe(false);

    const recovered = await openLog();
    expect(recovered.recovery.truncatedTails).toEqual([expect.objectContaining({ file: victim })]);
    const offsets = flatten(recovered.read(0, ALL, 1000)).map(([o]) => o);
    expect(offsets.length).toBeGreaterThan(0);
    expect(recovered.logEndOffset).toBe(offsets.at(-1)! + 1);
  });

  it('keeps how far the cleaner got, so a restart does not compact the whole log again; a crash starts it over', async () => {
    const log = await openLog();
    for (let i = 0; i < 20; i++) log.appendAsLeader([rec('k', `v${i}`)], 1);
    await log.flush();
    await log.compact(ALL, 0, 1);
    expect(log.dirtyRatio(ALL)).toBe(0);
    await log.close();

    const reopened = await openLog();
    expect(reopened.recovery.fromCleanClose).toBe(true);
    expect(reopened.dirtyRatio(ALL)).toBe(0);
    await reopened.flush();
    await reopened.abort();
    const afterCrash = await openLog();
    expect(afterCrash.recovery.fromCleanClose).toBe(false);
    expect(afterCrash.dirtyRatio(ALL)).toBe(1);
  });

  it('writes no index when the log failed or was aborted', async () => {
    const log = await openLog();
    log.appendAsLeader([rec('a', '1')], 1);
    await log.flush();
    await log.abort();
    expect(existsSync(path.join(dir, CLEAN_CLOSE_INDEX))).toBe(false);
  });
});
