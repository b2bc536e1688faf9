import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { FileLog } from './file-log';
import { segmentFileName } from './segment-files';

const ALL = Number.MAX_SAFE_INTEGER;
const record = (key: string) => ({ key: Buffer.from(key), value: Buffer.from('v'), timestamp: 0 });

/**
 * When the log's I/O queue holds nothing a write may not overtake, an append's bytes are in the file
 * before `appendAsLeader` returns (no thread-pool round trip); an fsync in flight lets them pass, a
 * queued truncation does not, and the log reads the same either way.
 */
describe('FileLog writes', () => {
  let dir: string;
  let log: FileLog;
  const fileSize = () => statSync(path.join(dir, segmentFileName(0))).size;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'cohort-file-log-writes-'));
    log = await FileLog.open(dir);
  });
  afterEach(async () => {
    await log.close().catch(() => undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('puts an append in the file at once when nothing is queued, and while an fsync runs', async () => {
    await log.flush();
    log.appendAsLeader([record('a')], 0);
    const afterOne = fileSize();
    expect(afterOne).toBeGreaterThan(0);
    const flushing = log.flush();
    log.appendAsLeader([record('b')], 0);
    expect(fileSize()).toBeGreaterThan(afterOne);
    await flushing;
    await log.flush();
    expect(log.flushedOffset).toBe(2);
  });

  it('does not write past a queued truncation: what the file holds is the truncated log plus later appends', async () => {
    log.appendAsLeader([record('a'), record('b')], 0);
    log.appendAsLeader([record('c')], 0);
    await log.flush();
    const full = fileSize();
    log.truncateTo(2);
    log.appendAsLeader([record('d')], 1);
    expect(fileSize()).toBe(full); // the truncation is queued: the append waits behind it
    await log.flush();
    await log.close();
    log = await FileLog.open(dir);
    expect(log.recovery.clean).toBe(true);
    expect(log.read(0, ALL, 100).flatMap((b) => b.records.map((r) => [r.offset, r.key.toString(), b.leaderEpoch]))).toEqual([
      [0, 'a', 0],
      [1, 'b', 0],
      [2, 'd', 1],
    ]);
  });
});
