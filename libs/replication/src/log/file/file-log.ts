import { KafkaError } from '@cohort/protocol';
import type { LogRecord } from '../../api/log-record';
import { validateFollowerBatches, validateLeaderEpoch, validateRecords } from '../append-validation';
import { batchBelow, decodeBatch, encodeBatch, MAX_BATCH_BYTES, readValidHeader } from '../batch-codec';
import type { CleanableLog } from '../cleanable-log';
import { GroupCommit } from '../group-commit';
import type { CompactionStats, InPlaceVisitor, ReadOptions, StoredBatch } from '../partition-log';
import { segmentIndexFor } from './batch-ranges';
import { IoQueue } from './io-queue';
import type { JournalChannel, JournaledLog } from './log-journal';
import { forgetCleanCloseIndex, writeCleanCloseIndex } from './clean-close-index';
import { recoverSegments, type RecoveryReport } from './log-recovery';
import { Segment } from './segment';
import { SegmentReads } from './segment-reads';
import { SegmentWriter } from './segment-writer';
import { SegmentCompaction } from './segment-compaction';
import { DEFAULT_SEGMENT_BYTES, type FileLogOptions } from './file-log-options';
import { LogStorageFault } from './log-storage-fault';
import { inDir, segmentFileName } from './segment-files';

