import { appendFileSync, readdirSync, readFileSync, writeFileSync, truncateSync } from 'node:fs';
import * as path from 'node:path';
import * as fc from 'fast-check';
import { readValidHeader } from '../batch-codec';
import { encodeTruncateEntry } from './journal-entries';
import { LogJournal } from './log-journal';
import {
  logCommands,
  runLogCommands,
  type LogCommand,
  type LogHarness,
  makeTempDir,
  PageCacheModel,
  removeDir,
} from '@cohort/replication/testing';
import { FileLog } from './file-log';

const SEGMENT_BYTES = 160;
/** Runs per property; raise with PROPERTY_RUNS, and PROPERTY_SEED=random, to search longer (test/support/property-seed.setup.ts). */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 120);
/** Each property's time limit: two minutes, or more for a longer search. */
const TIMEOUT_MS = Math.max(120_000, RUNS * 1_000);

/** An append in a new epoch of `n` tombstones of one key: what the counterexamples shrank to. */
const appendNulls = (n: number): LogCommand => ({
  kind: 'append',
  records: Array.from({ length: n }, () => ({ key: 0, value: null })),
  bumpEpoch: true,
});

/** Command lists a random run once found failing, replayed first on every run. */
const JOURNAL_COUNTEREXAMPLES: Array<[LogCommand[]]> = [
  // A truncation to 0 reached the segment file, which lost offset 0 (durable since a clean restart, so
  // not journaled); the journal then held a batch at offset 1 before that truncation: not a hole.
  [
    [
      appendNulls(1),
      { kind: 'reopen' },
      appendNulls(1),
      { kind: 'truncate', at: 0 },
      { kind: 'flush' },
      { kind: 'crash', damage: 0, flip: false },
    ],
  ],
  // A truncation to 0 unlinked the segment files of offsets 3 and on (written, synced by a checkpoint,
  // their journal file retired) before the journal held it: a crash kept the unlinks and lost the
  // truncation's entry, and replay found the journal's batch at offset 8 past a log ending at 3.
  [
    [
      appendNulls(1),
      appendNulls(2),
      appendNulls(4),
      { kind: 'compact', at: 0, retentionMs: 0, appendMeanwhile: true },
      { kind: 'flush' },
      appendNulls(1),
      { kind: 'flush' },
      { kind: 'flush' },
      { kind: 'truncate', at: 0 },
      { kind: 'crash', damage: 0, flip: false },
    ],
  ],
  // A truncation to 2 trimmed the batch of offsets 0-2; the log then rolled a segment at 2. The crash
  // gave the first file back its untrimmed batch and kept the new one: offset 2 twice on reopen.
  [
    [
      appendNulls(3),
      { kind: 'reopen' },
      { kind: 'truncate', at: 1581652430 },
      appendNulls(3),
      { kind: 'crash', damage: 0, flip: false },
    ],
  ],
];

/** Byte ranges of the segment files from the first frame that may hold unflushed data onwards. */
function unflushedRegion(dir: string, flushedOffset: number): Array<{ file: string; from: number; size: number }> {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.log'))
    .sort();
  const region: Array<{ file: string; from: number; size: number }> = [];
  let reached = false;
  for (const name of files) {
    const file = path.join(dir, name);
    const bytes = readFileSync(file);
    let pos = 0;
    if (!reached) {
      for (let h = readValidHeader(bytes, pos); h && h.lastOffset < flushedOffset; h = readValidHeader(bytes, pos))
        pos += h.size;
      reached = pos < bytes.length;
      if (!reached) continue;
    }
    region.push({ file, from: pos, size: bytes.length });
  }
  return region;
}

/** Tears off (`flip` false) or flips one byte of the region, picked by `damage`. */
function damageRegion(
  region: Array<{ file: string; from: number; size: number }>,
  damage: number,
  flip: boolean,
): void {
  const total = region.reduce((n, r) => n + r.size - r.from, 0);
  let at = total === 0 ? 0 : damage % total;
  for (const r of region) {
    if (at >= r.size - r.from) {
      at -= r.size - r.from;
      continue;
    }
    if (flip) {
      const bytes = readFileSync(r.file);
      bytes[r.from + at] ^= 0x5a;
      writeFileSync(r.file, bytes);
    } else {
      truncateSync(r.file, r.from + at);
    }
    break;
  }
}

