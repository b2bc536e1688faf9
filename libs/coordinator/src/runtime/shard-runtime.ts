import { ErrorCode, KafkaError } from '@cohort/protocol';
import type { Clock, LogRecord, PartitionStore, TimerHandle } from '@cohort/replication';
import type { CoordinatorResult, WriteOutcome } from './coordinator-result';

interface PendingOp {
  records: LogRecord[];
  settled: boolean;
  onSettled: (outcome: WriteOutcome) => void;
  /** Writes without records that wait for this one (`awaitsPendingWrites`), told its outcome after it. */
  followers?: ((outcome: WriteOutcome) => void)[];
}

/** The writes of one drain, appended together. */
interface Batch {
  ops: PendingOp[];
  flushed: boolean;
  openedAt: number;
  /** Flushes the batch at the latest when its commit timeout runs out (a drain that never ended). */
  deadline: TimerHandle;
}

export interface ShardRuntimeHooks {
  onFailure(storeError: number, message: string): void;
  onCallbackError(error: unknown): void;
}

/**
 * The runtime of one `__consumer_offsets` partition in one leader epoch (Kafka's `CoordinatorRuntime`
 * context, coordinator-common `runtime/CoordinatorRuntime.java`). It is the only code that appends:
 *
 * - Batching: the first write of a turn of the event loop opens a batch and queues its flush behind
 *   the work already queued (Kafka's adaptive linger, `append.linger.ms = -1`); every write until then
 *   joins it. One turn is one `store.append`. The flush waits for the turn's other I/O callbacks
 *   (setImmediate), not only the current callback's microtasks: each socket's frame arrives in its own
 *   callback, so a microtask flush appended one batch per request, each with its own write and wait.
 * - Deferred responses: each write's completion waits until the high watermark passes its last record
 *   (so a batch's earlier writes may complete before its later ones, never the reverse); each
 *   completion is one synchronous step.
 * - Timeout: a write fails with REQUEST_TIMED_OUT if it is not committed `commitTimeoutMs` after its
 *   batch opened (Kafka's write-operation timeout), however late in that time the batch was flushed.
 * - Failure: a failed batch fails every write in it (Kafka's `failCurrentBatch`); closing the runtime
 *   (this node stopped leading the partition) fails every pending write with NOT_COORDINATOR at once.
 */
export class ShardRuntime {
  private readonly pending = new Set<PendingOp>();
  private batch: Batch | null = null;
  /** The write handed over last: a write without records that must wait for the pending ones waits for it. */
  private lastWritten: PendingOp | null = null;
  private closed = false;
  private appends = 0;

  constructor(
    private readonly store: PartitionStore,
    private readonly clock: Clock,
    readonly partition: number,
    readonly leaderEpoch: number,
    private readonly commitTimeoutMs: number,
    private readonly hooks: ShardRuntimeHooks,
  ) {}

  /**
   * Runs a handler's result: its records join the open batch, its `appendFuture` runs when they are
   * committed or failed, and the promise gives the response after it.
   */
  complete<T>(result: CoordinatorResult<T>): Promise<T | undefined> {
    if (result.records.length === 0 && result.unwritable === undefined) {
      const last = result.awaitsPendingWrites ? this.lastPending() : null;
      if (last === null) return Promise.resolve(result.response);
      return new Promise((resolve) => {
        (last.followers ??= []).push((outcome) =>
          resolve(outcome.ok || !result.onFailure ? result.response : result.onFailure(outcome)),
        );
      });
    }
    return new Promise((resolve) => {
      const onSettled = (outcome: WriteOutcome): void => {
        try {
          result.appendFuture?.(outcome);
        } finally {
          // The response leaves even if the appendFuture threw (the hook logs it): no reply is left hanging.
          resolve(outcome.ok || !result.onFailure ? result.response : result.onFailure(outcome));
        }
      };
      if (result.unwritable !== undefined)
        this.failBeforeAppend(ErrorCode.UNKNOWN_SERVER_ERROR, result.unwritable, onSettled);
      else this.write(result.records, onSettled);
    });
  }

  /** Appends `records` with the open batch; `onSettled` runs once they are committed or have failed. */
  write(records: LogRecord[], onSettled: (outcome: WriteOutcome) => void): void {
    const op: PendingOp = { records, settled: false, onSettled };
    this.pending.add(op);
    this.lastWritten = op;
    if (this.closed) {
      queueMicrotask(() => this.settle(op, notCoordinator('the shard is closed')));
      return;
    }
    if (this.batch === null) this.batch = this.open();
    this.batch.ops.push(op);
  }

  private open(): Batch {
    const batch: Batch = {
      ops: [],
      flushed: false,
      openedAt: this.clock.now(),
      deadline: this.clock.schedule(this.commitTimeoutMs, () => this.flush(batch)),
    };
    afterThisTurn(() => this.flush(batch));
    return batch;
  }

