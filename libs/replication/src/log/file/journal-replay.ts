import { KafkaError } from '@cohort/protocol';
import { firstRecordOffset, readValidHeader } from '../batch-codec';
import type { JournalEntry } from './journal-entries';

/** What a log must offer its journal: what replay needs, and a way to make its own files durable. */
export interface JournaledLog {
  readonly dir: string;
  readonly logStartOffset: number;
  readonly logEndOffset: number;
  /** Whether the log holds a batch that starts at `offset` and is exactly `frame`. */
  holdsFrameAt(offset: number, frame: Buffer): boolean;
  truncateTo(offset: number): void;
  /** Appends a frame the journal holds at the log end, with the offsets and epoch it was written with. */
  appendFrame(frame: Buffer): void;
  /** Writes and fsyncs everything appended to the log so far into its own segment files. */
  checkpointFiles(): Promise<void>;
}

/**
 * Replay of one batch entry: the log must hold `frame` at the frame's first offset. Kept ('kept') when
 * it does; otherwise the log is cut there and the frame appended again ('redone'). A frame past the
 * log end means records in between are gone from both the log and the journal.
 *
 * Unless a later truncation of this log (`laterCut`, the lowest offset one cuts to) takes the whole
 * frame back and the log with it to where it now ends or below ('cut later'): the frame was never
 * acknowledged, and the file may already hold that truncation (it reached the disk before the crash),
 * and even what was written after it in a newer epoch. Redoing the frame then would either find a hole
 * that is no loss, or append an older epoch after a newer one; the later truncation is replayed anyway.
 */
export function redoBatch(log: JournaledLog, frame: Buffer, laterCut: number): 'kept' | 'redone' | 'cut later' {
  const first = firstOffsetOf(frame);
  if (first < log.logStartOffset) return 'kept';
  const end = log.logEndOffset;
  if (first < end && log.holdsFrameAt(first, frame)) return 'kept';
  if (laterCut <= Math.min(first, end)) return 'cut later';
  if (first < end) log.truncateTo(first);
  if (first !== log.logEndOffset) {
    throw KafkaError.of(
      'KAFKA_STORAGE_ERROR',
      `the journal of ${log.dir} continues at offset ${first} but the log ends at ${log.logEndOffset}: records in between are lost`,
    );
  }
  log.appendFrame(frame);
  return 'redone';
}

/**
 * For each entry, the lowest offset a later truncation of the same log cuts to (Infinity when none
 * follows): a batch at or past it is cut again by the time replay ends.
 */
export function laterCuts(entries: readonly JournalEntry[]): number[] {
  const lowest = new Map<number, number>();
  const cuts = new Array<number>(entries.length);
  for (let i = entries.length - 1; i >= 0; i--) {
    const entry = entries[i];
    cuts[i] = lowest.get(entry.logId) ?? Infinity;
    if (entry.kind === 'truncate' && entry.offset < cuts[i]) lowest.set(entry.logId, entry.offset);
  }
  return cuts;
}

/**
 * How far replaying `entries` would take log `logId` if it ended at `logEnd`: the offset it would end
 * at, or -1 when a hole stops it first. The log is taken to hold the frames below its end as written
 * (they lie before the damage that cut it), so it tells whether the journal puts back what a cut removes.
 */
export function replayReach(entries: readonly JournalEntry[], logId: number, logEnd: number): number {
  const cuts = laterCuts(entries);
  let end = logEnd;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry.logId !== logId) continue;
    if (entry.kind === 'truncate') {
      end = Math.min(end, entry.offset);
      continue;
    }
    const first = firstOffsetOf(entry.frame);
    if (cuts[i] <= Math.min(first, end)) continue; // cut again later, as redoBatch skips it
    if (first > end) return -1;
    end = Math.max(end, readValidHeader(entry.frame, 0)!.lastOffset + 1);
  }
  return end;
}

/**
 * The end of the last batch `entries` hold for log `logId` (-1 when none): written, since journaled.
 * A later truncation of the log takes back what it cut (those records were never acknowledged, and
 * replay cuts them again), so a batch counts only up to the lowest offset a later truncation cuts to.
 */
export function journaledEnd(entries: readonly JournalEntry[], logId: number): number {
  const cuts = laterCuts(entries);
  let end = -1;
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i];
    if (entry.logId === logId && entry.kind === 'batch')
      end = Math.max(end, Math.min(readValidHeader(entry.frame, 0)!.lastOffset + 1, cuts[i]));
  }
  return end;
}

/** The first record's offset of a frame the journal's decoding accepted. */
export function firstOffsetOf(frame: Buffer): number {
  return firstRecordOffset(frame, 0, readValidHeader(frame, 0)!);
}
