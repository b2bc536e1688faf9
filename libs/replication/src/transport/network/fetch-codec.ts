import {
  BATCH_HEADER_BYTES,
  decodeBatch,
  encodeBatchInto,
  encodedBatchSize,
  fitsBatchFormat,
  readValidHeader,
} from '../../log/batch-codec';
import type { StoredBatch } from '../../log/partition-log';
import type { FetchPartitionRequest, FetchPartitionResponse, FetchRequest, FetchResponse } from '../messages';

/**
 * Fetch requests and responses in a fixed binary layout: the follower's fetch loop is the busiest
 * exchange between replicas (one round trip per wave of commits, every followed partition in each),
 * and as generic JSON it cost about a tenth of a node's CPU under commit load (the walk for Buffers,
 * `JSON.stringify`/`JSON.parse` of every partition's six numbers). Here every number is a float64
 * (exact for any JavaScript number, so nothing is range-checked or lost), and record batches are
 * their CRC-checked log frames, as in the JSON path.
 *
 * Request:  f64 replicaId, f64 replicaEpoch, f64 maxWaitMs, u32 count,
 *           count × (f64 partition, currentLeaderEpoch, fetchOffset, lastFetchedEpoch, logStartOffset, maxRecords)
 * Response: f64 errorCode, u32 count, count × partition, where a partition is
 *           f64 partition, errorCode, highWatermark, logStartOffset, logEndOffset,
 *           u8 flags (1: divergingEpoch follows, 2: epochStarts follow),
 *           [f64 epoch, f64 endOffset], [u32 n, n × (f64 epoch, f64 startOffset)],
 *           u32 batches, each one batch frame (its own length prefix and CRC).
 *
 * The encoders return undefined for a value this layout cannot carry exactly (a field that is not a
 * number, a batch the log format cannot hold); the caller then sends it as generic JSON instead. They
 * leave `start` bytes free at the front of the buffer they return, for the frame header, so the message
 * is written once, in place.
 */

const F64 = 8;
const U32 = 4;
const REQUEST_PARTITION_BYTES = 6 * F64;
const RESPONSE_PARTITION_BYTES = 5 * F64 + 1 + U32;
const HAS_DIVERGING = 1;
const HAS_EPOCH_STARTS = 2;

export function encodeFetchRequest(request: FetchRequest, start = 0): Buffer | undefined {
  const { partitions } = request;
  if (!allNumbers(request.replicaId, request.replicaEpoch, request.maxWaitMs) || !Array.isArray(partitions))
    return undefined;
  const buf = Buffer.allocUnsafe(start + 3 * F64 + U32 + partitions.length * REQUEST_PARTITION_BYTES);
  let at = buf.writeDoubleBE(request.replicaId, start);
  at = buf.writeDoubleBE(request.replicaEpoch, at);
  at = buf.writeDoubleBE(request.maxWaitMs, at);
  at = buf.writeUInt32BE(partitions.length, at);
  for (const p of partitions) {
    if (
      p === null ||
      typeof p !== 'object' ||
      !allNumbers(p.partition, p.currentLeaderEpoch, p.fetchOffset, p.lastFetchedEpoch, p.logStartOffset, p.maxRecords)
    )
      return undefined;
    at = buf.writeDoubleBE(p.partition, at);
    at = buf.writeDoubleBE(p.currentLeaderEpoch, at);
    at = buf.writeDoubleBE(p.fetchOffset, at);
    at = buf.writeDoubleBE(p.lastFetchedEpoch, at);
    at = buf.writeDoubleBE(p.logStartOffset, at);
    at = buf.writeDoubleBE(p.maxRecords, at);
  }
  return buf;
}

/** Throws on bytes that are not a whole request in this layout. */
export function decodeFetchRequest(buf: Buffer): FetchRequest {
  const r = new Reader(buf);
  const replicaId = r.f64();
  const replicaEpoch = r.f64();
  const maxWaitMs = r.f64();
  const count = r.count(REQUEST_PARTITION_BYTES);
  const partitions: FetchPartitionRequest[] = new Array(count);
  for (let i = 0; i < count; i++) {
    partitions[i] = {
      partition: r.f64(),
      currentLeaderEpoch: r.f64(),
      fetchOffset: r.f64(),
      lastFetchedEpoch: r.f64(),
      logStartOffset: r.f64(),
      maxRecords: r.f64(),
    };
  }
  r.end();
  return { replicaId, replicaEpoch, maxWaitMs, partitions };
}

