import type { KafkaError } from '@cohort/protocol';
import type { LogJournal } from './log-journal';
import type { DamagePolicy } from './log-recovery';

/** How a FileLog is opened (`FileLog.open`). */
export interface FileLogOptions {
  /** The active segment is rolled once an append would take it past this size (default 16 MiB). */
  segmentBytes?: number;
  /**
   * Make appends durable through this shared journal instead of fsyncing the segment files (see
   * LogJournal), under `journalId` (stable across restarts). The journal must be recovered before
   * the log is appended to.
   */
  journal?: { journal: LogJournal; journalId: number };
  /**
   * The log's storage failed (an I/O error: no space, EIO): called once per fault, with the error
   * appends and flushes now fail with and the I/O error itself. The log is then read-only until `heal()`.
   */
  onFault?: (fault: KafkaError, cause: unknown) => void;
  /**
   * What opening does with damage that would cut records known to have been written (a corrupt
   * segment, not a torn tail): cut it (the default, as Kafka does) or refuse, when `open` rejects with
   * LogDamagedError and changes nothing.
   */
  onDamage?: DamagePolicy;
}

export const DEFAULT_SEGMENT_BYTES = 16 * 1024 * 1024;
