import { open, unlink } from 'node:fs/promises';
import { KafkaError } from '@cohort/protocol';
import type { LogRecord } from '../../api/log-record';
import { validateFollowerBatches, validateLeaderEpoch, validateRecords } from '../append-validation';
import { decodeBatch, encodeBatch, MAX_BATCH_BYTES, readValidHeader } from '../batch-codec';
import type { CleanableLog } from '../cleanable-log';
import { GroupCommit } from '../group-commit';
import type { CompactionStats, InPlaceVisitor, ReadOptions, StoredBatch } from '../partition-log';
import { forEachBatchRange, segmentIndexFor } from './batch-ranges';
import { IoQueue } from './io-queue';
import type { JournalChannel, JournaledLog, LogJournal } from './log-journal';
import { forgetCleanCloseIndex, writeCleanCloseIndex } from './clean-close-index';
import { type DamagePolicy, recoverSegments, type RecoveryReport } from './log-recovery';
import { Segment } from './segment';
import { cleanSegments, type CleanerContext } from './segment-cleaner';
import { fsyncDirectory, ignoreMissing, inDir, segmentFileName } from './segment-files';

export interface FileLogOptions {
  /** The active segment is rolled once an append would take it past this size (default 16 MiB). */
  segmentBytes?: number;
  /**
   * Make appends durable through this shared journal instead of fsyncing the segment files (see
   * LogJournal), under `journalId` (stable across restarts). The journal must be recovered before
   * the log is appended to.
   */
  journal?: { journal: LogJournal; journalId: number };
  /**
   * The log's storage failed (an I/O error: no space, EIO): called once per fault, with the error
   * appends and flushes now fail with and the I/O error itself. The log is then read-only until `heal()`.
   */
  onFault?: (fault: KafkaError, cause: unknown) => void;
  /**
   * What opening does with damage that would cut records known to have been written (a corrupt
   * segment, not a torn tail): cut it (the default, as Kafka does) or refuse, when `open` rejects with
   * LogDamagedError and changes nothing.
   */
  onDamage?: DamagePolicy;
}

export const DEFAULT_SEGMENT_BYTES = 16 * 1024 * 1024;

/**
 * A partition log as segment files in one directory (`<dir>/<baseOffset>.log`, Kafka's layout).
 * Appends are synchronous: offsets are assigned, the batch is indexed and readable at once, and its
 * bytes join a queue that one serial writer puts in the file. `flush()` group-commits: one fsync
 * covers everyone waiting. Opening recovers from any crash and reports what it repaired (`recovery`);
 * after a clean close it builds the segments from the index the close left, without reading them.
 * Compaction rewrites closed segments only, with the shared rule (`compactBatches`).
 *
 * With a journal, a flush fsyncs the journal that every batch also went to, not the segment files;
 * those are fsynced when the journal retires a file and on close, and the journal's replay puts back
 * what a crash took from them.
 */
export class FileLog implements CleanableLog, JournaledLog {
  private _logEndOffset: number;
  private _flushedOffset: number;
  private _latestEpoch = -1;
  private truncatedDuringSync = Infinity;
  /** The flushes through the journal under way: the end each was asked at, and the lowest truncation since. */
  private readonly journalFlushes = new Set<{ target: number; cut: number }>();
  private firstDirtyOffset: number;
  private readonly segmentBytes: number;
  private readonly io: IoQueue;
  private readonly groupCommit: GroupCommit;
  /** The write operation queued and not yet started, which later appends join. */
  private queuedWrite: Promise<void> | undefined;
  /** Truncations so far; a write operation only writes bytes appended before the truncations queued after it. */
  private truncations = 0;
  private readonly dirtySegments = new Set<Segment>();
  private dirChanged = false;
  /** Set while the storage is failed: appends and flushes fail with it until `heal()` (see IoQueue). */
  private fault: KafkaError | undefined;
  private readonly onFault: ((fault: KafkaError, cause: unknown) => void) | undefined;
  /** A heal() is under way: a failure then is the same fault going on, not a new one to report. */
  private healing = false;
  private healAttempt: Promise<void> | undefined;
  private closed = false;
  private readFailed = false;
  private compaction: Promise<unknown> = Promise.resolve();
  private journal: JournalChannel | undefined;

  static async open(dir: string, options: FileLogOptions = {}): Promise<FileLog> {
    const { segments, report } = await recoverSegments(dir, options.onDamage);
    return new FileLog(dir, segments, report, options);
  }

