import { KafkaError } from '@cohort/protocol';
import type { LogRecord, StoredRecord } from '../api/log-record';
import type { Clock } from '../time/clock';
import { validateFollowerBatches, validateLeaderEpoch, validateRecords } from './append-validation';
import { encodedBatchSize } from './batch-codec';
import { compactBatches } from './compaction-rule';
import { GroupCommit } from './group-commit';
import type { CleanableLog } from './cleanable-log';
import type { CompactionStats, StoredBatch } from './partition-log';

export interface MemoryLogOptions {
  /** With a clock, a flush takes `fsyncLatencyMs` of (virtual) time; without one it ends on the next microtask. */
  clock?: Clock;
  fsyncLatencyMs?: number;
}

interface Entry {
  batch: StoredBatch;
  firstOffset: number;
  lastOffset: number;
  bytes: number;
}

/**
 * A partition log on a simulated disk, for unit tests and the simulator. Appends are readable at
 * once but durable only after a flush covers them; `crash()` loses everything not yet flushed, the
 * way a power cut loses the page cache. Compaction follows the same rule as the file log
 * (`compactBatches`) and, like it, touches only flushed data below the given offset.
 */
export class MemoryLog implements CleanableLog {
  private entries: Entry[] = [];
  private _logEndOffset = 0;
  private _flushedOffset = 0;
  private _latestEpoch = -1;
  /** Lowest truncation point since the running sync began: a sync never vouches for data cut meanwhile. */
  private truncatedDuringSync = Infinity;
  private firstDirtyOffset = 0;
  private generation = 0;
  private groupCommit: GroupCommit;
  private failure: KafkaError | undefined;
  private closed = false;

  constructor(private readonly options: MemoryLogOptions = {}) {
    this.groupCommit = this.newGroupCommit();
  }

  get logStartOffset(): number {
    return 0;
  }

  get logEndOffset(): number {
    return this._logEndOffset;
  }

  get flushedOffset(): number {
    return this._flushedOffset;
  }

  /** Epoch of the last batch in the log (-1 when empty). */
  get latestEpoch(): number {
    return this._latestEpoch;
  }

  appendAsLeader(records: LogRecord[], leaderEpoch: number): StoredBatch {
    this.checkWritable();
    validateRecords(records);
    validateLeaderEpoch(leaderEpoch, this._latestEpoch);
    const baseOffset = this._logEndOffset;
    const stored: StoredRecord[] = records.map((r, i) => ({
      offset: baseOffset + i,
      leaderEpoch,
      key: Buffer.from(r.key),
      value: r.value === null ? null : Buffer.from(r.value),
      timestamp: r.timestamp,
    }));
    const batch: StoredBatch = { baseOffset, leaderEpoch, records: stored };
    this.push(batch);
    return copyBatch(batch);
  }

  appendAsFollower(batches: StoredBatch[]): void {
    this.checkWritable();
    validateFollowerBatches(batches, this._logEndOffset, this._latestEpoch);
    for (const b of batches) {
      this.push({
        baseOffset: b.baseOffset,
        leaderEpoch: b.leaderEpoch,
        records: b.records.map((r) => ({
          ...r,
          key: Buffer.from(r.key),
          value: r.value === null ? null : Buffer.from(r.value),
        })),
      });
    }
  }

  read(fromOffset: number, upToOffset: number, maxRecords: number): StoredBatch[] {
    const out: StoredBatch[] = [];
    let count = 0;
    for (let i = this.indexOfFirstEndingAtOrAfter(fromOffset); i < this.entries.length; i++) {
      const e = this.entries[i];
      if (e.firstOffset >= upToOffset || (out.length > 0 && count >= maxRecords)) break;
      out.push(copyBatch(e.batch));
      count += e.batch.records.length;
    }
    return out;
  }

  truncateTo(offset: number): void {
    const target = Math.max(offset, this.logStartOffset);
    if (target >= this._logEndOffset) return;
    const i = this.indexOfFirstEndingAtOrAfter(target);
    const kept = this.entries.slice(0, i);
    const straddling = this.entries[i];
    if (straddling && straddling.firstOffset < target) {
      const records = straddling.batch.records.filter((r) => r.offset < target);
      kept.push(toEntry({ ...straddling.batch, records }));
    }
    this.entries = kept;
    this._logEndOffset = target;
    this._flushedOffset = Math.min(this._flushedOffset, target);
    this.truncatedDuringSync = Math.min(this.truncatedDuringSync, target);
    this.firstDirtyOffset = Math.min(this.firstDirtyOffset, target);
    this._latestEpoch = kept.length > 0 ? kept[kept.length - 1].batch.leaderEpoch : -1;
  }

  flush(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    return this.groupCommit.request();
  }