  /**
   * Reports a write that could not even be built (its records failed to encode) the way a refused append
   * is reported: asynchronously, through the same failure hook, so callers keep one completion path.
   */
  failBeforeAppend(storeError: number, message: string, onSettled: (outcome: WriteOutcome) => void): void {
    const op: PendingOp = { records: [], settled: false, onSettled };
    this.pending.add(op);
    queueMicrotask(() => this.settle(op, { ok: false, storeError, message }));
  }

  /**
   * The newest write not yet settled. Writes commit in the order they were handed over, so once it has
   * settled every earlier one has too (a failure fails its whole batch and the batches after it).
   */
  private lastPending(): PendingOp | null {
    if (this.lastWritten !== null && !this.lastWritten.settled) return this.lastWritten;
    let newest: PendingOp | null = null;
    for (const op of this.pending) newest = op;
    return newest;
  }

  get pendingWrites(): number {
    return this.pending.size;
  }

  /** How many batches were appended (each drain with writes is one). */
  get appendCount(): number {
    return this.appends;
  }

  close(): void {
    this.closed = true;
    this.batch?.deadline.cancel();
    this.batch = null;
    for (const op of [...this.pending]) this.settle(op, notCoordinator('this node no longer leads the partition'));
  }

  /** Kafka's `flushCurrentBatch`: one append for every write of the drain. */
  private flush(batch: Batch): void {
    if (batch.flushed) return;
    batch.flushed = true;
    batch.deadline.cancel();
    if (this.batch === batch) this.batch = null;
    const ops = batch.ops.filter((op) => !op.settled);
    if (ops.length === 0 || this.closed) return;
    const records = ops.length === 1 ? ops[0].records : ops.flatMap((op) => op.records);
    let appended: { baseOffset: number; lastOffset: number };
    try {
      appended = this.store.append(this.partition, this.leaderEpoch, records);
      this.appends++;
    } catch (error) {
      const outcome = failure(error);
      for (const op of ops) this.settle(op, outcome);
      return;
    }
    const timeoutMs = Math.max(0, batch.openedAt + this.commitTimeoutMs - this.clock.now());
    let base = appended.baseOffset;
    for (const op of ops) {
      const written: WriteOutcome = { ok: true, baseOffset: base, lastOffset: base + op.records.length - 1 };
      base += op.records.length;
      let committed: Promise<void>;
      try {
        committed = this.store.awaitCommit(this.partition, this.leaderEpoch, written.lastOffset, timeoutMs);
      } catch (error) {
        this.settle(op, failure(error));
        continue;
      }
      committed.then(
        () => this.settle(op, written),
        (error: unknown) => this.settle(op, failure(error)),
      );
    }
  }

  private settle(op: PendingOp, outcome: WriteOutcome): void {
    if (op.settled) return;
    op.settled = true;
    this.pending.delete(op);
    if (!outcome.ok) this.hooks.onFailure(outcome.storeError, outcome.message);
    try {
      op.onSettled(outcome);
    } catch (error) {
      // A bug in a completion must not become an unhandled rejection that takes the process down.
      this.hooks.onCallbackError(error);
    }
    if (op.followers) for (const follower of op.followers) follower(outcome);
  }
}

/**
 * Runs `task` once the I/O callbacks of this event-loop turn have run (Node's check phase) where there
 * is one, else after the current microtasks. Not a timer: it adds no wait beyond the turn. Every
 * shard's flush of one turn runs in one callback, in the order they were asked for, so the appends of
 * all partitions land before the microtasks they start: a parked follower fetch, woken by the first
 * append, then answers with every partition the turn wrote instead of the first one only.
 */
const turnTasks: Array<() => void> = [];
const schedule: (task: () => void) => void =
  typeof setImmediate === 'function' ? (task) => void setImmediate(task) : (task) => queueMicrotask(task);

function afterThisTurn(task: () => void): void {
  turnTasks.push(task);
  if (turnTasks.length === 1) schedule(runTurnTasks);
}

function runTurnTasks(): void {
  for (const task of turnTasks.splice(0)) {
    try {
      task();
    } catch (error) {
      // A bug stays as loud as it was with one callback per task, without keeping the others from running.
      queueMicrotask(() => {
        throw error;
      });
    }
  }
}

function failure(error: unknown): WriteOutcome {
  if (error instanceof KafkaError) return { ok: false, storeError: error.errorCode, message: error.message };
  return {
    ok: false,
    storeError: ErrorCode.UNKNOWN_SERVER_ERROR,
    message: error instanceof Error ? error.message : String(error),
  };
}

function notCoordinator(message: string): WriteOutcome {
  return { ok: false, storeError: ErrorCode.NOT_COORDINATOR, message };
}
