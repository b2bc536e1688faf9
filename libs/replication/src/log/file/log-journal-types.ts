import type { KafkaError } from '@cohort/protocol';

// The options, reports and handles of the shared write-ahead journal (log-journal.ts).

export interface LogJournalOptions {
  /** A journal file is retired once it holds this much (default 32 MiB): what a crash makes the next start replay at most, about. */
  maxFileBytes?: number;
  /** After each fdatasync of the journal: how long the write and the sync took, and how many bytes they made durable. */
  onSync?: (durationMs: number, bytes: number) => void;
  /**
   * A write or fdatasync of the journal failed (no space, EIO): called once per fault, with the error
   * syncs now fail with and the I/O error itself. The failed write waits for `heal()`.
   */
  onFault?: (fault: KafkaError, cause: unknown) => void;
}

export const DEFAULT_JOURNAL_FILE_BYTES = 32 * 1024 * 1024;

/** What replaying the journal did, for the operator's log after an unclean stop. */
export interface JournalRecoveryReport {
  directory: string;
  files: number;
  entries: number;
  /** Batches the logs already held, byte for byte. */
  batchesKept: number;
  /** Batches written back into a log whose file had lost them (or held something else there). */
  batchesRedone: number;
  /**
   * Batches past the log's end that a later truncation of the log cuts anyway (the truncation reached
   * the log's file before the crash): not written back.
   */
  batchesCutLater: number;
  truncationsRedone: number;
  /** Bytes after the last whole entry: a write that a crash tore, never synced, so never acknowledged. */
  tornBytes: number;
  /** Entries of logs that were not replayed: refused (`skip`), or past a hole in a log that was cut (`cut`). */
  entriesSkipped: number;
}

export interface JournalRecoverOptions {
  /** Logs not opened (refused as damaged): their entries are left out instead of failing the replay. */
  skip?: ReadonlySet<number>;
  /**
   * Logs that recovery cut where records known to be written were damaged, as the operator allowed:
   * replay goes on as far as it can from the cut and stops at the first hole, instead of failing.
   */
  cut?: ReadonlySet<number>;
}

/** One log's handle on the journal. */
export interface JournalChannel {
  append(frame: Buffer): void;
  /**
   * Queues a truncation entry. False when nothing was queued (the journal is replaying, which a
   * checkpoint makes durable, or the log detached): then nothing needs to wait for its sync.
   */
  truncate(offset: number): boolean;
  /** Resolves once everything this channel (or any other) journaled before the call is on stable storage. */
  sync(): Promise<void>;
  /** The log closed: `clean` when its own files hold everything it journaled (checkpointed). */
  detach(clean: boolean): void;
}

/** One file of the journal: its sequence number (files are replayed in order) and path. */
export interface JournalFile {
  seq: number;
  path: string;
}