  async compact(upToOffset: number, now: number, tombstoneRetentionMs: number): Promise<CompactionStats> {
    this.checkWritable();
    const limit = this.compactionLimit(upToOffset);
    const before = this.entries;
    const unchanged = new Map(before.map((e) => [e.batch, e]));
    const compacted = compactBatches(
      before.map((e) => e.batch),
      limit,
      now,
      tombstoneRetentionMs,
    );
    const after = compacted.map((b) => unchanged.get(b) ?? toEntry(b));
    this.entries = after;
    this.firstDirtyOffset = Math.max(this.firstDirtyOffset, limit);
    return {
      recordsBefore: countRecords(before),
      recordsAfter: countRecords(after),
      bytesBefore: sumBytes(before),
      bytesAfter: sumBytes(after),
    };
  }

  dirtyRatio(upToOffset: number): number {
    const limit = this.compactionLimit(upToOffset);
    let total = 0;
    let dirty = 0;
    for (const e of this.entries) {
      if (e.lastOffset >= limit) break;
      total += e.bytes;
      if (e.firstOffset >= this.firstDirtyOffset) dirty += e.bytes;
    }
    return total === 0 ? 0 : dirty / total;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    if (!this.failure) await this.flush();
    this.closed = true;
  }

  /**
   * The machine dies and comes back: every batch beyond the flushed offset is lost except the first
   * `keepUnflushedBatches` (the OS may have written some of them before the crash). Pending flushes
   * fail. Afterwards the log is open again and holds only what the disk kept.
   */
  crash(keepUnflushedBatches = 0): void {
    const firstUnflushed = this.indexOfFirstEndingAtOrAfter(this._flushedOffset);
    const survivors = this.entries.slice(0, firstUnflushed + Math.max(0, keepUnflushedBatches));
    this.entries = survivors;
    const lastKept = survivors.length > 0 ? survivors[survivors.length - 1].lastOffset + 1 : 0;
    this._logEndOffset = Math.max(this._flushedOffset, lastKept);
    this._flushedOffset = this._logEndOffset;
    this._latestEpoch = survivors.length > 0 ? survivors[survivors.length - 1].batch.leaderEpoch : -1;
    this.firstDirtyOffset = Math.min(this.firstDirtyOffset, this._logEndOffset);
    this.generation++;
    this.groupCommit = this.newGroupCommit();
    this.failure = undefined;
    this.closed = false;
  }

  /**
   * The process stopped and a new one opens the log: the machine kept running, so the OS still holds
   * every write it was given, flushed or not (only `crash()` — a power cut — loses unflushed data).
   */
  reopen(): void {
    this.closed = false;
  }

  /** The disk fails: appends throw and flushes reject with KAFKA_STORAGE_ERROR until `crash()` (a restart). */
  failDisk(reason = 'simulated disk failure'): void {
    this.failure = KafkaError.of('KAFKA_STORAGE_ERROR', reason);
  }

  private push(batch: StoredBatch): void {
    const entry = toEntry(batch);
    this.entries.push(entry);
    this._logEndOffset = entry.lastOffset + 1;
    this._latestEpoch = batch.leaderEpoch;
  }

  private compactionLimit(upToOffset: number): number {
    return Math.min(upToOffset, this._flushedOffset, this._logEndOffset);
  }

  private newGroupCommit(): GroupCommit {
    const generation = this.generation;
    return new GroupCommit(() => this.syncOnce(generation));
  }

  private async syncOnce(generation: number): Promise<void> {
    const crashed = () => KafkaError.of('KAFKA_STORAGE_ERROR', 'the node crashed before the flush completed');
    if (generation !== this.generation) throw crashed();
    if (this.failure) throw this.failure;
    const target = this._logEndOffset;
    this.truncatedDuringSync = Infinity;
    const { clock, fsyncLatencyMs = 0 } = this.options;
    if (clock) await new Promise<void>((resolve) => clock.schedule(fsyncLatencyMs, resolve));
    else await Promise.resolve();
    if (generation !== this.generation) throw crashed();
    if (this.failure) throw this.failure;
    const durable = Math.min(target, this.truncatedDuringSync, this._logEndOffset);
    this._flushedOffset = Math.max(this._flushedOffset, durable);
  }

  private checkWritable(): void {
    if (this.failure) throw this.failure;
    if (this.closed) throw KafkaError.of('KAFKA_STORAGE_ERROR', 'the log is closed');
  }

  /** Index of the first batch whose last offset is >= `offset` (entries.length if none). */
  private indexOfFirstEndingAtOrAfter(offset: number): number {
    let lo = 0;
    let hi = this.entries.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.entries[mid].lastOffset < offset) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
}

function toEntry(batch: StoredBatch): Entry {
  const records = batch.records;
  return {
    batch,
    firstOffset: records[0].offset,
    lastOffset: records[records.length - 1].offset,
    bytes: encodedBatchSize(batch),
  };
}

/** Readers get their own arrays, so nothing they do can change the log. */
function copyBatch(batch: StoredBatch): StoredBatch {
  return { baseOffset: batch.baseOffset, leaderEpoch: batch.leaderEpoch, records: batch.records.slice() };
}

function countRecords(entries: Entry[]): number {
  return entries.reduce((n, e) => n + e.batch.records.length, 0);
}

function sumBytes(entries: Entry[]): number {
  return entries.reduce((n, e) => n + e.bytes, 0);
}
