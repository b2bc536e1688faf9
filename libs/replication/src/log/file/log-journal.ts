import { mkdir, readdir, readFile, unlink } from 'node:fs/promises';
import { KafkaError } from '@cohort/protocol';
import { GroupCommit } from '../group-commit';
import { decodeJournalEntries, encodeBatchEntry, encodeTruncateEntry, type JournalEntry } from './journal-entries';
import { firstOffsetOf, journaledEnd, type JournaledLog, laterCuts, redoBatch, replayReach } from './journal-replay';
import { reportFault, reportSync } from './journal-callbacks';
import { OpenJournalFile } from './open-journal-file';
import { fsyncDirectory, inDir } from './segment-files';
import {
  DEFAULT_JOURNAL_FILE_BYTES,
  type JournalChannel,
  type JournalFile,
  type JournalRecoverOptions,
  type JournalRecoveryReport,
  type LogJournalOptions,
} from './log-journal-types';

export type { JournaledLog } from './journal-replay';
export {
  DEFAULT_JOURNAL_FILE_BYTES,
  type JournalChannel,
  type JournalRecoverOptions,
  type JournalRecoveryReport,
  type LogJournalOptions,
} from './log-journal-types';

/**
 * A write-ahead journal shared by many logs, as BookKeeper's bookie journals the entries of all its
 * ledgers in one file: every batch appended to any attached log is also queued here, and a flush of
 * any log writes the queue and fdatasyncs this one file. One fsync then covers the appends of every
 * partition in that moment, where fsyncing each partition's own segment file would cost one fsync
 * per partition (with 50 partitions and a commit or two in flight on each, one fsync per commit or two).
 *
 * The segment files are still written at once (page cache) and serve every read; they are fsynced
 * only when a journal file is retired (`checkpointFiles` on every log, then the file is deleted) and
 * on a clean close. After a crash, `recover` replays what the journal holds into the logs before
 * anything else runs: each batch the log no longer holds byte for byte is written back (the log is
 * cut at its first offset), and each truncation is done again, in the order they happened.
 */
export class LogJournal {
  private readonly maxFileBytes: number;
  private readonly onSync: ((durationMs: number, bytes: number) => void) | undefined;
  private readonly logs = new Map<number, JournaledLog>();
  private readonly groupCommit: GroupCommit;
  private replay: { files: JournalFile[]; entries: JournalEntry[]; tornBytes: number } | undefined;
  /** While replaying, the logs' redo is not journaled again: the checkpoint after it makes it durable. */
  private replaying = false;
  private current: { file: JournalFile; handle: OpenJournalFile; size: number } | undefined;
  private queue: Buffer[] = [];
  private queuedBytes = 0;
  /**
   * The rounds written whose sync has not been confirmed in order (oldest first, one after another in
   * the current file): after a failure they are all written again, in place, before anything else.
   */
  private unconfirmed: Array<{ bytes: Buffer; position: number; synced: boolean }> = [];
  /** A round failed: the next round rewrites `unconfirmed`, alone. */
  private rewriteNeeded = false;
  /** A round is starting a new file: no other round may write until it has. */
  private rotating = false;
  private retiring: Promise<void> = Promise.resolve();
  /** A log stopped without its files being made durable (abort): the journal must stay for the next start. */
  private keepFiles = false;
  /** Set while a failed write waits for `heal()`: new syncs fail with it. */
  private fault: KafkaError | undefined;
  /** Set for good (closed or aborted while failed): every sync fails with it. */
  private failure: KafkaError | undefined;
  private readonly onFault: ((fault: KafkaError, cause: unknown) => void) | undefined;
  private closed = false;

