import { open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { crc32 } from 'node:zlib';
import { Segment } from './segment';
import { fsyncDirectory, ignoreMissing, inDir, parsePartitionFile, segmentFileName } from './segment-files';

/**
 * The batch index of every segment, written by a clean close after its last fsync (Kafka's clean
 * shutdown marker with its offset indexes): the next open builds its segments from it instead of
 * reading and checksumming every byte of the log, which was most of a restart's replay. The data
 * is still checked where it is read (every read checks each batch's CRC). A crash never leaves a
 * stale index: the log deletes it, durably, as the first operation of its I/O queue, so before any
 * of its files can change.
 */
export const CLEAN_CLOSE_INDEX = 'clean-close.index';
const WRITING = `${CLEAN_CLOSE_INDEX}.tmp`;
const MAGIC = 0x43434958; // "CCIX"
const VERSION = 1;
const HEADER_BYTES = 20;
const SEGMENT_BYTES = 28;
const BATCH_BYTES = 32;

/**
 * What a clean close left: its segments, and how far its cleaner had got (Kafka's
 * cleaner-offset-checkpoint; as read, so the caller checks it lies within the log).
 */
export interface ClosedLog {
  segments: Segment[];
  firstDirtyOffset: number;
}

/** Writes the index of `segments`, which must all be durable in full: call it after the close's last fsync. */
export async function writeCleanCloseIndex(
  dir: string,
  segments: readonly Segment[],
  firstDirtyOffset: number,
): Promise<void> {
  const modified = await Promise.all(segments.map(async (s) => (await s.handle!.stat()).mtimeMs));
  const bytes = encode(segments, modified, firstDirtyOffset);
  const handle = await open(inDir(dir, WRITING), 'w');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(inDir(dir, WRITING), inDir(dir, CLEAN_CLOSE_INDEX));
  await fsyncDirectory(dir);
}

/**
 * The segments as the last clean close left them, opened for writing, or undefined when there is no
 * index or it does not match the directory exactly (a file added, removed, grown or cut since, or an
 * unfinished compaction): then the caller recovers the log by reading it, and deletes the index
 * (`forgetCleanCloseIndex`) before it changes any file. `listedEnd` is the log end the index lists,
 * whether or not it matches: every offset below it was durable at that close, which is what tells a
 * corrupt segment from a torn tail. A log opened from the index must `forgetCleanCloseIndex` before its
 * files change.
 */
export async function openFromCleanCloseIndex(
  dir: string,
): Promise<{ closed: ClosedLog | undefined; listedEnd: number | undefined }> {
  const names = await readdir(dir);
  if (!names.includes(CLEAN_CLOSE_INDEX)) return { closed: undefined, listedEnd: undefined };
  const decoded = decode(dir, await readFile(inDir(dir, CLEAN_CLOSE_INDEX)));
  if (!decoded) return { closed: undefined, listedEnd: undefined };
  const last = decoded.segments[decoded.segments.length - 1].segment;
  const listedEnd = last.endOffset ?? last.baseOffset;
  return { closed: await openListed(names, decoded), listedEnd };
}

/** Deletes the index (and any unfinished one) durably: from then on a crash leaves nothing to trust. */
export async function forgetCleanCloseIndex(dir: string): Promise<void> {
  await unlink(inDir(dir, CLEAN_CLOSE_INDEX)).catch(ignoreMissing);
  await unlink(inDir(dir, WRITING)).catch(ignoreMissing);
  await fsyncDirectory(dir);
}

async function openListed(
  names: string[],
  decoded: NonNullable<ReturnType<typeof decode>>,
): Promise<ClosedLog | undefined> {
  const listed = decoded.segments;
  const files = names.map(parsePartitionFile).filter((f) => f !== undefined);
  const bases = new Set(listed.map((s) => s.segment.baseOffset));
  // Only segments, and exactly the listed ones: a swap or leftover means a compaction to finish.
  if (files.length !== listed.length || files.some((f) => f.kind !== 'segment' || !bases.has(f.baseOffset)))
    return undefined;
  const opened: Segment[] = [];
  try {
    for (const { segment, modified } of listed) {
      segment.handle = await open(segment.path, 'r+');
      opened.push(segment);
      const now = await segment.handle.stat();
      if (now.size !== segment.size || Math.trunc(now.mtimeMs) !== Math.trunc(modified)) throw new ChangedSinceClose();
    }
  } catch (error) {
    await Promise.all(opened.map((s) => s.handle?.close()));
    if (error instanceof ChangedSinceClose || (error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  return { segments: opened, firstDirtyOffset: decoded.firstDirtyOffset };
}

class ChangedSinceClose extends Error {}

/**
 * Each segment's modification time is kept too (compared to the millisecond): a write since, say by
 * another version of Cohort, changes it even where the size stays.
 */
function encode(segments: readonly Segment[], modified: number[], firstDirtyOffset: number): Buffer {
  let length = HEADER_BYTES + 4;
  for (const s of segments) length += SEGMENT_BYTES + BATCH_BYTES * s.batchCount;
  const out = Buffer.allocUnsafe(length);
  out.writeUInt32BE(MAGIC, 0);
  out.writeUInt32BE(VERSION, 4);
  out.writeUInt32BE(segments.length, 8);
  out.writeDoubleBE(firstDirtyOffset, 12);
  let p = HEADER_BYTES;
  for (const [n, s] of segments.entries()) {
    out.writeDoubleBE(s.baseOffset, p);
    out.writeDoubleBE(s.size, p + 8);
    out.writeDoubleBE(modified[n], p + 16);
    out.writeUInt32BE(s.batchCount, p + 24);
    p += SEGMENT_BYTES;
    const index = s.index;
    for (let i = 0; i < s.batchCount; i++) {
      out.writeDoubleBE(index.firstOffset(i), p);
      out.writeDoubleBE(index.lastOffset(i), p + 8);
      out.writeDoubleBE(index.position(i), p + 16);
      out.writeUInt32BE(index.size(i), p + 24);
      out.writeInt32BE(index.epoch(i), p + 28);
      p += BATCH_BYTES;
    }
  }
  out.writeUInt32BE(crc32(out.subarray(0, p)), p);
  return out;
}

/**
 * The listed segments (no handles yet), or undefined unless the bytes are a whole index whose batches
 * tile each segment from its start to its size with offsets rising across the log: what recovery
 * would have found reading the files, short of their CRCs.
 */
function decode(
  dir: string,
  bytes: Buffer,
): { segments: Array<{ segment: Segment; modified: number }>; firstDirtyOffset: number } | undefined {
  if (bytes.length < HEADER_BYTES + 4 || bytes.readUInt32BE(0) !== MAGIC || bytes.readUInt32BE(4) !== VERSION)
    return undefined;
  if (crc32(bytes.subarray(0, bytes.length - 4)) !== bytes.readUInt32BE(bytes.length - 4)) return undefined;
  const count = bytes.readUInt32BE(8);
  const segments: Array<{ segment: Segment; modified: number }> = [];
  let p = HEADER_BYTES;
  let lastOffset = -1;
  let lastBase = -1;
  for (let s = 0; s < count; s++) {
    if (p + SEGMENT_BYTES > bytes.length - 4) return undefined;
    const baseOffset = bytes.readDoubleBE(p);
    const size = bytes.readDoubleBE(p + 8);
    const modified = bytes.readDoubleBE(p + 16);
    const batches = bytes.readUInt32BE(p + 24);
    p += SEGMENT_BYTES;
    if (
      !Number.isSafeInteger(baseOffset) ||
      baseOffset <= lastBase ||
      baseOffset <= lastOffset ||
      p + BATCH_BYTES * batches > bytes.length - 4
    )
      return undefined;
    const segment = new Segment(baseOffset, inDir(dir, segmentFileName(baseOffset)));
    let position = 0;
    let last = Math.max(lastOffset, baseOffset - 1);
    for (let i = 0; i < batches; i++, p += BATCH_BYTES) {
      const first = bytes.readDoubleBE(p);
      const end = bytes.readDoubleBE(p + 8);
      const at = bytes.readDoubleBE(p + 16);
      const frame = bytes.readUInt32BE(p + 24);
      if (
        at !== position ||
        frame === 0 ||
        !Number.isSafeInteger(first) ||
        !Number.isSafeInteger(end) ||
        first <= last ||
        end < first
      )
        return undefined;
      segment.index.add(first, end, at, frame, bytes.readInt32BE(p + 28));
      position += frame;
      last = end;
    }
    if (position !== size) return undefined;
    segment.size = size;
    segment.writtenSize = size;
    segments.push({ segment, modified });
    lastBase = baseOffset;
    lastOffset = last;
  }
  if (p !== bytes.length - 4 || segments.length === 0) return undefined;
  return { segments, firstDirtyOffset: bytes.readDoubleBE(12) };
}