  private constructor(
    readonly dir: string,
    private segments: Segment[],
    /** What opening found and repaired; check `recovery.clean`. */
    readonly recovery: RecoveryReport,
    options: FileLogOptions,
  ) {
    this.segmentBytes = options.segmentBytes ?? DEFAULT_SEGMENT_BYTES;
    this._logEndOffset = recovery.logEndOffset;
    this._flushedOffset = recovery.logEndOffset;
    this.firstDirtyOffset = recovery.firstDirtyOffset;
    this._latestEpoch = this.lastBatchEpoch();
    this.onFault = options.onFault;
    this.io = new IoQueue((error) => this.fail(error));
    this.groupCommit = new GroupCommit(() => this.syncOnce());
    // First in the queue, so no file of the log changes while a crash could still find the index.
    if (recovery.fromCleanClose) void this.io.run(() => forgetCleanCloseIndex(dir));
    this.journal = options.journal?.journal.attach(options.journal.journalId, this);
  }

  get logStartOffset(): number {
    return this.segments[0].baseOffset;
  }

  get logEndOffset(): number {
    return this._logEndOffset;
  }

  get flushedOffset(): number {
    return this._flushedOffset;
  }

  get segmentCount(): number {
    return this.segments.length;
  }

  /** Bytes held by all segments (written or still queued). */
  get sizeInBytes(): number {
    return this.segments.reduce((n, s) => n + s.size, 0);
  }

  appendAsLeader(records: LogRecord[], leaderEpoch: number): StoredBatch {
    this.checkWritable();
    validateRecords(records);
    validateLeaderEpoch(leaderEpoch, this._latestEpoch);
    const baseOffset = this._logEndOffset;
    const batch: StoredBatch = {
      baseOffset,
      leaderEpoch,
      records: records.map((r, i) => ({
        offset: baseOffset + i,
        leaderEpoch,
        key: r.key,
        value: r.value,
        timestamp: r.timestamp,
      })),
    };
    this.appendFrames([batch], [this.encodeChecked(batch)]);
    return batch;
  }

  appendAsFollower(batches: StoredBatch[]): void {
    this.checkWritable();
    validateFollowerBatches(batches, this._logEndOffset, this._latestEpoch);
    const frames = batches.map((b) => this.encodeChecked(b));
    this.appendFrames(batches, frames);
  }

  read(fromOffset: number, upToOffset: number, maxRecords: number, options?: ReadOptions): StoredBatch[] {
    if (this.closed) throw KafkaError.of('KAFKA_STORAGE_ERROR', `log ${this.dir} is closed`);
    const out: StoredBatch[] = [];
    this.reading(() =>
      forEachBatchRange(this.segments, fromOffset, upToOffset, maxRecords, (segment, from, to) => {
        for (const batch of segment.readBatches(from, to, options?.shareBuffers)) out.push(batch);
      }),
    );
    return out;
  }

  /** The records of the batches `read` would return, visited in place: no record object, no copy. */
  scan(fromOffset: number, upToOffset: number, maxRecords: number, visit: InPlaceVisitor): void {
    if (this.closed) throw KafkaError.of('KAFKA_STORAGE_ERROR', `log ${this.dir} is closed`);
    this.reading(() =>
      forEachBatchRange(this.segments, fromOffset, upToOffset, maxRecords, (segment, from, to) =>
        segment.scanBatches(from, to, visit),
      ),
    );
  }

  /**
   * Runs a read of the segment files. A read that fails (a batch failing its CRC, an I/O error) keeps
   * this log's close from writing its clean-close index, so the next open reads the whole log and cuts
   * it at the damage, as after a crash, instead of trusting it again.
   */
  private reading(read: () => void): void {
    try {
      read();
    } catch (error) {
      this.readFailed = true;
      throw error;
    }
  }

  truncateTo(offset: number): void {
    this.checkWritable();
    const target = Math.max(offset, this.logStartOffset);
    if (target >= this._logEndOffset) return;
    this.journal?.truncate(target);
    const keep = segmentIndexFor(this.segments, target);
    for (const segment of this.segments.splice(keep + 1)) this.deleteSegment(segment);
    const active = this.segments[keep];
    const i = active.index.firstEndingAtOrAfter(target);
    let trimmed: StoredBatch | undefined;
    if (i < active.index.length && active.index.firstOffset(i) < target) {
      const straddling = active.readBatches(i, i + 1)[0];
      trimmed = { ...straddling, records: straddling.records.filter((r) => r.offset < target) };
    }
    active.truncateBatches(i);
    const size = active.size;
    void this.io
      .run(async () => {
        if (active.deleted) return;
        await active.handle!.truncate(size);
        this.dirtySegments.add(active);
      })
      .catch(noop);
    // Appends from now on are written by a write operation queued after this truncation.
    this.truncations++;
    this.queuedWrite = undefined;
    if (trimmed) {
      const records = trimmed.records;
      active.append(
        encodeBatch(trimmed),
        records[0].offset,
        records[records.length - 1].offset,
        trimmed.leaderEpoch,
        this.truncations,
      );
      void this.scheduleWrite();
    }
    this._logEndOffset = target;
    this._flushedOffset = Math.min(this._flushedOffset, target);
    this.truncatedDuringSync = Math.min(this.truncatedDuringSync, target);
    for (const flush of this.journalFlushes) flush.cut = Math.min(flush.cut, target);
    this.firstDirtyOffset = Math.min(this.firstDirtyOffset, target);
    this._latestEpoch = this.lastBatchEpoch();
    // A compacted tail may end below `target`; a segment named after it keeps the log end across a reopen.
    if ((active.endOffset ?? active.baseOffset) < target) this.roll(target);
  }

