import { crc32 } from 'node:zlib';
import type { StoredRecord } from '../api/log-record';
import type { InPlaceVisitor, StoredBatch } from './partition-log';

/**
 * On-disk frame of one batch (big-endian), modelled on Kafka's RecordBatch v2 but simpler:
 *
 *   0  u32  length        bytes that follow this field
 *   4  u32  crc           CRC-32 of every byte after this field (magic .. end of records)
 *   8  u8   magic         FORMAT_MAGIC
 *   9  u32  baseOffset hi ┐ a 53-bit integer, so offsets stay exact JavaScript numbers
 *  13  u32  baseOffset lo ┘
 *  17  u32  lastOffsetDelta  offset of the last record minus baseOffset (batches are sparse after compaction)
 *  21  i32  leaderEpoch
 *  25  u32  recordCount
 *  29  records: u32 offsetDelta, f64 timestamp, u32 keyLength, key, i32 valueLength (-1 = tombstone), value
 *
 * The length prefix lets recovery walk a segment; the CRC over everything else catches torn and
 * corrupted writes, including a damaged header.
 */
export const FORMAT_MAGIC = 1;
export const BATCH_HEADER_BYTES = 29;
const RECORD_HEADER_BYTES = 20;
const TWO_POW_32 = 0x1_0000_0000;
/** A frame longer than this is garbage from a corrupt length field, not a batch. */
export const MAX_BATCH_BYTES = 64 * 1024 * 1024;

/** The header fields of a frame, read without decoding its records. */
export interface BatchHeader {
  baseOffset: number;
  lastOffset: number;
  leaderEpoch: number;
  recordCount: number;
  /** Whole frame size, length prefix included. */
  size: number;
}

export function encodedBatchSize(batch: StoredBatch): number {
  let size = BATCH_HEADER_BYTES;
  for (const r of batch.records) size += RECORD_HEADER_BYTES + r.key.length + (r.value ? r.value.length : 0);
  return size;
}

/** Encodes a non-empty batch into one frame. */
export function encodeBatch(batch: StoredBatch): Buffer {
  const buf = Buffer.allocUnsafe(encodedBatchSize(batch));
  encodeBatchInto(batch, buf, 0);
  return buf;
}

/** Encodes a non-empty batch into `buf` at `start` (`encodedBatchSize` bytes); returns where it ends. */
export function encodeBatchInto(batch: StoredBatch, buf: Buffer, start: number): number {
  const records = batch.records;
  const last = records[records.length - 1];
  const size = encodedBatchSize(batch);
  buf.writeUInt32BE(size - 4, start);
  buf.writeUInt8(FORMAT_MAGIC, start + 8);
  buf.writeUInt32BE(Math.floor(batch.baseOffset / TWO_POW_32), start + 9);
  buf.writeUInt32BE(batch.baseOffset % TWO_POW_32, start + 13);
  buf.writeUInt32BE(last.offset - batch.baseOffset, start + 17);
  buf.writeInt32BE(batch.leaderEpoch, start + 21);
  buf.writeUInt32BE(records.length, start + 25);
  let pos = start + BATCH_HEADER_BYTES;
  for (const r of records) {
    buf.writeUInt32BE(r.offset - batch.baseOffset, pos);
    buf.writeDoubleBE(r.timestamp, pos + 4);
    buf.writeUInt32BE(r.key.length, pos + 12);
    pos += 16;
    pos += r.key.copy(buf, pos);
    buf.writeInt32BE(r.value ? r.value.length : -1, pos);
    pos += 4;
    if (r.value) pos += r.value.copy(buf, pos);
  }
  buf.writeUInt32BE(crc32(buf.subarray(start + 8, start + size)), start + 4);
  return start + size;
}

/**
 * What the frame format stores exactly: a non-empty batch whose records all carry its epoch (kept once
 * per batch), with Buffer keys, Buffer or null values and offsets within 2^32 after the base offset.
 */
export function fitsBatchFormat(b: StoredBatch): boolean {
  if (
    b === null ||
    typeof b !== 'object' ||
    !Number.isSafeInteger(b.baseOffset) ||
    typeof b.leaderEpoch !== 'number' ||
    !Array.isArray(b.records) ||
    b.records.length === 0
  )
    return false;
  for (const r of b.records) {
    if (
      r === null ||
      typeof r !== 'object' ||
      r.leaderEpoch !== b.leaderEpoch ||
      !Buffer.isBuffer(r.key) ||
      (r.value !== null && !Buffer.isBuffer(r.value))
    )
      return false;
    if (
      !Number.isSafeInteger(r.offset) ||
      typeof r.timestamp !== 'number' ||
      r.offset < b.baseOffset ||
      r.offset - b.baseOffset > 0xffff_ffff
    )
      return false;
  }
  return true;
}

/**
 * Checks the frame starting at `pos` of `buf` (length bounds, magic, CRC) and returns its header, or
 * undefined when the bytes there are not one whole valid batch (a torn or corrupt tail).
 */
export function readValidHeader(buf: Buffer, pos: number, end = buf.length): BatchHeader | undefined {
  if (end - pos < 4) return undefined;
  const length = buf.readUInt32BE(pos);
  if (length < BATCH_HEADER_BYTES - 4 + RECORD_HEADER_BYTES || length > MAX_BATCH_BYTES || pos + 4 + length > end)
    return undefined;
  if (buf.readUInt8(pos + 8) !== FORMAT_MAGIC) return undefined;
  if (crc32(buf.subarray(pos + 8, pos + 4 + length)) !== buf.readUInt32BE(pos + 4)) return undefined;
  const baseOffset = buf.readUInt32BE(pos + 9) * TWO_POW_32 + buf.readUInt32BE(pos + 13);
  const recordCount = buf.readUInt32BE(pos + 25);
  if (recordCount === 0) return undefined;
  return {
    baseOffset,
    lastOffset: baseOffset + buf.readUInt32BE(pos + 17),
    leaderEpoch: buf.readInt32BE(pos + 21),
    recordCount,
    size: 4 + length,
  };
}

