import { mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { dirname } from 'node:path';
import { batchBelow, decodeBatch, encodeBatch, firstRecordOffset, readValidHeader } from '../batch-codec';
import { forgetCleanCloseIndex, openFromCleanCloseIndex } from './clean-close-index';
import { Segment } from './segment';
import {
  cleanedFileName,
  fsyncDirectory,
  ignoreMissing,
  inDir,
  parsePartitionFile,
  segmentFileName,
  swapFileName,
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
 * Damage that cuts records known to have been written: a batch fails its checks where a clean close
 * had listed more of the log, or where whole batches follow it (in its segment or in later ones). A
 * crash only tears the tail of what was being written, so this is corruption: cutting there loses
 * `[from, to)` (at least: offsets past `to` may have been lost with the damage).
 */
export interface LogDamage {
  directory: string;
  file: string;
  position: number;
  /** The first offset the cut removes: the log would end here. */
  from: number;
  /** The end of what is known to have been written past the damage. */
  to: number;
  reason: string;
}

/**
 * What to do with damage found on open: cut the log there (Kafka's recovery), or open nothing. It may
 * raise `to` with what it knows was written beyond the files (a journal).
 */
export type DamagePolicy = (damage: LogDamage) => 'truncate' | 'refuse';

/** A log recovery refused to cut known records (`DamagePolicy`): nothing was changed on disk. */
export class LogDamagedError extends Error {
  constructor(readonly damage: LogDamage) {
    super(
      `${damage.directory}: ${damage.reason} at position ${damage.position} of ${damage.file}; opening it would cut offsets ${damage.from}..${damage.to - 1}, which were written`,
    );
    this.name = 'LogDamagedError';
  }
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
  /** Damage that cut known records, when the policy let the cut happen. */
  damage?: LogDamage;
}

/**
 * Opens the segments of one partition directory after any kind of shutdown. After a clean close they
 * come from the index it left, unread (Kafka skips recovery after a clean shutdown too). Otherwise
 * this finishes interrupted compaction swaps, deletes incomplete compaction output, validates every batch (length, CRC,
 * increasing offsets), cuts each segment back to its last good batch and, like Kafka's LogLoader,
 * drops every segment after a damaged one so the log stays a gap-free prefix of what was written.
 *
 * Before anything is cut, damage that would lose records known to have been written (see LogDamage)
 * goes to `onDamage`; when it refuses, this throws LogDamagedError and leaves every file as it was.
 * Without a policy the cut is made (and reported in `damage`), as Kafka does.
 */
export async function recoverSegments(
  dir: string,
  onDamage: DamagePolicy = () => 'truncate',
): Promise<{ segments: Segment[]; report: RecoveryReport }> {
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
  const { closed: closedCleanly, listedEnd } = await openFromCleanCloseIndex(dir);
  if (closedCleanly) {
    report.fromCleanClose = true;
    summarize(report, closedCleanly.segments);
    // The cleaner's position only saves work: outside the log it is the log start (nothing cleaned yet).
    const cleaned = closedCleanly.firstDirtyOffset;
    if (Number.isSafeInteger(cleaned) && cleaned >= report.logStartOffset && cleaned <= report.logEndOffset)
      report.firstDirtyOffset = cleaned;
    return { segments: closedCleanly.segments, report };
  }

  // A finished swap loses nothing (it was complete and durable), and the segments must be read as it left them.
  let dirChanged = await finishInterruptedCompaction(dir, report);
  const scanned = await scanSegments(dir, listedEnd);
  // The policy sees every damage, a torn tail too (`to` = `from`): it may know more of what was written.
  if (scanned.damage && onDamage(scanned.damage) === 'refuse') {
    await Promise.all(scanned.loaded.map((l) => l.segment.handle?.close()));
    throw new LogDamagedError(scanned.damage);
  }
  if (scanned.damage && scanned.damage.to > scanned.damage.from) report.damage = scanned.damage;

  // From here segments change: an index the directory no longer matches must be gone first.
  await forgetCleanCloseIndex(dir);
  const segments: Segment[] = [];
  for (const { segment, tail, trimmed } of scanned.loaded) {
    if (tail) report.truncatedTails.push(tail);
    if (tail && trimmed) {
      await replaceWithTrimmed(dir, segment, tail.position - trimmed.length, trimmed);
      dirChanged = true;
    } else if (tail) {
      await segment.handle!.truncate(tail.position);
    }
    // Whatever the previous run left in the page cache is made durable before it is reported as flushed.
    await segment.handle!.sync();
    segments.push(segment);
  }
  for (const path of scanned.dropped) {
    report.removedFiles.push({ file: path, bytes: (await stat(path)).size, reason: 'follows a damaged segment' });
    await unlink(path);
    dirChanged = true;
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

interface Scan {
  /**
   * The segments up to the first damaged one, each with the tail to cut off, if any, and the batch to
   * write just before that cut (a batch an undone truncation had trimmed, trimmed again).
   */
  loaded: Array<{ segment: Segment; tail: TruncatedTail | undefined; trimmed?: Buffer }>;
  /** Segment files after the damaged one: dropped with the cut. */
  dropped: string[];
  damage: LogDamage | undefined;
}

/**
 * Reads and checks every segment, changing nothing: the segments up to the first damage, and what the
 * damage would cut.
 */
async function scanSegments(dir: string, listedEnd: number | undefined): Promise<Scan> {
  const files = (await readdir(dir))
    .map(parsePartitionFile)
    .filter((f): f is PartitionFile & { kind: 'segment' } => f?.kind === 'segment');
  files.sort((a, b) => a.baseOffset - b.baseOffset);
  const scan: Scan = { loaded: [], dropped: [], damage: undefined };
  let previousLast = -1;
  let writtenEnd = listedEnd ?? 0;
  for (const [i, file] of files.entries()) {
    const path = inDir(dir, file.name);
    if (scan.damage) {
      // A later segment: its whole batches are records the cut would drop.
      scan.dropped.push(path);
      writtenEnd = Math.max(writtenEnd, lastWholeBatchEnd(await readFile(path), 0, -1), file.baseOffset);
      continue;
    }
    const loaded = await loadSegment(path, file.baseOffset, previousLast, files[i + 1]?.baseOffset ?? Infinity);
    scan.loaded.push({ segment: loaded.segment, tail: loaded.tail, trimmed: loaded.trimmed });
    if (loaded.tail && !loaded.stale) {
      const tail = loaded.tail;
      writtenEnd = Math.max(writtenEnd, loaded.wholeBatchesAfterTail);
      scan.damage = {
        directory: dir,
        file: path,
        position: tail.position,
        from: tail.keptUpToOffset,
        to: tail.keptUpToOffset,
        reason: tail.reason,
      };
    }
    previousLast = loaded.segment.endOffset !== undefined ? loaded.segment.endOffset - 1 : previousLast;
  }
  if (scan.damage) scan.damage.to = Math.max(scan.damage.from, writtenEnd);
  return scan;
}

/**
 * Offset after the last whole batch found in `bytes` from `from` on, past any damage (each position is
 * tried for a batch header whose checksum holds, with offsets above `after`); -1 when there is none.
 */
function lastWholeBatchEnd(bytes: Buffer, from: number, after: number): number {
  let end = -1;
  let pos = from;
  while (pos < bytes.length) {
    const header = readValidHeader(bytes, pos);
    if (header && header.lastOffset > after && firstRecordOffset(bytes, pos, header) > after) {
      end = header.lastOffset + 1;
      after = header.lastOffset;
      pos += header.size;
    } else {
      pos++;
    }
  }
  return end;
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

/**
 * Rewrites `segment` as its first `keep` bytes and then `trimmed`, as compaction swaps a segment: a
 * new file, made durable, renamed to a `.swap` (a crash from here on finishes the swap on reopen),
 * then over the segment. Cutting the file in place first would lose the trimmed batch's records to a
 * crash before its rewrite was synced.
 */
async function replaceWithTrimmed(dir: string, segment: Segment, keep: number, trimmed: Buffer): Promise<void> {
  const head = Buffer.allocUnsafe(keep);
  if (keep > 0) await segment.handle!.read(head, 0, keep, 0);
  const cleanedPath = inDir(dir, cleanedFileName(segment.baseOffset));
  const swapPath = inDir(dir, swapFileName(segment.baseOffset, segment.endOffset!));
  const cleaned = await open(cleanedPath, 'w+');
  try {
    await cleaned.writev([head, trimmed]);
    await cleaned.sync();
  } finally {
    await cleaned.close();
  }
  await rename(cleanedPath, swapPath);
  await fsyncDirectory(dir);
  await segment.handle!.close();
  await rename(swapPath, segment.path);
  segment.handle = await open(segment.path, 'r+');
}

/**
 * Reads one segment and indexes its batches up to the first that fails a check; changes nothing.
 *
 * Records at or past `nextBase`, where the next segment starts, are stale (`stale`), not damage: the
 * log rolled that segment at its end, so a truncation had cut them first, and a crash undid that cut in
 * this file (the truncation had not reached its disk) but kept the newer file. They are cut off; a batch
 * that straddles `nextBase` is kept trimmed below it (`trimmed`, written before the cut), as the
 * truncation had kept it. Left in place, they would be read back in the log beside the newer records.
 */
async function loadSegment(
  path: string,
  baseOffset: number,
  previousLast: number,
  nextBase: number,
): Promise<{
  segment: Segment;
  tail: TruncatedTail | undefined;
  wholeBatchesAfterTail: number;
  stale: boolean;
  trimmed?: Buffer;
}> {
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
  let trimmed: Buffer | undefined;
  let stale = false;
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
    if (header.lastOffset >= nextBase) {
      stale = true;
      reason = `records from offset ${Math.max(first, nextBase)} on were truncated before the segment of offset ${nextBase} was created`;
      if (first < nextBase) {
        trimmed = encodeBatch(batchBelow(decodeBatch(bytes, pos, header), nextBase));
        segment.index.add(first, nextBase - 1, pos, trimmed.length, header.leaderEpoch);
        last = nextBase - 1;
      }
      break;
    }
    segment.index.add(first, header.lastOffset, pos, header.size, header.leaderEpoch);
    last = header.lastOffset;
    pos += header.size;
  }
  const kept = pos + (trimmed?.length ?? 0);
  segment.size = kept;
  segment.writtenSize = kept;
  if (pos >= size) return { segment, tail: undefined, wholeBatchesAfterTail: -1, stale: false };
  const keptUpToOffset = Math.max(baseOffset, last + 1);
  return {
    segment,
    tail: {
      file: path,
      segmentBaseOffset: baseOffset,
      position: kept,
      droppedBytes: size - kept,
      keptUpToOffset,
      reason: reason ?? 'short read',
    },
    wholeBatchesAfterTail: stale ? -1 : lastWholeBatchEnd(bytes.subarray(0, read), pos + 1, keptUpToOffset - 1),
    stale,
    trimmed,
  };
}