  flush(): Promise<void> {
    if (this.fault) return Promise.reject(this.fault);
    return this.journal ? this.flushThroughJournal(this.journal) : this.groupCommit.request();
  }

  /**
   * A flush through the journal, which group-commits the flushes of every log (its syncs overlap): it
   * resolves once everything journaled before the call is durable, so this log is flushed up to its end
   * at the call, short of what a truncation during the sync cut. Not behind this log's own group commit,
   * which would hold a flush asked for during a sync until that sync ended before it could even start.
   */
  private async flushThroughJournal(journal: JournalChannel): Promise<void> {
    const flush = { target: this._logEndOffset, cut: Infinity };
    this.journalFlushes.add(flush);
    // The write to the segment file is awaited too (it is under way already): if it fails, the log has failed.
    const written = this.awaitWritten();
    try {
      await journal.sync();
    } catch (error) {
      written.catch(noop);
      throw this.fail(error);
    } finally {
      this.journalFlushes.delete(flush);
    }
    await written;
    this._flushedOffset = Math.max(this._flushedOffset, Math.min(flush.target, flush.cut, this._logEndOffset));
  }

  /** The storage error appends fail with until `heal()` succeeds; undefined while the log is writable. */
  get storageFault(): KafkaError | undefined {
    return this.fault;
  }

  /**
   * After a storage fault: writes again what never reached the files (at the same positions, so a
   * partial write is overwritten) and runs every file operation held since, then takes appends again.
   * Rejects, the log still failed, when the storage still fails; a failure that cannot be retried
   * (a compaction swap cut short) keeps the log failed until it is reopened.
   */
  heal(): Promise<void> {
    // One attempt at a time: a second caller shares it rather than see the fault cleared under way.
    this.healAttempt ??= this.attemptHeal().finally(() => (this.healAttempt = undefined));
    return this.healAttempt;
  }

  private async attemptHeal(): Promise<void> {
    if (this.closed) throw KafkaError.of('KAFKA_STORAGE_ERROR', `log ${this.dir} is closed`);
    const fault = this.fault;
    if (!fault) return;
    if (this.io.isBroken) throw fault;
    // The held write and the writes queued behind it take their chunks again.
    for (const s of this.segments) for (const c of s.pending) c.issued = false;
    this.fault = undefined;
    this.healing = true;
    try {
      await this.io.resume();
    } catch (error) {
      throw this.fail(error);
    } finally {
      this.healing = false;
    }
  }

  compact(upToOffset: number, now: number, tombstoneRetentionMs: number): Promise<CompactionStats> {
    this.checkWritable();
    // One compaction at a time; the limit is taken when it starts, not when it was asked for.
    const run = this.compaction.then(() => this.compactNow(upToOffset, now, tombstoneRetentionMs));
    this.compaction = run.catch(noop);
    return run;
  }

  dirtyRatio(upToOffset: number): number {
    const limit = this.compactionLimit(upToOffset);
    let total = 0;
    let dirty = 0;
    for (let s = 0; s + 1 < this.segments.length && this.segments[s + 1].baseOffset <= limit; s++) {
      total += this.segments[s].size;
      if (this.segments[s].baseOffset >= this.firstDirtyOffset) dirty += this.segments[s].size;
    }
    return total === 0 ? 0 : dirty / total;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A failed log gives up what it holds (see fail()); the next open recovers the files as they are.
    if (this.fault) this.io.abandon(this.fault);
    await this.compaction;
    let failed: unknown;
    // With a journal, making the segment files durable covers everything: the journal need not be synced too.
    if (!this.fault)
      await (this.journal ? this.checkpointFiles() : this.groupCommit.request()).catch((e: unknown) => (failed = e));
    this.journal?.detach(!this.fault);
    await this.io.idle();
    // Unless something failed, the close's sync above made every byte durable. Without the index the
    // next open reads the whole log: slower, never wrong, so a failure to write it is not the close's.
    if (!this.fault && !this.readFailed)
      await writeCleanCloseIndex(this.dir, this.segments, this.firstDirtyOffset).catch(() => undefined);
    await this.releaseFiles();
    if (failed !== undefined) throw failed;
  }

