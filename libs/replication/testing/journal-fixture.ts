import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import { FileLog } from '@cohort/replication/log/file/file-log';
import { LogJournal } from '@cohort/replication/log/file/log-journal';
import type { JournalRecoverOptions } from '@cohort/replication/log/file/log-journal-types';
import { PageCacheModel } from './page-cache-model';
import { makeTempDir, removeDir } from './temp-dir';

export interface JournaledLogs {
  logs: FileLog[];
  journal: LogJournal;
}

/**
 * A log journal with logs 0 .. n-1 beside it in a fresh directory per test, under a page-cache model so
 * a test can cut the power (`crash`, then `model.loseUnsynced(dir())`). Registers its own beforeEach and
 * afterEach: call it at the top of a describe block.
 */
export function journalFixture(prefix: string) {
  let dir = '';
  const opened: JournaledLogs[] = [];
  const model = new PageCacheModel();
  const syncs: Array<{ durationMs: number; bytes: number }> = [];

  /** Opens the journal and logs 0 .. n-1 beside it, not yet recovered. */
  const openUnrecovered = async (n: number, maxFileBytes?: number): Promise<JournaledLogs> => {
    const journal = await LogJournal.open(path.join(dir, 'journal'), {
      maxFileBytes,
      onSync: (durationMs, bytes) => syncs.push({ durationMs, bytes }),
    });
    const logs: FileLog[] = [];
    for (let p = 0; p < n; p++)
      logs.push(await FileLog.open(path.join(dir, `p${p}`), { segmentBytes: 400, journal: { journal, journalId: p } }));
    opened.push({ logs, journal });
    return { logs, journal };
  };
  /** Opens the journal and logs 0 .. n-1 beside it, then recovers, as the embedded store does. */
  const openAll = async (n: number, maxFileBytes?: number, options?: JournalRecoverOptions) => {
    const { logs, journal } = await openUnrecovered(n, maxFileBytes);
    const report = await journal.recover(options);
    return { logs, journal, report };
  };
  const crash = async (set: JournaledLogs) => {
    await Promise.all(set.logs.map((l) => l.abort()));
    await set.journal.abort();
  };
  const journalFiles = () => readdirSync(path.join(dir, 'journal')).filter((f) => f.endsWith('.journal'));

  beforeEach(async () => {
    syncs.length = 0;
    dir = makeTempDir(prefix);
    await model.install(dir);
  });
  afterEach(async () => {
    model.uninstall();
    for (const set of opened.splice(0)) await crash(set).catch(() => undefined);
    removeDir(dir);
  });

  return {
    dir: () => dir,
    model,
    syncs,
    /** The sets opened so far in this test, the last one last. */
    opened,
    openUnrecovered,
    openAll,
    crash,
    journalFiles,
  };
}