function nameHash(name: string): number {
  let hash = 0;
  for (let i = 0; i < name.length; i++) hash = (hash * 31 + name.charCodeAt(i)) | 0;
  return hash;
}

class FileHarness implements LogHarness {
  log!: FileLog;

  constructor(readonly dir: string) {}

  async open(): Promise<this> {
    this.log = await FileLog.open(this.dir, { segmentBytes: SEGMENT_BYTES });
    return this;
  }

  /** The process dies; then one byte past the flushed data is torn off (with all after it) or flipped. */
  async crash(damage: number, flip: boolean): Promise<void> {
    const flushed = this.log.flushedOffset;
    await this.log.abort();
    damageRegion(unflushedRegion(this.dir, flushed), damage, flip);
    await this.open();
  }

  async reopen(): Promise<void> {
    await this.log.close();
    await this.open();
    expect(this.log.recovery.clean).toBe(true);
  }
}

/**
 * A log whose flushes go through a journal (files retired every few hundred bytes). Its segment files
 * are fsynced only at a checkpoint, so a crash keeps of each file only what its last sync made durable,
 * plus some of the rest (possibly damaged), even below the flushed offset: the journal's replay must
 * put back what was lost.
 */
class JournaledHarness implements LogHarness {
  log!: FileLog;
  journal!: LogJournal;
  readonly logDir: string;
  readonly journalDir: string;

  constructor(
    private readonly dir: string,
    private readonly disk: PageCacheModel,
  ) {
    this.logDir = path.join(dir, 'p7');
    this.journalDir = path.join(dir, 'journal');
  }

  async open(): Promise<this> {
    this.journal = await LogJournal.open(this.journalDir, { maxFileBytes: 400 });
    this.log = await FileLog.open(this.logDir, {
      segmentBytes: SEGMENT_BYTES,
      journal: { journal: this.journal, journalId: 7 },
    });
    await this.journal.recover();
    return this;
  }

  async crash(damage: number, flip: boolean): Promise<void> {
    await this.log.abort();
    await this.journal.abort();
    // Whether a file gets back its synced bytes, undoing a truncation or rewrite since, is picked per
    // file by the damage's higher bits.
    const undo = (file: string) => (((damage >>> 8) ^ nameHash(path.basename(file))) & 1) === 0;
    this.disk.crash(this.dir, (unsynced) => damage % (unsynced + 1), flip, undo);
    const files = readdirSync(this.journalDir)
      .filter((f) => f.endsWith('.journal'))
      .sort()
      .map((f) => path.join(this.journalDir, f));
    // A write to the journal that the crash tore: never synced, so never acknowledged.
    if (!flip && files.length > 0)
      appendFileSync(files[files.length - 1], encodeTruncateEntry(7, 0).subarray(0, 1 + (damage % 20)));
    await this.open();
  }

  async reopen(): Promise<void> {
    await this.log.close();
    await this.journal.close();
    expect(readdirSync(this.journalDir)).toEqual([]);
    await this.open();
    expect(this.log.recovery.clean).toBe(true);
  }

  async dispose(): Promise<void> {
    await this.log.close().catch(() => undefined);
    await this.journal.close().catch(() => undefined);
  }
}

describe('FileLog properties', () => {
  it(
    'never loses a flushed record across crashes that tear or corrupt unflushed bytes, and reopens to the same content',
    async () => {
      await fc.assert(
        fc.asyncProperty(logCommands, async (commands) => {
          const dir = makeTempDir('cohort-fileprop-');
          const harness = await new FileHarness(dir).open();
          try {
            await runLogCommands(harness, commands);
          } finally {
            await harness.log.close().catch(() => undefined);
            removeDir(dir);
          }
        }),
        { numRuns: RUNS },
      );
    },
    TIMEOUT_MS,
  );

  it(
    'with a journal, never loses a flushed record when a power cut takes or damages whatever was not synced, or tears the journal',
    async () => {
      await fc.assert(
        fc.asyncProperty(logCommands, async (commands) => {
          const dir = makeTempDir('cohort-journalprop-');
          const disk = new PageCacheModel();
          await disk.install(dir);
          const harness = await new JournaledHarness(dir, disk).open();
          try {
            await runLogCommands(harness, commands);
          } finally {
            disk.uninstall();
            await harness.dispose();
            removeDir(dir);
          }
        }),
        { numRuns: RUNS, examples: JOURNAL_COUNTEREXAMPLES },
      );
    },
    TIMEOUT_MS,
  );
});