  /**
   * Stops at once without a flush, as a dying process would: queued writes may still reach the OS,
   * nothing more is fsynced. For fatal errors, and for tests and simulations of crashes.
   */
  async abort(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.journal?.detach(false);
    await this.compaction;
    await this.releaseFiles();
  }

  /** Epoch of the last batch in the log (-1 when empty): a new leader epoch must not be lower. */
  get latestEpoch(): number {
    return this._latestEpoch;
  }

  private async releaseFiles(): Promise<void> {
    await this.io.idle();
    await Promise.all(this.segments.map((s) => s.handle?.close()));
    for (const s of this.segments) s.handle = undefined;
  }

  private async compactNow(upToOffset: number, now: number, tombstoneRetentionMs: number): Promise<CompactionStats> {
    this.checkWritable();
    const context: CleanerContext = {
      dir: this.dir,
      segmentBytes: this.segmentBytes,
      io: this.io,
      segments: () => this.segments,
      replace: (old, replacement) => {
        const at = this.segments.indexOf(old[0]);
        this.segments.splice(at, old.length, replacement);
        for (const s of old) {
          s.deleted = true;
          this.dirtySegments.delete(s);
        }
      },
    };
    const { stats, cleanedUpTo } = await cleanSegments(
      context,
      this.compactionLimit(upToOffset),
      now,
      tombstoneRetentionMs,
    );
    this.firstDirtyOffset = Math.max(this.firstDirtyOffset, cleanedUpTo);
    return stats;
  }

  /** Only flushed data is compacted, as in MemoryLog: compaction output is durable, its input must be too. */
  private compactionLimit(upToOffset: number): number {
    return Math.min(upToOffset, this._flushedOffset, this._logEndOffset);
  }

  private encodeChecked(batch: StoredBatch): Buffer {
    const frame = encodeBatch(batch);
    if (frame.length > MAX_BATCH_BYTES) {
      throw KafkaError.of(
        'INVALID_REQUEST',
        `batch of ${frame.length} bytes exceeds the ${MAX_BATCH_BYTES}-byte limit`,
      );
    }
    return frame;
  }

  private appendFrames(batches: StoredBatch[], frames: Buffer[]): void {
    for (let i = 0; i < batches.length; i++) {
      const records = batches[i].records;
      let active = this.segments[this.segments.length - 1];
      if (active.size > 0 && active.size + frames[i].length > this.segmentBytes) active = this.roll(this._logEndOffset);
      const last = records[records.length - 1].offset;
      active.append(frames[i], records[0].offset, last, batches[i].leaderEpoch, this.truncations);
      this.journal?.append(frames[i]);
      this._logEndOffset = last + 1;
      this._latestEpoch = batches[i].leaderEpoch;
    }
    void this.scheduleWrite();
  }

  /** Starts a new active segment at `baseOffset`; its file is created by the writer, in order. */
  private roll(baseOffset: number): Segment {
    const segment = new Segment(baseOffset, inDir(this.dir, segmentFileName(baseOffset)));
    this.segments.push(segment);
    void this.io
      .run(async () => {
        if (segment.deleted) return;
        segment.handle = await open(segment.path, 'w+');
        this.dirChanged = true;
        this.dirtySegments.add(segment);
        if (segment.pending.length > 0) void this.scheduleWrite();
      })
      .catch(noop);
    return segment;
  }

  private deleteSegment(segment: Segment): void {
    segment.deleted = true;
    this.dirtySegments.delete(segment);
    void this.io
      .run(async () => {
        await segment.handle?.close();
        segment.handle = undefined;
        await unlink(segment.path).catch(ignoreMissing);
        this.dirChanged = true;
      })
      .catch(noop);
  }

  /**
   * Resolves once every byte appended so far has been handed to the OS (written, not fsynced): what
   * LOG_FLUSH_POLICY=replicated waits for, as Kafka counts an append once it is in the page cache.
   */
  awaitWritten(): Promise<void> {
    if (this.fault) return Promise.reject(this.fault);
    return this.scheduleWrite();
  }