export { DEFAULT_SEGMENT_BYTES, type FileLogOptions } from './file-log-options';

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
  private readonly segmentBytes: number;
  private readonly io: IoQueue;
  private readonly writer: SegmentWriter;
  private readonly groupCommit: GroupCommit;
  /** The storage's fault, while it is failed (see IoQueue). */
  private readonly faults: LogStorageFault;
  private closed = false;
  private readonly reads: SegmentReads;
  private readonly compaction: SegmentCompaction;
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
    this._latestEpoch = this.lastBatchEpoch();
    this.faults = new LogStorageFault({
      dir,
      io: () => this.io,
      segments: () => this.segments,
      closed: () => this.closed,
      onFault: options.onFault,
    });
    this.io = new IoQueue((error) => this.fail(error));
    this.writer = new SegmentWriter(dir, this.io, () => this.segments);
    this.reads = new SegmentReads(
      dir,
      () => this.segments,
      () => this.closed,
    );
    this.compaction = new SegmentCompaction(
      {
        dir,
        segmentBytes: this.segmentBytes,
        io: this.io,
        writer: this.writer,
        segments: () => this.segments,
        limit: (upToOffset) => this.compactionLimit(upToOffset),
        checkWritable: () => this.checkWritable(),
      },
      recovery.firstDirtyOffset,
    );
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
    return this.reads.read(fromOffset, upToOffset, maxRecords, options);
  }

  /** The records of the batches `read` would return, visited in place: no record object, no copy. */
  scan(fromOffset: number, upToOffset: number, maxRecords: number, visit: InPlaceVisitor): void {
    this.reads.scan(fromOffset, upToOffset, maxRecords, visit);
  }

  truncateTo(offset: number): void {
    this.checkWritable();
    const target = Math.max(offset, this.logStartOffset);
    if (target >= this._logEndOffset) return;
    const journal = this.journal;
    // The files are cut only once the journal holds the truncation durably. Cut first, a crash could
    // keep a segment file cut or unlinked while the journal, missing the truncation, still held batches
    // past the cut (acknowledged before it): replay would see a hole where nothing was lost.
    if (journal?.truncate(target)) void this.io.run(() => journal.sync()).catch(noop);
    const keep = segmentIndexFor(this.segments, target);
    for (const segment of this.segments.splice(keep + 1)) this.writer.deleted(segment);
    const active = this.segments[keep];
    const i = active.index.firstEndingAtOrAfter(target);
    let trimmed: StoredBatch | undefined;
    if (i < active.index.length && active.index.firstOffset(i) < target) {
      trimmed = batchBelow(active.readBatches(i, i + 1)[0], target);
    }
    active.truncateBatches(i);
    // Appends from now on are written by a write operation queued after this truncation.
    this.writer.truncated(active, active.size);
    if (trimmed) {
      const records = trimmed.records;
      active.append(
        encodeBatch(trimmed),
        records[0].offset,
        records[records.length - 1].offset,
        trimmed.leaderEpoch,
        this.writer.truncations,
      );
      void this.writer.scheduleWrite();
    }
    this._logEndOffset = target;
    this._flushedOffset = Math.min(this._flushedOffset, target);
    this.truncatedDuringSync = Math.min(this.truncatedDuringSync, target);
    for (const flush of this.journalFlushes) flush.cut = Math.min(flush.cut, target);
    this.compaction.truncated(target);
    this._latestEpoch = this.lastBatchEpoch();
    // A compacted tail may end below `target`; a segment named after it keeps the log end across a reopen.
    if ((active.endOffset ?? active.baseOffset) < target) this.roll(target);
  }

  flush(): Promise<void> {
    if (this.faults.current) return Promise.reject(this.faults.current);
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
    return this.faults.current;
  }

  /** After a storage fault: see LogStorageFault.heal. */
  heal(): Promise<void> {
    return this.faults.heal();
  }

  compact(upToOffset: number, now: number, tombstoneRetentionMs: number): Promise<CompactionStats> {
    this.checkWritable();
    return this.compaction.compact(upToOffset, now, tombstoneRetentionMs);
  }

  dirtyRatio(upToOffset: number): number {
    return this.compaction.dirtyRatio(upToOffset);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // A failed log gives up what it holds (see fail()); the next open recovers the files as they are.
    if (this.faults.current) this.io.abandon(this.faults.current);
    await this.compaction.idle();
    let failed: unknown;
    // With a journal, making the segment files durable covers everything: the journal need not be synced too.
    if (!this.faults.current)
      await (this.journal ? this.checkpointFiles() : this.groupCommit.request()).catch((e: unknown) => (failed = e));
    this.journal?.detach(!this.faults.current);
    await this.io.idle();
    // Unless something failed, the close's sync above made every byte durable. Without the index the
    // next open reads the whole log: slower, never wrong, so a failure to write it is not the close's.
    if (!this.faults.current && !this.reads.failed)
      await writeCleanCloseIndex(this.dir, this.segments, this.compaction.firstDirtyOffset).catch(() => undefined);
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
    await this.compaction.idle();
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
      active.append(frames[i], records[0].offset, last, batches[i].leaderEpoch, this.writer.truncations);
      this.journal?.append(frames[i]);
      this._logEndOffset = last + 1;
      this._latestEpoch = batches[i].leaderEpoch;
    }
    void this.writer.scheduleWrite();
  }

  /** Starts a new active segment at `baseOffset`; its file is created by the writer, in order. */
  private roll(baseOffset: number): Segment {
    const segment = new Segment(baseOffset, inDir(this.dir, segmentFileName(baseOffset)));
    this.segments.push(segment);
    this.writer.created(segment);
    return segment;
  }

  /**
   * Resolves once every byte appended so far has been handed to the OS (written, not fsynced): what
   * LOG_FLUSH_POLICY=replicated waits for, as Kafka counts an append once it is in the page cache.
   */
  awaitWritten(): Promise<void> {
    if (this.faults.current) return Promise.reject(this.faults.current);
    return this.writer.scheduleWrite();
  }

  /** One group-commit round without a journal: write what is queued and fsync every touched file and the directory. */
  private async syncOnce(): Promise<void> {
    if (this.faults.current) throw this.faults.current;
    const target = this._logEndOffset;
    this.truncatedDuringSync = Infinity;
    await this.writer.sync();
    this._flushedOffset = Math.max(this._flushedOffset, Math.min(target, this.truncatedDuringSync, this._logEndOffset));
  }

  /** The journal retires a file (or this log closes): the segment files must now hold, durably, all that was appended. */
  checkpointFiles(): Promise<void> {
    // While failed, the checkpoint waits in the I/O queue: it runs once the log heals, or fails if it never does.
    if (this.closed && this.faults.current) return Promise.reject(this.faults.current);
    return this.writer.sync();
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
    if (this.faults.current) throw this.faults.current;
    if (this.closed) throw KafkaError.of('KAFKA_STORAGE_ERROR', `log ${this.dir} is closed`);
  }

  private fail(error: unknown): KafkaError {
    return this.faults.fail(error);
  }
}

function noop(): void {}
