import { mkdir, open, readdir, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { firstRecordOffset, readValidHeader } from '../batch-codec';
import { openFromCleanCloseIndex } from './clean-close-index';
import { Segment } from './segment';
import {
  fsyncDirectory,
  ignoreMissing,
  inDir,
  parsePartitionFile,
  segmentFileName,
  type PartitionFile,
} from './segment-files';

/** A tail cut off a segment on open because it was torn by a crash or corrupt. */
export interface TruncatedTail {
  file: string;
  segmentBaseOffset: number;
  /** Bytes kept: the tail starts here. */
  position: number;
  droppedBytes: number;
  /** Offset after the last record kept in the segment (the segment base if none was). */
  keptUpToOffset: number;
  reason: string;
}

/**
 * What opening a log found and repaired. Nothing is dropped silently: every cut tail and every
 * removed file is listed here, and `clean` says whether anything had to be repaired at all.
 */
export interface RecoveryReport {
  directory: string;
  clean: boolean;
  segments: number;
  batches: number;
  logStartOffset: number;
  logEndOffset: number;
  truncatedTails: TruncatedTail[];
  /** Files deleted: compaction output that never became durable, and segments after a corrupt one. */
  removedFiles: Array<{ file: string; bytes: number; reason: string }>;
  /** Compaction swaps that a crash interrupted and that were completed. */
  completedSwaps: string[];
  /** The segments came from the index of a clean close, unread (`clean-close-index.ts`). */
  fromCleanClose: boolean;
  /** Where the log's cleaner goes on from: as far as it had got before a clean close, else the log start. */
  firstDirtyOffset: number;
}

/**
 * Opens the segments of one partition directory after any kind of shutdown. After a clean close they
 * come from the index it left, unread (Kafka skips recovery after a clean shutdown too). Otherwise
 * this finishes interrupted compaction swaps, deletes incomplete compaction output, validates every batch (length, CRC,
 * increasing offsets), cuts each segment back to its last good batch and, like Kafka's LogLoader,
 * drops every segment after a damaged one so the log stays a gap-free prefix of what was written.
 */
export async function recoverSegments(dir: string): Promise<{ segments: Segment[]; report: RecoveryReport }> {
  // A new partition directory is itself an entry in DATA_DIR: make it durable too.
  if ((await mkdir(dir, { recursive: true })) !== undefined) await fsyncDirectory(dirname(dir));
  const report: RecoveryReport = {
    directory: dir,
    clean: true,
    segments: 0,
    batches: 0,
    logStartOffset: 0,
    logEndOffset: 0,
    truncatedTails: [],
    removedFiles: [],
    completedSwaps: [],
    fromCleanClose: false,
    firstDirtyOffset: 0,
  };
  const closedCleanly = await openFromCleanCloseIndex(dir);
  if (closedCleanly) {
    report.fromCleanClose = true;
    summarize(report, closedCleanly.segments);
    // The cleaner's position only saves work: outside the log it is the log start (nothing cleaned yet).
    const cleaned = closedCleanly.firstDirtyOffset;
    if (Number.isSafeInteger(cleaned) && cleaned >= report.logStartOffset && cleaned <= report.logEndOffset)
      report.firstDirtyOffset = cleaned;
    return { segments: closedCleanly.segments, report };
  }
  let dirChanged = await finishInterruptedCompaction(dir, report);

  const files = (await readdir(dir))
    .map(parsePartitionFile)
    .filter((f): f is PartitionFile & { kind: 'segment' } => f?.kind === 'segment');
  files.sort((a, b) => a.baseOffset - b.baseOffset);
  const segments: Segment[] = [];
  let previousLast = -1;
  let damaged = false;
  for (const file of files) {
    const path = inDir(dir, file.name);
    if (damaged) {
      report.removedFiles.push({ file: path, bytes: (await stat(path)).size, reason: 'follows a damaged segment' });
      await unlink(path);
      dirChanged = true;
      continue;
    }
    const segment = await loadSegment(path, file.baseOffset, previousLast, report);
    damaged = report.truncatedTails.some((t) => t.file === path);
    segments.push(segment);
    previousLast = segment.endOffset !== undefined ? segment.endOffset - 1 : previousLast;
  }
  if (segments.length === 0) {
    const segment = new Segment(0, inDir(dir, segmentFileName(0)));
    segment.handle = await open(segment.path, 'w+');
    segments.push(segment);
    dirChanged = true;
  }
  if (dirChanged) await fsyncDirectory(dir);
  report.clean =
    report.truncatedTails.length === 0 && report.removedFiles.length === 0 && report.completedSwaps.length === 0;
  return { segments, report: summarize(report, segments) };
}

/** Fills in the report's figures of the opened segments. */
function summarize(report: RecoveryReport, segments: Segment[]): RecoveryReport {
  let lastOffset = -1;
  for (const s of segments) if (s.endOffset !== undefined) lastOffset = s.endOffset - 1;
  report.segments = segments.length;
  report.batches = segments.reduce((n, s) => n + s.batchCount, 0);
  report.logStartOffset = segments[0].baseOffset;
  report.firstDirtyOffset = report.logStartOffset;
  report.logEndOffset = Math.max(segments[segments.length - 1].baseOffset, lastOffset + 1);
  return report;
}

/**
 * A `.swap` was complete and durable before it got its name, so it wins: the segments it replaces are
 * deleted and it takes their place. A `.cleaned` file may be partial, so it is deleted.
 */
async function finishInterruptedCompaction(dir: string, report: RecoveryReport): Promise<boolean> {
  const entries = (await readdir(dir)).map(parsePartitionFile).filter((f): f is PartitionFile => f !== undefined);
  let changed = false;
  for (const f of entries) {
    if (f.kind !== 'leftover') continue;
    const path = inDir(dir, f.name);
    report.removedFiles.push({ file: path, bytes: (await stat(path)).size, reason: 'incomplete compaction output' });
    await unlink(path);
    changed = true;
  }
  for (const swap of entries) {
    if (swap.kind !== 'swap') continue;
    for (const seg of entries) {
      if (
        seg.kind === 'segment' &&
        seg.baseOffset >= swap.baseOffset &&
        seg.baseOffset < swap.nextBaseOffset &&
        seg.baseOffset !== swap.baseOffset
      ) {
        await unlink(inDir(dir, seg.name)).catch(ignoreMissing);
      }
    }
    await rename(inDir(dir, swap.name), inDir(dir, segmentFileName(swap.baseOffset)));
    report.completedSwaps.push(inDir(dir, swap.name));
    changed = true;
  }
  return changed;
}

async function loadSegment(
  path: string,
  baseOffset: number,
  previousLast: number,
  report: RecoveryReport,
): Promise<Segment> {
  const segment = new Segment(baseOffset, path);
  const handle = await open(path, 'r+');
  segment.handle = handle;
  const size = (await handle.stat()).size;
  const bytes = Buffer.allocUnsafe(size);
  let read = 0;
  while (read < size) {
    const { bytesRead } = await handle.read(bytes, read, size - read, read);
    if (bytesRead === 0) break;
    read += bytesRead;
  }
  let pos = 0;
  let last = previousLast;
  let reason: string | undefined;
  while (pos < read) {
    const header = readValidHeader(bytes, pos, read);
    if (!header) {
      reason = 'torn or corrupt batch (length, magic or CRC check failed)';
      break;
    }
    const first = firstRecordOffset(bytes, pos, header);
    if (first < baseOffset || first <= last || header.lastOffset < first) {
      reason = `batch offsets ${first}..${header.lastOffset} out of order after offset ${last}`;
      break;
    }
    segment.index.add(first, header.lastOffset, pos, header.size, header.leaderEpoch);
    last = header.lastOffset;
    pos += header.size;
  }
  if (pos < size) {
    report.truncatedTails.push({
      file: path,
      segmentBaseOffset: baseOffset,
      position: pos,
      droppedBytes: size - pos,
      keptUpToOffset: Math.max(baseOffset, last + 1),
      reason: reason ?? 'short read',
    });
    await handle.truncate(pos);
  }
  // Whatever the previous run left in the page cache is made durable before it is reported as flushed.
  await handle.sync();
  segment.size = pos;
  segment.writtenSize = pos;
  return segment;
}
