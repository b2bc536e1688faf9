import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { flatten, rec, makeTempDir, removeDir } from '@cohort/replication/testing';
import { encodeBatch } from '../batch-codec';
import { FileLog } from './file-log';
import { segmentFileName } from './segment-files';

const ALL = Number.MAX_SAFE_INTEGER;

/**
 * A crash can undo a truncation in one segment file (its cut never reached the disk) and keep a newer
 * segment file the log rolled after it. The newer file's name says where the log ended when it was
 * created: what the older file holds at or past it was truncated, and must not be read back.
 */
describe('FileLog recovery of a truncation a crash undid', () => {
  let dir: string;
  const logs: FileLog[] = [];
  const openLog = async () => {
    const log = await FileLog.open(dir);
    logs.push(log);
    return log;
  };
  /** A log of one batch (offsets 0-2, epoch 1) left by a crash, without the index a clean close writes. */
  const crashedWithOneBatch = async () => {
    const log = await openLog();
    log.appendAsLeader([rec('a', '1'), rec('b', '2'), rec('c', '3')], 1);
    await log.flush();
    await log.abort();
  };

  beforeEach(() => {
    dir = makeTempDir();
  });
  afterEach(async () => {
    await Promise.all(logs.splice(0).map((l) => l.close().catch(() => undefined)));
    removeDir(dir);
  });

  it('keeps a batch that straddles the newer segment trimmed below it, and reads the newer records after it', async () => {
    await crashedWithOneBatch();
    // The log was cut to 2 (the batch trimmed to offsets 0-1), then appended offsets 2-3 in epoch 2 to a
    // segment it rolled at 2; the crash kept that file and gave the first one back its untrimmed batch.
    const newer = encodeBatch({
      baseOffset: 2,
      leaderEpoch: 2,
      records: [
        { offset: 2, leaderEpoch: 2, key: Buffer.from('x'), value: Buffer.from('new'), timestamp: 1_000 },
        { offset: 3, leaderEpoch: 2, key: Buffer.from('y'), value: Buffer.from('new'), timestamp: 1_000 },
      ],
    });
    writeFileSync(path.join(dir, segmentFileName(2)), newer);

    const reopened = await openLog();
    expect(reopened.recovery.clean).toBe(false);
    expect(reopened.recovery.damage).toBeUndefined();
    expect(reopened.recovery.truncatedTails).toEqual([
      expect.objectContaining({
        file: path.join(dir, segmentFileName(0)),
        keptUpToOffset: 2,
        reason: expect.stringContaining('truncated before the segment of offset 2 was created'),
      }),
    ]);
    const expected = [
      [0, 'a', '1'],
      [1, 'b', '2'],
      [2, 'x', 'new'],
      [3, 'y', 'new'],
    ];
    expect(flatten(reopened.read(0, ALL, 100))).toEqual(expected);
    expect(reopened.read(0, ALL, 100).map((b) => [b.baseOffset, b.leaderEpoch])).toEqual([
      [0, 1],
      [2, 2],
    ]);
    expect(reopened.logEndOffset).toBe(4);
    // Rewritten through a swap file, as compaction rewrites a segment; none is left behind.
    expect(readdirSync(dir).sort()).toEqual([segmentFileName(0), segmentFileName(2)]);

    // The repair is on disk: a second crash reads the same log without repairing anything.
    await reopened.abort();
    const again = await openLog();
    expect(again.recovery.clean).toBe(true);
    expect(flatten(again.read(0, ALL, 100))).toEqual(expected);
  });

  it('cuts the stale records when the newer segment is still empty, and appends after the cut', async () => {
    await crashedWithOneBatch();
    const first = path.join(dir, segmentFileName(0));
    const untrimmed = readFileSync(first).length;
    writeFileSync(path.join(dir, segmentFileName(1)), Buffer.alloc(0));

    const reopened = await openLog();
    expect(reopened.logEndOffset).toBe(1);
    expect(flatten(reopened.read(0, ALL, 100))).toEqual([[0, 'a', '1']]);
    expect(readFileSync(first).length).toBeLessThan(untrimmed);
    expect(reopened.appendAsLeader([rec('d', '4')], 2).baseOffset).toBe(1);
    expect(flatten(reopened.read(0, ALL, 100))).toEqual([
      [0, 'a', '1'],
      [1, 'd', '4'],
    ]);
  });
});