/** Offset of the first record of the frame at `pos` that `readValidHeader` accepted (batches are sparse after compaction). */
export function firstRecordOffset(buf: Buffer, pos: number, header: BatchHeader): number {
  return header.baseOffset + buf.readUInt32BE(pos + BATCH_HEADER_BYTES);
}

/**
 * What a truncation to `offset` keeps of a batch that straddles it: its records below `offset`, with
 * the batch's base offset and epoch. FileLog's truncation trims such a batch, and its recovery trims
 * it again where a crash undid that truncation.
 */
export function batchBelow(batch: StoredBatch, offset: number): StoredBatch {
  return { ...batch, records: batch.records.filter((r) => r.offset < offset) };
}

/**
 * Decodes the records of a frame that `readValidHeader` accepted. Keys and values are copied out,
 * so the result does not pin the (possibly large) read buffer in memory — unless `share`, for a reader
 * that decodes each record at once and keeps nothing of it (the coordinator's load): then they are
 * views of `buf`, which saves two allocations and two copies per record.
 */
export function decodeBatch(buf: Buffer, pos: number, header: BatchHeader, share = false): StoredBatch {
  const records: StoredRecord[] = new Array(header.recordCount);
  let p = pos + BATCH_HEADER_BYTES;
  const end = pos + header.size;
  for (let i = 0; i < header.recordCount; i++) {
    if (p + RECORD_HEADER_BYTES > end)
      throw new Error(`batch at offset ${header.baseOffset} has a malformed record ${i}`);
    const offset = header.baseOffset + buf.readUInt32BE(p);
    const timestamp = buf.readDoubleBE(p + 4);
    const keyLength = buf.readUInt32BE(p + 12);
    p += 16;
    const key = share ? buf.subarray(p, p + keyLength) : Buffer.from(buf.subarray(p, p + keyLength));
    p += keyLength;
    const valueLength = buf.readInt32BE(p);
    p += 4;
    let value: Buffer | null = null;
    if (valueLength >= 0) {
      value = share ? buf.subarray(p, p + valueLength) : Buffer.from(buf.subarray(p, p + valueLength));
      p += valueLength;
    }
    if (p > end) throw new Error(`batch at offset ${header.baseOffset} has a malformed record ${i}`);
    records[i] = { offset, leaderEpoch: header.leaderEpoch, key, value, timestamp };
  }
  return { baseOffset: header.baseOffset, leaderEpoch: header.leaderEpoch, records };
}

/**
 * Visits each record of a frame that `readValidHeader` accepted as positions in `buf`, with no record
 * object and no copy (a tombstone's value start is -1): what the coordinator's load reads with.
 */
export function forEachRecordInPlace(buf: Buffer, pos: number, header: BatchHeader, visit: InPlaceVisitor): void {
  let p = pos + BATCH_HEADER_BYTES;
  const end = pos + header.size;
  // Fields read by hand (bounds checked above each read): Buffer's readers cost several times more, a million times.
  for (let i = 0; i < header.recordCount; i++) {
    if (p + RECORD_HEADER_BYTES > end)
      throw new Error(`batch at offset ${header.baseOffset} has a malformed record ${i}`);
    const offset = header.baseOffset + uint32At(buf, p);
    const keyStart = p + 16;
    const keyEnd = keyStart + uint32At(buf, p + 12);
    if (keyEnd + 4 > end) throw new Error(`batch at offset ${header.baseOffset} has a malformed record ${i}`);
    const valueLength = (buf[keyEnd] << 24) | (buf[keyEnd + 1] << 16) | (buf[keyEnd + 2] << 8) | buf[keyEnd + 3];
    p = keyEnd + 4 + Math.max(0, valueLength);
    if (p > end) throw new Error(`batch at offset ${header.baseOffset} has a malformed record ${i}`);
    visit(offset, buf, keyStart, keyEnd, valueLength < 0 ? -1 : keyEnd + 4, p);
  }
}

function uint32At(buf: Buffer, at: number): number {
  return buf[at] * 0x100_0000 + ((buf[at + 1] << 16) | (buf[at + 2] << 8) | buf[at + 3]);
}

/**
 * Visits each record of a valid frame without copying keys or values: the key comes as a latin1
 * string (the compaction map key, see `keyOf`). What the cleaner scans millions of records with.
 */
export function forEachRecordKey(
  buf: Buffer,
  pos: number,
  header: BatchHeader,
  visit: (offset: number, key: string, tombstone: boolean, timestamp: number) => void,
): void {
  let p = pos + BATCH_HEADER_BYTES;
  for (let i = 0; i < header.recordCount; i++) {
    const offset = header.baseOffset + buf.readUInt32BE(p);
    const timestamp = buf.readDoubleBE(p + 4);
    const keyLength = buf.readUInt32BE(p + 12);
    p += 16;
    const key = buf.toString('latin1', p, p + keyLength);
    p += keyLength;
    const valueLength = buf.readInt32BE(p);
    p += 4 + Math.max(0, valueLength);
    visit(offset, key, valueLength < 0, timestamp);
  }
}
