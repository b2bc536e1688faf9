import { ErrorCode, KafkaError } from '@cohort/protocol';
import type { LogRecord, PartitionStore } from '@cohort/replication';

export type WriteResult =
  | { ok: true; baseOffset: number; lastOffset: number }
  | { ok: false; storeError: number; message: string };

interface PendingWrite {
  settled: boolean;
  onDone: (result: WriteResult) => void;
}

/**
 * The one writer of a shard's partition: appends a batch as leader in the shard's epoch and reports
 * back only when the batch is committed (below the high watermark) or has failed. Completions always
 * arrive asynchronously, each as one synchronous step, so callers re-check group state in the callback
 * exactly as Kafka's append callbacks do. Closing the shard fails every pending write with NOT_COORDINATOR.
 */
export class ShardWriter {
  private readonly pending = new Set<PendingWrite>();
  private closed = false;

  constructor(
    private readonly store: PartitionStore,
    readonly partition: number,
    readonly leaderEpoch: number,
    private readonly commitTimeoutMs: number,
    private readonly hooks: {
      onFailure(storeError: number, message: string): void;
      onCallbackError(error: unknown): void;
    },
  ) {}

  write(records: LogRecord[], onDone: (result: WriteResult) => void): void {
    const write: PendingWrite = { settled: false, onDone };
    this.pending.add(write);
    if (this.closed) {
      queueMicrotask(() => this.settle(write, notCoordinator('the shard is closed')));
      return;
    }
    let appended: { baseOffset: number; lastOffset: number };
    let committed: Promise<void>;
    try {
      appended = this.store.append(this.partition, this.leaderEpoch, records);
      committed = this.store.awaitCommit(this.partition, this.leaderEpoch, appended.lastOffset, this.commitTimeoutMs);
    } catch (error) {
      queueMicrotask(() => this.settle(write, failure(error)));
      return;
    }
    committed.then(
      () => this.settle(write, { ok: true, ...appended }),
      (error: unknown) => this.settle(write, failure(error)),
    );
  }

  /**
   * Reports a write that could not even be built (its records failed to encode) the way a refused append
   * is reported: asynchronously, through the same failure hook, so callers keep one completion path.
   */
  failBeforeAppend(storeError: number, message: string, onDone: (result: WriteResult) => void): void {
    const write: PendingWrite = { settled: false, onDone };
    this.pending.add(write);
    queueMicrotask(() => this.settle(write, { ok: false, storeError, message }));
  }

  get pendingWrites(): number {
    return this.pending.size;
  }

  close(): void {
    this.closed = true;
    for (const write of [...this.pending]) this.settle(write, notCoordinator('this node no longer leads the partition'));
  }

  private settle(write: PendingWrite, result: WriteResult): void {
    if (write.settled) return;
    write.settled = true;
    this.pending.delete(write);
    if (!result.ok) this.hooks.onFailure(result.storeError, result.message);
    try {
      write.onDone(result);
    } catch (error) {
      // A bug in a completion must not become an unhandled rejection that takes the process down.
      this.hooks.onCallbackError(error);
    }
  }
}

function failure(error: unknown): WriteResult {
  if (error instanceof KafkaError) return { ok: false, storeError: error.errorCode, message: error.message };
  return { ok: false, storeError: ErrorCode.UNKNOWN_SERVER_ERROR, message: error instanceof Error ? error.message : String(error) };
}

function notCoordinator(message: string): WriteResult {
  return { ok: false, storeError: ErrorCode.NOT_COORDINATOR, message };
}
