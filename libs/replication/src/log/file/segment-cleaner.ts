import { open, rename, unlink } from 'node:fs/promises';
import { encodeBatch } from '../batch-codec';
import { compactBatches, latestOffsetByKey } from '../compaction-rule';
import type { CompactionStats, StoredBatch } from '../partition-log';
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

interface Group {
  segments: Segment[];
  sizes: number[];
  frames: Buffer[];
  batches: StoredBatch[];
  bytes: number;
  changed: boolean;
}

/**
 * Compacts the closed segments that lie wholly below `limit` (Kafka's cleaner never touches the
 * active segment). Pass 1 maps each key to its latest offset; pass 2 recopies the segments with the
 * shared rule, merging neighbours while the result fits in one segment. Each output is written as
 * `.cleaned`, fsynced, renamed to `.swap` (from then on recovery completes it), and only then do the
 * old segments go. A crash at any step leaves either the old segments or the new one, never a mix.
 * If a truncation changes the segments meanwhile, the output is discarded.
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
  const intact = (group: Segment[], groupSizes: number[]) => isIntact(ctx.segments(), group, groupSizes);

  const latest = new Map<string, number>();
  for (const segment of candidates) {
    if (!intact(candidates, sizes)) return noProgress;
    latestOffsetByKey(segment.readBatches(0, segment.batchCount), end, latest);
    await yieldToEventLoop();
  }

  let group: Group | undefined;
  for (const segment of candidates) {
    if (!intact(candidates, sizes)) return noProgress;
    const raw = segment.readRange(0, segment.size);
    const before = segment.decode(raw, 0, 0, segment.batchCount);
    const after = compactBatches(before, end, now, tombstoneRetentionMs, latest);
    const position = new Map(before.map((b, i) => [b, i]));
    // Untouched batches are copied byte for byte; only batches that lost records are re-encoded.
    const frames = after.map((b) => {
      const i = position.get(b);
      return i === undefined ? encodeBatch(b) : raw.subarray(segment.index.position(i), segment.index.position(i) + segment.index.size(i));
    });
    const bytes = frames.reduce((n, f) => n + f.length, 0);
    stats.recordsBefore += countRecords(before);
    stats.recordsAfter += countRecords(after);
    stats.bytesBefore += segment.size;
    stats.bytesAfter += bytes;
    if (group && group.bytes + bytes > ctx.segmentBytes) {
      if (!(await swapIn(ctx, group))) return noProgress;
      group = undefined;
    }
    group ??= { segments: [], sizes: [], frames: [], batches: [], bytes: 0, changed: false };
    group.segments.push(segment);
    group.sizes.push(segment.size);
    group.frames.push(...frames);
    group.batches.push(...after);
    group.bytes += bytes;
    group.changed ||= after.length !== before.length || after.some((b, i) => b !== before[i]);
    await yieldToEventLoop();
  }
  if (group && !(await swapIn(ctx, group))) return noProgress;
  return { stats, cleanedUpTo: end };
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
    if (group.frames.length > 0) await handle.writev(group.frames, 0);
    await handle.sync();
  } catch (error) {
    await handle.close().catch(() => undefined);
    await unlink(cleanedPath).catch(() => undefined);
    throw error;
  }
  let position = 0;
  group.batches.forEach((b, i) => {
    replacement.index.add(b.records[0].offset, b.records[b.records.length - 1].offset, position, group.frames[i].length, b.leaderEpoch);
    position += group.frames[i].length;
  });
  replacement.size = position;
  replacement.writtenSize = position;

  return ctx.io.run(async () => {
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
  });
}

/** The group is still in the log, consecutive, closed (not the last segment) and unchanged in size. */
function isIntact(list: readonly Segment[], group: Segment[], sizes: number[]): boolean {
  const at = list.indexOf(group[0]);
  if (at < 0 || at + group.length >= list.length) return false;
  return group.every((s, i) => list[at + i] === s && !s.deleted && s.size === sizes[i]);
}

function countRecords(batches: StoredBatch[]): number {
  return batches.reduce((n, b) => n + b.records.length, 0);
}

/** Lets appends and reads run between segments of a long compaction. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
