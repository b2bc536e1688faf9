import { statSync, truncateSync } from 'node:fs';
import * as path from 'node:path';
import { ErrorCode } from '@cohort/protocol';
import { flatten, journalFixture, rec } from '@cohort/replication/testing';
import { segmentFileName } from './segment-files';

const ALL = Number.MAX_SAFE_INTEGER;

// Replay of a journal that holds a batch and then a truncation of the same log, after a power cut that
// left the segment file holding that truncation (and maybe what followed it) or not: a batch the
// truncation takes back is no loss, a hole it leaves in place is.

describe('LogJournal replay of later truncations', () => {
  const fixture = journalFixture('cohort-journal-cuts-');
  const { model, openUnrecovered, openAll, crash } = fixture;
  let dir: string;
  beforeEach(() => {
    dir = fixture.dir();
  });

  /**
   * `durable` made durable in p0's segment file by a clean close (so no journal holds it), then after a
   * restart `next` appended at epoch 1, the log truncated to `to` and flushed, and the power cut: the
   * journal holds the batch, then the truncation (then `after`, when given, appended at epoch 2).
   */
  const truncateAfterCleanRestart = async (durable: string[], next: string, to: number, after?: string) => {
    const first = await openAll(1);
    first.logs[0].appendAsLeader(
      durable.map((key) => rec(key, '1')),
      0,
    );
    await first.logs[0].close();
    await first.journal.close();
    const second = await openAll(1);
    const [log] = second.logs;
    log.appendAsLeader([rec(next, '1')], 1);
    log.truncateTo(to);
    if (after !== undefined) log.appendAsLeader([rec(after, '1')], 2);
    await log.flush();
    await crash(second);
    model.loseUnsynced(dir);
  };

  it('skips a batch that a later truncation cut when the segment file already holds that truncation', async () => {
    // The truncation reached the segment file (it no longer holds offset 0); the journal holds the
    // batch at offset 1 and then the truncation to 0, so the batch starts past the log's end.
    await truncateAfterCleanRestart(['a'], 'b', 0);

    const { logs, report } = await openAll(1);
    expect(flatten(logs[0].read(0, ALL, ALL))).toEqual([]);
    expect(logs[0].logEndOffset).toBe(0);
    expect(report).toMatchObject({ entries: 2, batchesCutLater: 1, batchesRedone: 0 });
  });

  it('still refuses a batch past the log end when the later truncation leaves the hole in place', async () => {
    await truncateAfterCleanRestart(['a', 'b'], 'c', 1);
    // Offsets 0 and 1 were durable in the segment file; damage takes them both, so the journal's
    // truncation to 1 would keep offset 0, which nothing holds any more.
    truncateSync(path.join(dir, 'p0', segmentFileName(0)), 0);
    await expect(openAll(1)).rejects.toMatchObject({
      errorCode: ErrorCode.KAFKA_STORAGE_ERROR,
      message: expect.stringContaining('continues at offset 2 but the log ends at 0'),
    });
  });

  it('replays a truncation and what followed it when the segment file holds them and not the batch they cut', async () => {
    // The segment file holds 'c' at offset 0 in epoch 2, written after the truncation; the journal still
    // holds 'b' of epoch 1 at offset 1 before that truncation. Appending 'b' again would put epoch 1 after
    // epoch 2: the truncation takes 'b' back anyway, so replay leaves it out.
    await truncateAfterCleanRestart(['a'], 'b', 0, 'c');
    expect(statSync(path.join(dir, 'p0', segmentFileName(0))).size).toBeGreaterThan(0);
    const { logs, report } = await openAll(1);
    expect(flatten(logs[0].read(0, ALL, ALL))).toEqual([[0, 'c', '1']]);
    expect(logs[0].read(0, ALL, ALL).map((b) => b.leaderEpoch)).toEqual([2]);
    expect(report).toMatchObject({ batchesCutLater: 1, batchesRedone: 1, truncationsRedone: 1 });
  });

  it('continues a log cut on purpose after a batch that a later truncation cut, with what was written after it', async () => {
    // The journal holds batch 'b' at offset 1, a truncation to 0, then 'c' written at offset 0 in a new
    // epoch; the segment file was cut to nothing. Even for a log the operator let
    // recovery cut (LOG_RECOVERY_TRUNCATE_ON_CORRUPTION), 'b' is one the truncation took back, not a
    // hole: replay must go on to 'c', which was flushed and may have been acknowledged.
    await truncateAfterCleanRestart(['a'], 'b', 0, 'c');
    truncateSync(path.join(dir, 'p0', segmentFileName(0)), 0); // damage cut the file there
    const { logs, report } = await openAll(1, undefined, { cut: new Set([0]) });
    expect(flatten(logs[0].read(0, ALL, ALL))).toEqual([[0, 'c', '1']]);
    expect(report).toMatchObject({ batchesCutLater: 1, batchesRedone: 1, entriesSkipped: 0 });
  });

  it('counts as journaled only what later truncations leave, so a cut that loses nothing is not refused', async () => {
    // 'b' at offset 1 was journaled and then truncated away: recovery weighing damage must not take
    // offset 1 as written (it would refuse a partition that lost nothing); 'c' rewrote offset 0.
    await truncateAfterCleanRestart(['a'], 'b', 0, 'c');
    const { journal } = await openUnrecovered(1);
    expect(journal.journaledEnd(0)).toBe(1);
    expect(journal.replayReach(0, 0)).toBe(1);
  });
});
