import * as path from 'node:path';
import { ErrorCode } from '@cohort/protocol';
import { failSyncs, flatten, rec, makeTempDir, removeDir } from '@cohort/replication/testing';
import { FileLog } from './file-log';
import { LogJournal } from './log-journal';

const ALL = Number.MAX_SAFE_INTEGER;

// A journal whose storage fails (a full disk): flushes fail with KAFKA_STORAGE_ERROR until heal() writes
// the failed write again in place, and nothing acknowledged before or after is lost to a crash.

describe('LogJournal storage faults', () => {
  let dir: string;
  beforeEach(() => {
    dir = makeTempDir('cohort-journal-fault-');
  });
  afterEach(() => removeDir(dir));

  it('fails the flushes of a write that failed, then writes it again in place on heal(): a crash after keeps every record', async () => {
    const faults: string[] = [];
    const open = async () => {
      const journal = await LogJournal.open(path.join(dir, 'journal'), { onFault: (f) => faults.push(f.message) });
      const logs = [0, 1].map((p) => FileLog.open(path.join(dir, `p${p}`), { journal: { journal, journalId: p } }));
      const opened = await Promise.all(logs);
      await journal.recover();
      return { journal, logs: opened };
    };
    const { journal, logs } = await open();
    logs[0].appendAsLeader([rec('a', '1')], 0);
    await logs[0].flush();
    const disk = await failSyncs(dir);
    logs[0].appendAsLeader([rec('b', '2')], 0);
    logs[1].appendAsLeader([rec('c', '3')], 0);
    const failed = await Promise.allSettled(logs.map((l) => l.flush()));
    expect(failed.map((r) => r.status === 'rejected' && (r.reason as { errorCode: number }).errorCode)).toEqual([
      ErrorCode.KAFKA_STORAGE_ERROR,
      ErrorCode.KAFKA_STORAGE_ERROR,
    ]);
    expect(faults).toEqual([expect.stringMatching(/the journal in .* failed: ENOSPC/)]);
    await expect(journal.sync()).rejects.toMatchObject({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
    await expect(journal.heal()).rejects.toMatchObject({ errorCode: ErrorCode.KAFKA_STORAGE_ERROR });
    disk.restore();
    await journal.heal();
    expect(journal.storageFault).toBeUndefined();
    for (const log of logs) await log.heal();
    logs[1].appendAsLeader([rec('d', '4')], 0);
    await logs[1].flush();
    // A crash: the segment files were never fsynced, the journal's replay must bring everything back.
    await Promise.all(logs.map((l) => l.abort()));
    await journal.abort();
    const again = await open();
    expect(flatten(again.logs[0].read(0, ALL, ALL)).map(([, key]) => key)).toEqual(['a', 'b']);
    expect(flatten(again.logs[1].read(0, ALL, ALL)).map(([, key]) => key)).toEqual(['c', 'd']);
    await Promise.all(again.logs.map((l) => l.close()));
    await again.journal.close();
  });
});
