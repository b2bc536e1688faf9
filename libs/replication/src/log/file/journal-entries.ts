import { crc32 } from 'node:zlib';

/**
 * One entry of a log journal (big-endian):
 *
 *   0  u32  length   bytes that follow the CRC field
 *   4  u32  crc      CRC-32 of those bytes
 *   8  u8   kind     1 = a batch appended, 2 = a truncation
 *   9  u32  logId    which log of the journal it belongs to
 *  13  ...  payload  kind 1: the batch's log frame as the segment file holds it (with its own CRC);
 *                    kind 2: f64 the offset the log was truncated to
 *
 * The CRC covers the kind and the log id, so a damaged entry is never applied to the wrong log.
 */
export type JournalEntry = { kind: 'batch'; logId: number; frame: Buffer } | { kind: 'truncate'; logId: number; offset: number };

const HEADER_BYTES = 13;
const KIND_BATCH = 1;
const KIND_TRUNCATE = 2;
/** An entry longer than this is a corrupt length field: the batch format's own limit plus the header. */
const MAX_ENTRY_BYTES = 64 * 1024 * 1024 + HEADER_BYTES;

export function encodeBatchEntry(logId: number, frame: Buffer): Buffer[] {
  const header = Buffer.allocUnsafe(HEADER_BYTES);
  header.writeUInt32BE(HEADER_BYTES - 8 + frame.length, 0);
  header.writeUInt8(KIND_BATCH, 8);
  header.writeUInt32BE(logId, 9);
  const crc = crc32(frame, crc32(header.subarray(8)));
  header.writeUInt32BE(crc, 4);
  return [header, frame];
}

export function encodeTruncateEntry(logId: number, offset: number): Buffer {
  const entry = Buffer.allocUnsafe(HEADER_BYTES + 8);
  entry.writeUInt32BE(HEADER_BYTES - 8 + 8, 0);
  entry.writeUInt8(KIND_TRUNCATE, 8);
  entry.writeUInt32BE(logId, 9);
  entry.writeDoubleBE(offset, HEADER_BYTES);
  entry.writeUInt32BE(crc32(entry.subarray(8)), 4);
  return entry;
}

/**
 * The whole entries of `bytes` in order, up to the first one that is torn or damaged (a crash in the
 * middle of a write that was never synced, so never acknowledged); `validBytes` says where that is.
 */
export function decodeJournalEntries(bytes: Buffer): { entries: JournalEntry[]; validBytes: number } {
  const entries: JournalEntry[] = [];
  let pos = 0;
  while (bytes.length - pos >= HEADER_BYTES) {
    const length = bytes.readUInt32BE(pos);
    const end = pos + 8 + length;
    if (length < HEADER_BYTES - 8 || length > MAX_ENTRY_BYTES || end > bytes.length) break;
    if (crc32(bytes.subarray(pos + 8, end)) !== bytes.readUInt32BE(pos + 4)) break;
    const kind = bytes.readUInt8(pos + 8);
    const logId = bytes.readUInt32BE(pos + 9);
    if (kind === KIND_BATCH) {
      entries.push({ kind: 'batch', logId, frame: bytes.subarray(pos + HEADER_BYTES, end) });
    } else if (kind === KIND_TRUNCATE && length === HEADER_BYTES - 8 + 8) {
      entries.push({ kind: 'truncate', logId, offset: bytes.readDoubleBE(pos + HEADER_BYTES) });
    } else {
      break;
    }
    pos = end;
  }
  return { entries, validBytes: pos };
}