  static async open(dir: string, options: LogJournalOptions = {}): Promise<LogJournal> {
    await mkdir(dir, { recursive: true });
    const files = (await readdir(dir))
      .map((name) => /^(\d{20})\.journal$/.exec(name))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => ({ seq: Number(m[1]), path: inDir(dir, m[0]) }))
      .sort((a, b) => a.seq - b.seq);
    const entries: JournalEntry[] = [];
    let tornBytes = 0;
    for (const file of files) {
      const bytes = await readFile(file.path);
      const decoded = decodeJournalEntries(bytes);
      entries.push(...decoded.entries);
      tornBytes += decoded.tornBytes;
    }
    return new LogJournal(dir, { files, entries, tornBytes }, options);
  }

  private constructor(
    readonly dir: string,
    replay: { files: JournalFile[]; entries: JournalEntry[]; tornBytes: number },
    options: LogJournalOptions,
  ) {
    this.replay = replay;
    this.maxFileBytes = options.maxFileBytes ?? DEFAULT_JOURNAL_FILE_BYTES;
    this.onSync = options.onSync;
    this.onFault = options.onFault;
    // Syncs overlap (see GroupCommit): a flush asked for while one runs starts its own at once, except
    // when the next round must run alone (it starts a new file, or writes a failed round again).
    this.groupCommit = new GroupCommit(() => this.syncOnce(), {
      maxInFlight: MAX_SYNCS_IN_FLIGHT,
      canOverlap: () => !this.rewriteNeeded && !this.rotating && !this.mustRotate(),
    });
  }

  /** Attaches a log under `logId` (stable across restarts: the partition number). */
  attach(logId: number, log: JournaledLog): JournalChannel {
    if (!Number.isInteger(logId) || logId < 0 || logId > 0xffff_ffff)
      throw new Error(`journal log id must be a u32, got ${logId}`);
    if (this.logs.has(logId)) throw new Error(`journal log id ${logId} is attached twice`);
    this.logs.set(logId, log);
    let attached = true;
    return {
      append: (frame) => {
        if (attached) this.enqueue(encodeBatchEntry(logId, frame));
      },
      truncate: (offset) => attached && this.enqueue([encodeTruncateEntry(logId, offset)]),
      sync: () => this.sync(),
      detach: (clean) => {
        if (!attached) return;
        attached = false;
        this.logs.delete(logId);
        if (!clean) this.keepFiles = true;
      },
    };
  }

  /**
   * Replays the journal into the attached logs (every log with entries must be attached), makes the
   * logs' files durable, deletes the old journal files and starts a new one. Nothing is journaled
   * before this has run: appends made meanwhile would be lost to a crash.
   */
  async recover(options: JournalRecoverOptions = {}): Promise<JournalRecoveryReport> {
    const replay = this.replay;
    if (!replay) throw new Error('the journal has already been recovered');
    this.replay = undefined;
    this.replaying = true;
    const report: JournalRecoveryReport = {
      directory: this.dir,
      files: replay.files.length,
      entries: replay.entries.length,
      batchesKept: 0,
      batchesRedone: 0,
      batchesCutLater: 0,
      truncationsRedone: 0,
      tornBytes: replay.tornBytes,
      entriesSkipped: 0,
    };
    const stopped = new Set<number>();
    const cuts = laterCuts(replay.entries);
    try {
      for (let i = 0; i < replay.entries.length; i++) {
        const entry = replay.entries[i];
        if (options.skip?.has(entry.logId) || stopped.has(entry.logId)) {
          report.entriesSkipped++;
          continue;
        }
        const log = this.logs.get(entry.logId);
        if (!log)
          throw KafkaError.of(
            'KAFKA_STORAGE_ERROR',
            `the journal in ${this.dir} holds records of log ${entry.logId}, which is not open`,
          );
        if (entry.kind === 'batch') {
          const end = log.logEndOffset;
          if (options.cut?.has(entry.logId) && firstOffsetOf(entry.frame) > end && cuts[i] > end) {
            // A log cut on purpose (its records past the cut are given up): the journal cannot continue it,
            // unless a later truncation takes the log back to its end anyway (redoBatch skips the batch then,
            // and what the journal holds after that truncation still belongs to the log).
            stopped.add(entry.logId);
            report.entriesSkipped++;
            continue;
          }
          const outcome = redoBatch(log, entry.frame, cuts[i]);
          if (outcome === 'redone') report.batchesRedone++;
          else if (outcome === 'kept') report.batchesKept++;
          else report.batchesCutLater++;
        } else if (entry.offset < log.logEndOffset) {
          log.truncateTo(entry.offset);
          report.truncationsRedone++;
        }
      }
    } finally {
      this.replaying = false;
    }
    await Promise.all([...this.logs.values()].map((l) => l.checkpointFiles()));
    const nextSeq = replay.files.length === 0 ? 0 : replay.files[replay.files.length - 1].seq + 1;
    await this.startFile(nextSeq);
    for (const f of replay.files) await unlink(f.path);
    await fsyncDirectory(this.dir);
    return report;
  }

  /**
   * How far replaying the journal would take log `logId` if it now ended at `logEnd` (before `recover`):
   * the offset it would end at, or -1 when a hole stops it first.
   */
  replayReach(logId: number, logEnd: number): number {
    return replayReach(this.entriesToReplay(), logId, logEnd);
  }

  /** The end of the last batch the journal holds for log `logId` (-1 when none), before `recover`. */
  journaledEnd(logId: number): number {
    return journaledEnd(this.entriesToReplay(), logId);
  }

  private entriesToReplay(): JournalEntry[] {
    if (!this.replay) throw new Error('the journal has already been recovered');
    return this.replay.entries;
  }

  sync(): Promise<void> {
    const failed = this.failure ?? this.fault;
    if (failed) return Promise.reject(failed);
    return this.groupCommit.request();
  }

  /** The storage error syncs fail with until `heal()` succeeds; undefined while the journal is writable. */
  get storageFault(): KafkaError | undefined {
    return this.failure ?? this.fault;
  }

  /**
   * After a storage fault: writes the failed write again, at the same position (so a partial write is
   * overwritten and the journal stays one unbroken history), with whatever was journaled since, and
   * fdatasyncs it. Resolves once it is durable; rejects, the journal still failed, when the storage
   * still fails.
   */
  heal(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    if (!this.fault) return Promise.resolve();
    this.fault = undefined;
    return this.groupCommit.request();
  }

  /**
   * Waits for the last sync and any retirement; then, when every log detached cleanly (their files
   * hold everything), deletes the journal, so a clean restart has nothing to replay.
   */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A failed journal does not wait for its storage: the failed write is given up, the files kept.
    if (this.fault) this.failure ??= this.fault;
    if (!this.failure && this.current) await this.groupCommit.request().catch(() => undefined);
    await this.retiring;
    const current = this.current;
    this.current = undefined;
    await current?.handle.close();
    if (current && !this.keepFiles && !this.failure && this.logs.size === 0) {
      await unlink(current.file.path);
      await fsyncDirectory(this.dir);
    }
  }

  /**
   * Stops at once, as a dying process would: nothing more is written or synced and no file is deleted,
   * so the next start replays what was synced. For fatal errors, and for tests and simulations of crashes.
   */
  async abort(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.keepFiles = true;
    this.failure ??= this.fault ?? KafkaError.of('KAFKA_STORAGE_ERROR', `the journal in ${this.dir} was aborted`);
    await this.retiring;
    const current = this.current;
    this.current = undefined;
    await current?.handle.abandon();
  }

  /** Queues `buffers` for the next round; false while replaying (the redo is not journaled again). */
  private enqueue(buffers: Buffer[]): boolean {
    if (this.replaying) return false;
    if (this.replay) throw new Error('the journal is written to before it was recovered');
    for (const b of buffers) {
      this.queue.push(b);
      this.queuedBytes += b.length;
    }
    return true;
  }

  /**
   * One group-commit round: the queue goes to the current file in one write, then one fdatasync. Rounds
   * may overlap (another starts while this one's fdatasync runs): each writes at the end of the file
   * synchronously before its fdatasync is issued, so an fdatasync covers its own round and every round
   * written before it. A round that fails fails its callers, and its bytes, with those of every round
   * not confirmed yet, are written again, at the same positions, by the next round (`heal()`), alone,
   * before anything journaled after them.
   */
  private async syncOnce(): Promise<void> {
    const failed = this.failure ?? this.fault;
    if (failed) throw failed;
    if (!this.current)
      throw KafkaError.of(
        'KAFKA_STORAGE_ERROR',
        `the journal in ${this.dir} is ${this.closed ? 'closed' : 'not recovered yet'}`,
      );
    try {
      // Failed rounds first, at their place, then what is queued now (not what comes meanwhile:
      // those callers wait for the next round, and this round's must not wait for them).
      if (this.rewriteNeeded) await this.rewriteUnconfirmed();
      if (this.queue.length > 0) await this.writeRound();
    } catch (error) {
      const fault = KafkaError.of(
        'KAFKA_STORAGE_ERROR',
        `the journal in ${this.dir} failed: ${error instanceof Error ? error.message : String(error)}`,
      );
      this.rewriteNeeded = true;
      if (this.closed) this.failure ??= fault;
      else if (!this.fault) {
        this.fault = fault;
        reportFault(this.onFault, fault, error);
      }
      throw this.failure ?? this.fault;
    }
  }

  /** Whether the queue no longer fits in the current file: the next round starts a new one. */
  private mustRotate(): boolean {
    return (
      this.current !== undefined && this.current.size > 0 && this.current.size + this.queuedBytes > this.maxFileBytes
    );
  }

  /** Makes a round of the queue, writes it at the end of the file and fdatasyncs it. */
  private async writeRound(): Promise<void> {
    if (this.mustRotate()) {
      // Runs alone (canOverlap): every earlier round has ended, and none failed or this one would not run.
      this.rotating = true;
      try {
        await this.rotate();
      } finally {
        this.rotating = false;
      }
    }
    const round = { bytes: Buffer.concat(this.queue, this.queuedBytes), position: this.current!.size, synced: false };
    this.queue = [];
    this.queuedBytes = 0;
    this.unconfirmed.push(round);
    const current = this.current!;
    const started = performance.now();
    // Synchronous: the bytes are in the page cache before the fdatasync is issued, and before any later round writes.
    current.handle.writeAt(round.bytes, round.position);
    current.size = round.position + round.bytes.length;
    await current.handle.datasync();
    round.synced = true;
    // Confirmed in order, and not after a failure: a sync that succeeded then may not cover an earlier round.
    if (!this.rewriteNeeded) while (this.unconfirmed.length > 0 && this.unconfirmed[0].synced) this.unconfirmed.shift();
    reportSync(this.onSync, performance.now() - started, round.bytes.length);
  }

  /** After a failure, alone: every round not confirmed is written again where it was, and fdatasynced. */
  private async rewriteUnconfirmed(): Promise<void> {
    if (this.unconfirmed.length > 0) {
      const position = this.unconfirmed[0].position;
      const bytes = Buffer.concat(this.unconfirmed.map((r) => r.bytes));
      const started = performance.now();
      const current = this.current!;
      current.handle.writeAt(bytes, position);
      current.size = position + bytes.length;
      await current.handle.datasync();
      reportSync(this.onSync, performance.now() - started, bytes.length);
    }
    this.unconfirmed = [];
    this.rewriteNeeded = false;
  }

  /**
   * Starts the next file; the full one is retired in the background once every log has made its own
   * files durable, which covers all it journaled there (it was all appended before this point).
   */
  private async rotate(): Promise<void> {
    const full = this.current!;
    await this.startFile(full.file.seq + 1);
    // The new file is in place: from here nothing may fail the rotation, or the full file would never retire.
    await full.handle.close().catch(() => undefined);
    const logs = [...this.logs.values()];
    this.retiring = this.retiring.then(async () => {
      try {
        await Promise.all(logs.map((l) => l.checkpointFiles()));
      } catch {
        // A log that failed keeps its records in this file for the next start to replay.
        this.keepFiles = true;
        return;
      }
      if (!this.keepFiles) await unlink(full.file.path).catch(() => undefined);
    });
  }

  private async startFile(seq: number): Promise<void> {
    const file = { seq, path: inDir(this.dir, `${String(seq).padStart(20, '0')}.journal`) };
    const handle = await OpenJournalFile.create(file.path, this.maxFileBytes);
    // The new file's name must be durable before anything synced in it counts.
    await fsyncDirectory(this.dir);
    this.current = { file, handle, size: 0 };
  }
}

/** How many journal syncs may run at once: a second one overlaps the first instead of waiting for it. */
const MAX_SYNCS_IN_FLIGHT = 2;