export function encodeFetchResponse(response: FetchResponse, start = 0): Buffer | undefined {
  const { partitions } = response;
  if (!allNumbers(response.errorCode) || !Array.isArray(partitions)) return undefined;
  let size = start + F64 + U32;
  for (const p of partitions) {
    if (
      p === null ||
      typeof p !== 'object' ||
      !allNumbers(p.partition, p.errorCode, p.highWatermark, p.logStartOffset, p.logEndOffset) ||
      !Array.isArray(p.batches)
    )
      return undefined;
    size += RESPONSE_PARTITION_BYTES;
    if (p.divergingEpoch !== undefined) {
      if (!allNumbers(p.divergingEpoch.epoch, p.divergingEpoch.endOffset)) return undefined;
      size += 2 * F64;
    }
    if (p.epochStarts !== undefined) {
      if (!Array.isArray(p.epochStarts) || !p.epochStarts.every((e) => allNumbers(e.epoch, e.startOffset)))
        return undefined;
      size += U32 + p.epochStarts.length * 2 * F64;
    }
    for (const b of p.batches) {
      if (!fitsBatchFormat(b)) return undefined;
      size += encodedBatchSize(b);
    }
  }
  const buf = Buffer.allocUnsafe(size);
  let at = buf.writeDoubleBE(response.errorCode, start);
  at = buf.writeUInt32BE(partitions.length, at);
  for (const p of partitions) {
    at = buf.writeDoubleBE(p.partition, at);
    at = buf.writeDoubleBE(p.errorCode, at);
    at = buf.writeDoubleBE(p.highWatermark, at);
    at = buf.writeDoubleBE(p.logStartOffset, at);
    at = buf.writeDoubleBE(p.logEndOffset, at);
    at = buf.writeUInt8((p.divergingEpoch ? HAS_DIVERGING : 0) | (p.epochStarts ? HAS_EPOCH_STARTS : 0), at);
    if (p.divergingEpoch) {
      at = buf.writeDoubleBE(p.divergingEpoch.epoch, at);
      at = buf.writeDoubleBE(p.divergingEpoch.endOffset, at);
    }
    if (p.epochStarts) {
      at = buf.writeUInt32BE(p.epochStarts.length, at);
      for (const e of p.epochStarts) {
        at = buf.writeDoubleBE(e.epoch, at);
        at = buf.writeDoubleBE(e.startOffset, at);
      }
    }
    at = buf.writeUInt32BE(p.batches.length, at);
    for (const b of p.batches) at = encodeBatchInto(b, buf, at);
  }
  return buf;
}

/** Throws on bytes that are not a whole response in this layout, or on a batch that fails its CRC. */
export function decodeFetchResponse(buf: Buffer): FetchResponse {
  const r = new Reader(buf);
  const errorCode = r.f64();
  const count = r.count(RESPONSE_PARTITION_BYTES);
  const partitions: FetchPartitionResponse[] = new Array(count);
  for (let i = 0; i < count; i++) {
    const p: FetchPartitionResponse = {
      partition: r.f64(),
      errorCode: r.f64(),
      highWatermark: r.f64(),
      logStartOffset: r.f64(),
      logEndOffset: r.f64(),
      batches: [],
    };
    const flags = r.u8();
    if (flags & ~(HAS_DIVERGING | HAS_EPOCH_STARTS)) throw new Error(`unknown fetch partition flags ${flags}`);
    if (flags & HAS_DIVERGING) p.divergingEpoch = { epoch: r.f64(), endOffset: r.f64() };
    if (flags & HAS_EPOCH_STARTS) {
      const n = r.count(2 * F64);
      p.epochStarts = new Array(n);
      for (let e = 0; e < n; e++) p.epochStarts[e] = { epoch: r.f64(), startOffset: r.f64() };
    }
    const batches = r.count(BATCH_HEADER_BYTES);
    for (let b = 0; b < batches; b++) p.batches.push(r.batch());
    partitions[i] = p;
  }
  r.end();
  return { errorCode, partitions };
}

function allNumbers(...values: unknown[]): boolean {
  for (const v of values) if (typeof v !== 'number') return false;
  return true;
}

/** Bounds-checked reads over one message. */
class Reader {
  private at = 0;

  constructor(private readonly buf: Buffer) {}

  f64(): number {
    this.need(F64);
    const v = this.buf.readDoubleBE(this.at);
    this.at += F64;
    return v;
  }

  u8(): number {
    this.need(1);
    return this.buf[this.at++];
  }

  /** A u32 count of items of at least `itemBytes` each, refused when the rest cannot hold them. */
  count(itemBytes: number): number {
    this.need(U32);
    const n = this.buf.readUInt32BE(this.at);
    this.at += U32;
    if (n * itemBytes > this.buf.length - this.at) throw new Error(`count ${n} overruns the message`);
    return n;
  }

  batch(): StoredBatch {
    const header = readValidHeader(this.buf, this.at);
    if (!header) throw new Error('record batch failed its checksum or is malformed');
    const batch = decodeBatch(this.buf, this.at, header);
    this.at += header.size;
    return batch;
  }

  end(): void {
    if (this.at !== this.buf.length) throw new Error(`${this.buf.length - this.at} bytes left over after the message`);
  }

  private need(bytes: number): void {
    if (this.at + bytes > this.buf.length) throw new Error('message is truncated');
  }
}
