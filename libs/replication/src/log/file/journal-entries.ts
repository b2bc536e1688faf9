import { crc32 } from 'node:zlib';
import { readValidHeader } from '../batch-codec';

/**
 * One entry of a log journal (big-endian):
 *
 *   0  u32  length   bytes that follow the CRC field
 *   4  u32  crc      CRC-32 of the kind, the log id and the payload's first 8 bytes
 *   8  u8   kind     1 = a batch appended, 2 = a truncation
 *   9  u32  logId    which log of the journal it belongs to
 *  13  ...  payload  kind 1: the batch's log frame as the segment file holds it (with its own CRC);
 *                    kind 2: f64 the offset the log was truncated to
 *
 * The CRC covers the kind and the log id, so a damaged entry is never applied to the wrong log. Of a
 * frame it covers only the length and CRC fields: the frame's own CRC, checked on decoding, covers
 * the rest, so an append does not checksum its batch a second time.
 */
export type JournalEntry =
  { kind: 'batch'; logId: number; frame: Buffer } | { kind: 'truncate'; logId: number; offset: number };

const HEADER_BYTES = 13;
/** How much of the payload the entry's CRC covers: all of a truncation's, a frame's length and CRC fields. */
const PAYLOAD_CHECKED_BYTES = 8;
const KIND_BATCH = 1;
const KIND_TRUNCATE = 2;
/** An entry longer than this is a corrupt length field: the batch format's own limit plus the header. */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024 + HEADER_BYTES;

export function encodeBatchEntry(logId: number, frame: Buffer): Buffer[] {
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32BE(HEADER_BYTES - 8 + frame.length, 0);
  header.writeUInt8(KIND_BATCH, 8);
  header.writeUInt32BE(logId, 9);
  header.writeUInt32BE(entryCrc(header, 0, frame, 0), 4);
  return [header, frame];
}

export function encodeTruncateEntry(logId: number, offset: number): Buffer {
  const entry = Buffer.allocUnsafe(HEADER_BYTES + 8);
  entry.writeUInt32BE(HEADER_BYTES - 8 + 8, 0);
  entry.writeUInt8(KIND_TRUNCATE, 8);
  entry.writeUInt32BE(logId, 9);
  entry.writeDoubleBE(offset, HEADER_BYTES);
  entry.writeUInt32BE(entryCrc(entry, 0, entry, HEADER_BYTES), 4);
  return entry;
}

/**
 * The whole entries of `bytes` in order, up to the first one that is torn or damaged (a crash in the
 * middle of a write that was never synced, so never acknowledged); `validBytes` says where that is, and
 * `tornBytes` how many bytes after it are not the zeros a journal file is preallocated with (a zero
 * length field ends the entries: no entry is shorter than its header).
 */
export function decodeJournalEntries(bytes: Buffer): {
  entries: JournalEntry[];
  validBytes: number;
  tornBytes: number;
} {
  const entries: JournalEntry[] = [];
  let pos = 0;
  while (bytes.length - pos >= HEADER_BYTES) {
    const length = bytes.readUInt32BE(pos);
    const end = pos + 8 + length;
    if (length < HEADER_BYTES - 8 + PAYLOAD_CHECKED_BYTES || length > MAX_ENTRY_BYTES || end > bytes.length) break;
    if (entryCrc(bytes, pos, bytes, pos + HEADER_BYTES) !== bytes.readUInt32BE(pos + 4)) break;
    const kind = bytes.readUInt8(pos + 8);
    const logId = bytes.readUInt32BE(pos + 9);
    if (kind === KIND_BATCH) {
      const frame = bytes.subarray(pos + HEADER_BYTES, end);
      if (readValidHeader(frame, 0)?.size !== frame.length) break;
      entries.push({ kind: 'batch', logId, frame });
    } else if (kind === KIND_TRUNCATE && length === HEADER_BYTES - 8 + 8) {
      entries.push({ kind: 'truncate', logId, offset: bytes.readDoubleBE(pos + HEADER_BYTES) });
    } else {
      break;
    }
    pos = end;
  }
  return { entries, validBytes: pos, tornBytes: zeroTailStart(bytes, pos) - pos };
}

/** Where the zeros that end `bytes` begin, looking no earlier than `from`. */
function zeroTailStart(bytes: Buffer, from: number): number {
  let end = bytes.length;
  // Whole chunks compared at once: a preallocated file ends in up to its full size of zeros.
  while (end - from >= ZERO_CHUNK.length && bytes.subarray(end - ZERO_CHUNK.length, end).equals(ZERO_CHUNK))
    end -= ZERO_CHUNK.length;
  while (end > from && bytes[end - 1] === 0) end--;
  return end;
}

const ZERO_CHUNK = Buffer.alloc(64 * 1024);

/** CRC-32 of an entry's kind and log id (`header` at `at`) and the first bytes of its payload (`payload` at `from`). */
function entryCrc(header: Buffer, at: number, payload: Buffer, from: number): number {
  return crc32(payload.subarray(from, from + PAYLOAD_CHECKED_BYTES), crc32(header.subarray(at + 8, at + HEADER_BYTES)));
}
