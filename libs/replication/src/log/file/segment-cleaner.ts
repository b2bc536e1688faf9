import { open, rename, unlink, type FileHandle } from 'node:fs/promises';
import {
  decodeBatch,
  encodeBatch,
  firstRecordOffset,
  forEachRecordKey,
  readValidHeader,
  type BatchHeader,
} from '../batch-codec';
import { keyOf, recordSurvives } from '../compaction-rule';
import type { CompactionStats } from '../partition-log';
import type { IoQueue } from './io-queue';
import { Segment } from './segment';
import { cleanedFileName, fsyncDirectory, inDir, segmentFileName, swapFileName } from './segment-files';

/** What the cleaner needs from its FileLog. */
export interface CleanerContext {
  dir: string;
  segmentBytes: number;
  io: IoQueue;
  segments(): readonly Segment[];
  /** Puts `replacement` where the consecutive segments `old` are, synchronously. */
  replace(old: Segment[], replacement: Segment): void;
}

interface Frame {
  bytes: Buffer;
  firstOffset: number;
  lastOffset: number;
  epoch: number;
}

interface Group {
  segments: Segment[];
  sizes: number[];
  frames: Frame[];
  bytes: number;
  changed: boolean;
}

/**
 * What one slice of a compaction reads (and checks, filters, re-encodes) between two yields to the event
 * loop, so a big compaction never stalls appends and answers for long: at most this many batches, and at
 * most SLICE_BYTES of them (at least one batch). Counted in batches alone, a slice of a segment of big
 * batches (a coordinator's turn appends one batch of hundreds of records) was the whole segment: a
 * 4 MiB one held the event loop for up to 200 ms at whatever moment compaction ran.
 */
const SLICE_BATCHES = 2000;
export const SLICE_BYTES = 256 * 1024;

/**
 * Compacts the closed segments that lie wholly below `limit` (Kafka's cleaner never touches the
 * active segment). Pass 1 maps each key to its latest offset; pass 2 recopies the segments with the
 * shared rule (`recordSurvives`, the rule of `compactBatches`), merging neighbours while the result
 * fits in one segment. Batches that keep every record are copied byte for byte. Each output is
 * written as `.cleaned`, fsynced, renamed to `.swap` (from then on recovery completes it), and only
 * then do the old segments go. A crash at any step leaves either the old segments or the new one,
 * never a mix. If a truncation changes the segments meanwhile, the output is discarded.
 */
export async function cleanSegments(
  ctx: CleanerContext,
  limit: number,
  now: number,
  tombstoneRetentionMs: number,
): Promise<{ stats: CompactionStats; cleanedUpTo: number }> {
  const stats: CompactionStats = { recordsBefore: 0, recordsAfter: 0, bytesBefore: 0, bytesAfter: 0 };
  const all = ctx.segments();
  const candidates: Segment[] = [];
  for (let s = 0; s + 1 < all.length && all[s + 1].baseOffset <= limit; s++) candidates.push(all[s]);
  const noProgress = { stats, cleanedUpTo: 0 };
  if (candidates.length === 0) return noProgress;
  const end = all[candidates.length].baseOffset;
  const sizes = candidates.map((s) => s.size);
  const intact = () => isIntact(ctx.segments(), candidates, sizes);
  const deleteBefore = now - tombstoneRetentionMs;

  const latest = new Map<string, number>();
  for (const segment of candidates) {
    for (let from = 0, to = 0; from < segment.batchCount; from = to) {
      if (!intact()) return noProgress;
      to = sliceEnd(segment, from);
      forEachFrame(segment, from, to, (raw, pos, header) => {
        forEachRecordKey(raw, pos, header, (offset, key) => latest.set(key, offset));
      });
      await yieldToEventLoop();
    }
  }

  let group: Group | undefined;
  for (const segment of candidates) {
    const frames: Frame[] = [];
    let changed = false;
    for (let from = 0, to = 0; from < segment.batchCount; from = to) {
      if (!intact()) return noProgress;
      to = sliceEnd(segment, from);
      forEachFrame(segment, from, to, (raw, pos, header) => {
        let kept = 0;
        forEachRecordKey(raw, pos, header, (offset, key, tombstone, timestamp) => {
          if (recordSurvives(offset, key, tombstone, timestamp, latest, deleteBefore)) kept++;
        });
        stats.recordsBefore += header.recordCount;
        stats.recordsAfter += kept;
        if (kept === header.recordCount) {
          const first = firstRecordOffset(raw, pos, header);
          frames.push({
            bytes: raw.subarray(pos, pos + header.size),
            firstOffset: first,
            lastOffset: header.lastOffset,
            epoch: header.leaderEpoch,
          });
          return;
        }
        changed = true;
        if (kept === 0) return;
        const batch = decodeBatch(raw, pos, header);
        const survivors = batch.records.filter((r) =>
          recordSurvives(r.offset, keyOf(r.key), r.value === null, r.timestamp, latest, deleteBefore),
        );
        frames.push({
          bytes: encodeBatch({ ...batch, records: survivors }),
          firstOffset: survivors[0].offset,
          lastOffset: survivors[survivors.length - 1].offset,
          epoch: batch.leaderEpoch,
        });
      });
      await yieldToEventLoop();
    }
    const bytes = frames.reduce((n, f) => n + f.bytes.length, 0);
    stats.bytesBefore += segment.size;
    stats.bytesAfter += bytes;
    if (group && group.bytes + bytes > ctx.segmentBytes) {
      if (!(await swapIn(ctx, group))) return noProgress;
      group = undefined;
    }
    group ??= { segments: [], sizes: [], frames: [], bytes: 0, changed: false };
    group.segments.push(segment);
    group.sizes.push(segment.size);
    for (const f of frames) group.frames.push(f);
    group.bytes += bytes;
    group.changed ||= changed;
  }
  if (group && !(await swapIn(ctx, group))) return noProgress;
  return { stats, cleanedUpTo: end };
}

