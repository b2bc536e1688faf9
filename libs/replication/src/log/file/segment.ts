import { readSync, writeSync, writevSync } from 'node:fs';
import type { FileHandle } from 'node:fs/promises';
import type { InPlaceVisitor, StoredBatch } from '../partition-log';
import { decodeBatch, forEachRecordInPlace, readValidHeader } from '../batch-codec';
import { BatchIndex } from './batch-index';

/** Bytes appended to a segment and not yet written to its file. */
export interface PendingChunk {
  position: number;
  bytes: Buffer;
  issued: boolean;
  /** Truncations before this chunk was appended: a write queued before a truncation must not write it. */
  barrier: number;
}

/**
 * One segment file and what is known about it in memory. Bytes below `writtenSize` are in the file
 * (read back with a positioned read, served by the page cache); bytes above are still in `pending`
 * waiting for the log's writer, and are read from there. That is how appends are readable at once
 * while the file is written asynchronously.
 */
export class Segment {
  readonly index = new BatchIndex();
  handle: FileHandle | undefined;
  /** Logical size: every appended byte, written or not. */
  size = 0;
  writtenSize = 0;
  pending: PendingChunk[] = [];
  /** Written since the last fsync. */
  dirty = false;
  /** Removed from the log (truncated away or replaced by compaction): no I/O may touch it any more. */
  deleted = false;

  constructor(
    readonly baseOffset: number,
    public path: string,
  ) {}

  get batchCount(): number {
    return this.index.length;
  }

  /** Offset after the last record of this segment, or undefined when it holds no batch. */
  get endOffset(): number | undefined {
    const n = this.index.length;
    return n === 0 ? undefined : this.index.lastOffset(n - 1) + 1;
  }

  /** Adds an encoded frame at the end: indexed and readable now, written later. */
  append(frame: Buffer, firstOffset: number, lastOffset: number, epoch: number, barrier: number): void {
    this.index.add(firstOffset, lastOffset, this.size, frame.length, epoch);
    this.pending.push({ position: this.size, bytes: frame, issued: false, barrier });
    this.size += frame.length;
  }

  /** Forgets batches from index `i` on; the file is cut by the caller's queued truncate. */
  truncateBatches(i: number): void {
    const newSize = i < this.index.length ? this.index.position(i) : this.size;
    this.index.truncate(i);
    this.size = newSize;
    this.writtenSize = Math.min(this.writtenSize, newSize);
    this.pending = this.pending.filter((c) => c.position < newSize);
  }

  /**
   * Marks the unissued pending chunks appended before truncation number `maxBarrier` as issued and
   * returns them, in file order.
   */
  takeUnissued(maxBarrier: number): PendingChunk[] {
    const out: PendingChunk[] = [];
    for (const c of this.pending) {
      if (c.issued) continue;
      if (c.barrier > maxBarrier) break;
      c.issued = true;
      out.push(c);
    }
    return out;
  }

  /** The writer finished `chunks`: they now live in the file (unless a truncation dropped them meanwhile). */
  written(chunks: PendingChunk[]): void {
    const done = new Set(chunks);
    let n = 0;
    while (n < this.pending.length && done.has(this.pending[n])) n++;
    if (n === 0) return;
    const last = this.pending[n - 1];
    this.writtenSize = last.position + last.bytes.length;
    this.pending = this.pending.slice(n);
  }

  /** Whether this segment holds a batch that starts at `offset` and is exactly `frame` (journal replay). */
  holdsFrameAt(offset: number, frame: Buffer): boolean {
    const i = this.index.firstEndingAtOrAfter(offset);
    if (i >= this.index.length || this.index.firstOffset(i) !== offset || this.index.size(i) !== frame.length)
      return false;
    const position = this.index.position(i);
    return this.readRange(position, position + frame.length).equals(frame);
  }

  /** Decodes batches `from` .. `to - 1` of this segment (`share`: see `decodeBatch`). */
  readBatches(from: number, to: number, share = false): StoredBatch[] {
    if (from >= to) return [];
    const start = this.index.position(from);
    const end = this.index.position(to - 1) + this.index.size(to - 1);
    return this.decode(this.readRange(start, end), start, from, to, share);
  }

  /** Visits the records of batches `from` .. `to - 1` in place, in one read of their bytes (`forEachRecordInPlace`). */
  scanBatches(from: number, to: number, visit: InPlaceVisitor): void {
    if (from >= to) return;
    const start = this.index.position(from);
    const end = this.index.position(to - 1) + this.index.size(to - 1);
    const bytes = this.readRange(start, end);
    for (let i = from; i < to; i++) {
      const pos = this.index.position(i) - start;
      const header = readValidHeader(bytes, pos);
      if (!header)
        throw new Error(`${this.path}: batch at position ${this.index.position(i)} fails its checksum on read`);
      forEachRecordInPlace(bytes, pos, header, visit);
    }
  }

  /** Decodes batches `from` .. `to - 1` out of `bytes`, which hold the segment's bytes from position `start`. */
  decode(bytes: Buffer, start: number, from: number, to: number, share = false): StoredBatch[] {
    const out: StoredBatch[] = [];
    for (let i = from; i < to; i++) {
      const pos = this.index.position(i) - start;
      const header = readValidHeader(bytes, pos);
      if (!header)
        throw new Error(`${this.path}: batch at position ${this.index.position(i)} fails its checksum on read`);
      out.push(decodeBatch(bytes, pos, header, share));
    }
    return out;
  }

  /**
   * Hands the chunks to the OS in one positioned writev, synchronously, as Kafka's FileRecords.append
   * writes to the page cache from the request thread. The promise form (fs/promises writev) goes through
   * libuv's thread pool: on a 2-core VM that hand-off measured 40-75 µs of the event loop's time and
   * about 100 µs of CPU per call, where the synchronous call costs under 3 µs for the same bytes. The
   * fsyncs, which wait for the disk, stay on the thread pool.
   */
  writeChunks(chunks: PendingChunk[]): void {
    const buffers = chunks.map((c) => c.bytes);
    const total = buffers.reduce((n, b) => n + b.length, 0);
    const position = chunks[0].position;
    const fd = this.handle!.fd;
    const bytesWritten = writevSync(fd, buffers, position);
    if (bytesWritten < total) {
      // Rare partial write: finish the rest as one buffer.
      const rest = Buffer.concat(buffers).subarray(bytesWritten);
      let done = 0;
      while (done < rest.length) done += writeSync(fd, rest, done, rest.length - done, position + bytesWritten + done);
    }
  }

  /** Bytes [start, end) of the segment, from the file and/or the pending chunks. */
  readRange(start: number, end: number): Buffer {
    const out = Buffer.allocUnsafe(end - start);
    const fromFile = Math.min(end, this.writtenSize);
    if (fromFile > start) {
      if (!this.handle) throw new Error(`${this.path}: segment has written bytes but no open file`);
      let done = 0;
      while (done < fromFile - start) {
        const n = readSync(this.handle.fd, out, done, fromFile - start - done, start + done);
        if (n === 0) throw new Error(`${this.path}: file ends at ${start + done}, expected ${fromFile} bytes`);
        done += n;
      }
    }
    for (const c of this.pending) {
      const cEnd = c.position + c.bytes.length;
      if (cEnd <= Math.max(start, this.writtenSize) || c.position >= end) continue;
      const from = Math.max(c.position, start, this.writtenSize);
      const to = Math.min(cEnd, end);
      c.bytes.copy(out, from - start, from - c.position, to - c.position);
    }
    return out;
  }
}