  private scheduleWrite(): Promise<void> {
    if (this.queuedWrite) return this.queuedWrite;
    const barrier = this.truncations;
    const write = this.io.run(() => {
      if (this.queuedWrite === write) this.queuedWrite = undefined;
      return this.writePending(barrier);
    });
    write.catch(noop);
    this.queuedWrite = write;
    return write;
  }

  /**
   * Writes the queued bytes appended before truncation number `barrier`, one positioned writev per
   * segment. Runs inside the I/O queue, so it is ordered with truncations.
   */
  private async writePending(barrier: number): Promise<void> {
    for (const segment of this.segments) {
      if (!segment.handle || segment.pending.length === 0) continue;
      const chunks = segment.takeUnissued(barrier);
      if (chunks.length === 0) continue;
      segment.writeChunks(chunks);
      this.dirtySegments.add(segment);
      segment.written(chunks);
    }
  }

  /** One group-commit round without a journal: write what is queued and fsync every touched file and the directory. */
  private async syncOnce(): Promise<void> {
    if (this.fault) throw this.fault;
    const target = this._logEndOffset;
    this.truncatedDuringSync = Infinity;
    const barrier = this.truncations;
    await this.io.run(() => this.syncFiles(barrier));
    this._flushedOffset = Math.max(this._flushedOffset, Math.min(target, this.truncatedDuringSync, this._logEndOffset));
  }

  /** Writes what was appended before truncation number `barrier`, then fsyncs every touched file and the directory. */
  private async syncFiles(barrier: number): Promise<void> {
    await this.writePending(barrier);
    const toSync = [...this.dirtySegments].filter((s) => !s.deleted && s.handle);
    const dirChanged = this.dirChanged;
    await Promise.all(toSync.map((s) => s.handle!.sync()));
    // Only once they are synced: a failed sync runs again on heal() and must find them still dirty.
    for (const s of toSync) this.dirtySegments.delete(s);
    if (dirChanged) {
      await fsyncDirectory(this.dir);
      this.dirChanged = false;
    }
  }

  /** The journal retires a file (or this log closes): the segment files must now hold, durably, all that was appended. */
  checkpointFiles(): Promise<void> {
    // While failed, the checkpoint waits in the I/O queue: it runs once the log heals, or fails if it never does.
    if (this.closed && this.fault) return Promise.reject(this.fault);
    const barrier = this.truncations;
    return this.io.run(() => this.syncFiles(barrier));
  }

  /** Journal replay: whether the batch starting at `offset` is exactly `frame`. */
  holdsFrameAt(offset: number, frame: Buffer): boolean {
    return this.segments[segmentIndexFor(this.segments, offset)].holdsFrameAt(offset, frame);
  }

  /** Journal replay: appends a frame (checked by the journal's decoding) as the follower path would append its batch. */
  appendFrame(frame: Buffer): void {
    const batch = decodeBatch(frame, 0, readValidHeader(frame, 0)!);
    validateFollowerBatches([batch], this._logEndOffset, this._latestEpoch);
    this.appendFrames([batch], [frame]);
  }

  /**
   * Goes on without the journal, fsyncing its own segment files again: for a log opened with one only
   * to replay it (a node that stopped under LOG_FLUSH_POLICY=always and starts under another policy).
   */
  async leaveJournal(): Promise<void> {
    if (!this.journal) return;
    await this.checkpointFiles();
    this.journal.detach(true);
    this.journal = undefined;
  }

  private lastBatchEpoch(): number {
    for (let s = this.segments.length - 1; s >= 0; s--) {
      const index = this.segments[s].index;
      if (index.length > 0) return index.epoch(index.length - 1);
    }
    return -1;
  }

  private checkWritable(): void {
    if (this.fault) throw this.fault;
    if (this.closed) throw KafkaError.of('KAFKA_STORAGE_ERROR', `log ${this.dir} is closed`);
  }

  /**
   * An I/O error fails the log until `heal()`: appends throw and flushes reject with the returned error,
   * and the owner is told once. A closing log does not wait for its storage: it gives up at once.
   */
  private fail(error: unknown): KafkaError {
    if (error instanceof KafkaError && error === this.fault) return error;
    const message = error instanceof Error ? error.message : String(error);
    const first = this.fault === undefined;
    this.fault ??= KafkaError.of('KAFKA_STORAGE_ERROR', `log ${this.dir} failed: ${message}`);
    if (this.closed) this.io.abandon(this.fault);
    else if (first && !this.healing) this.reportFault(this.fault, error);
    return this.fault;
  }

  private reportFault(fault: KafkaError, cause: unknown): void {
    try {
      this.onFault?.(fault, cause);
    } catch {
      // the owner's bookkeeping must not change how the log fails
    }
  }
}

function noop(): void {}