/** Where the slice of `segment` starting at batch `from` ends (exclusive): SLICE_BATCHES and SLICE_BYTES bound it. */
function sliceEnd(segment: Segment, from: number): number {
  const last = Math.min(segment.batchCount, from + SLICE_BATCHES);
  const { index } = segment;
  const limit = index.position(from) + SLICE_BYTES;
  let to = from + 1;
  while (to < last && index.position(to) + index.size(to) <= limit) to++;
  return to;
}

/** Calls `visit` for each batch `from` .. `to - 1` of `segment`, checking each frame's CRC again. */
function forEachFrame(
  segment: Segment,
  from: number,
  to: number,
  visit: (raw: Buffer, pos: number, header: BatchHeader) => void,
): void {
  if (from >= to) return;
  const start = segment.index.position(from);
  const raw = segment.readRange(start, segment.index.position(to - 1) + segment.index.size(to - 1));
  for (let i = from; i < to; i++) {
    const pos = segment.index.position(i) - start;
    const header = readValidHeader(raw, pos);
    if (!header) throw new Error(`${segment.path}: batch at position ${segment.index.position(i)} fails its checksum`);
    visit(raw, pos, header);
  }
}

/** Writes one group's output and swaps it for the group's segments. False when the log changed under us. */
async function swapIn(ctx: CleanerContext, group: Group): Promise<boolean> {
  if (group.segments.length === 1 && !group.changed) return true;
  const first = group.segments[0].baseOffset;
  const cleanedPath = inDir(ctx.dir, cleanedFileName(first));
  const finalPath = inDir(ctx.dir, segmentFileName(first));
  const handle = await open(cleanedPath, 'w+');
  const replacement = new Segment(first, finalPath);
  replacement.handle = handle;
  try {
    if (group.frames.length > 0) await writeAll(handle, Buffer.concat(group.frames.map((f) => f.bytes)));
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(cleanedPath).catch(() => undefined);
    throw error;
  }
  let position = 0;
  for (const f of group.frames) {
    replacement.index.add(f.firstOffset, f.lastOffset, position, f.bytes.length, f.epoch);
    position += f.bytes.length;
  }
  replacement.size = position;
  replacement.writtenSize = position;

  return ctx.io.run(
    async () => {
      const discard = async (path: string) => {
        await handle.close();
        await unlink(path);
        await fsyncDirectory(ctx.dir);
        return false;
      };
      if (!isIntact(ctx.segments(), group.segments, group.sizes)) return discard(cleanedPath);
      const list = ctx.segments();
      const after = list[list.indexOf(group.segments[group.segments.length - 1]) + 1];
      const swapPath = inDir(ctx.dir, swapFileName(first, after.baseOffset));
      await rename(cleanedPath, swapPath);
      await fsyncDirectory(ctx.dir);
      // From here a crash completes the swap on reopen; re-check, since a truncation may have run meanwhile.
      if (!isIntact(ctx.segments(), group.segments, group.sizes)) return discard(swapPath);
      ctx.replace(group.segments, replacement);
      for (const old of group.segments) {
        await old.handle?.close();
        old.handle = undefined;
        if (old.path !== finalPath) await unlink(old.path);
      }
      await rename(swapPath, finalPath);
      await fsyncDirectory(ctx.dir);
      return true;
      // Not run twice: once the segments are replaced, running it again would find the swap half done.
    },
    { retriable: false },
  );
}

/** The group is still in the log, consecutive, closed (not the last segment) and unchanged in size. */
function isIntact(list: readonly Segment[], group: Segment[], sizes: number[]): boolean {
  const at = list.indexOf(group[0]);
  if (at < 0 || at + group.length >= list.length) return false;
  return group.every((s, i) => list[at + i] === s && !s.deleted && s.size === sizes[i]);
}

async function writeAll(handle: FileHandle, bytes: Buffer): Promise<void> {
  let done = 0;
  while (done < bytes.length) done += (await handle.write(bytes, done, bytes.length - done, done)).bytesWritten;
}

/** Lets appends and reads run between segments of a long compaction. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
