import type { KafkaError } from '@cohort/protocol';

// The journal's calls to its owner's callbacks (LogJournalOptions), which must never change how it works.

/** The owner's bookkeeping must not change how the journal fails. */
export function reportFault(
  onFault: ((fault: KafkaError, cause: unknown) => void) | undefined,
  fault: KafkaError,
  cause: unknown,
): void {
  try {
    onFault?.(fault, cause);
  } catch {
    // ignored
  }
}

/** A metrics callback that throws must not fail the journal. */
export function reportSync(
  onSync: ((durationMs: number, bytes: number) => void) | undefined,
  durationMs: number,
  bytes: number,
): void {
  try {
    onSync?.(durationMs, bytes);
  } catch {
    // ignored: the sync itself succeeded
  }
}
