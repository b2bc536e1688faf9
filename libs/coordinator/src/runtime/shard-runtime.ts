import { ErrorCode, KafkaError } from '@cohort/protocol';
import type { Clock, LogRecord, PartitionStore, TimerHandle } from '@cohort/replication';
import type { CoordinatorResult, WriteOutcome } from './coordinator-result';

type FailedWrite = Extract<WriteOutcome, { ok: false }>;
type WrittenAt = Extract<WriteOutcome, { ok: true }>;

interface PendingOp {
  records: LogRecord[];
  /** The log's verdict is known and `onSettled` has run. */
  settled: boolean;
  onSettled: (outcome: WriteOutcome) => void;
  /**
   * What a timeout does: `answer` (given: the reply leaves with the timeout; the verdict is still
   * awaited), `wait` (the reply too waits for the verdict) or `settle` (Kafka's `replayRecords =
   * false`: the write is settled with the timeout, as it was before the log decided).
   */
  onTimeout: ((outcome: FailedWrite) => void) | 'wait' | 'settle';
  /** The timeout the write was answered with while its verdict is awaited (the outcome is unknown). */
  unknown?: FailedWrite;
  /** Where the write landed, once appended. */
  written?: WrittenAt;
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
 * - Deferred responses: a batch's writes complete together, once the high watermark passes the batch's
 *   last record (the log commits a prefix, and Kafka's runtime completes a batch's deferred events
 *   together); each completion is one synchronous step.
 * - Timeout: a write is answered with REQUEST_TIMED_OUT if it is not committed `commitTimeoutMs` after
 *   its batch opened (Kafka's write-operation timeout), however late in that time the batch was flushed.
 *   Its records are in the log and may still commit, so, as in Kafka (which does not revert on a
 *   timeout), what they changed stays and their completion waits for the log's verdict: the commit
 *   (the high watermark passed them, or a later write) or a failure (the records are lost). Memory is
 *   thus always what a replay of the log gives, and a later write that commits never loses the state it
 *   was computed from. Only a `replayRecords = false` write (classic group metadata) is settled by the
 *   timeout, as Kafka's appendFuture is. NOT_ENOUGH_REPLICAS_AFTER_APPEND means the records are
 *   committed with fewer replicas than asked: they are answered with it and applied as committed.
 * - Failure: a failed batch fails every write in it (Kafka's `failCurrentBatch`); closing the runtime
 *   (this node stopped leading the partition) fails every pending write with NOT_COORDINATOR at once.
 * - Order: a commit settles every earlier write first (the log commits a prefix), so completions apply
 *   in log order even when a timed-out write's verdict arrives after a later one's.
 */
export class ShardRuntime {
  private readonly pending = new Set<PendingOp>();
  /**
   * Appended writes awaiting the log's verdict, in log order, from `appendedHead` on: a commit moves the
   * head instead of splicing the front off, which moved every later write once per commit (a burst of
   * 20,000 writes then spent seconds copying this array).
   */
  private appended: PendingOp[] = [];
  private appendedHead = 0;
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
      // The common case (nothing written, nothing pending) allocates no reply function.
      if (last === null) return Promise.resolve(result.response);
      const reply = replyOf(result);
      // It read the state of a write whose outcome is unknown: so is its own.
      if (last.unknown) return Promise.resolve(reply(last.unknown));
      return new Promise((resolve) => {
        (last.followers ??= []).push((outcome) => resolve(reply(outcome)));
      });
    }
    const reply = replyOf(result);
    return new Promise((resolve) => {
      const onSettled = (outcome: WriteOutcome): void => {
        try {
          result.appendFuture?.(outcome);
        } finally {
          // The response leaves even if the appendFuture threw (the hook logs it): no reply is left hanging.
          resolve(reply(outcome));
        }
      };
      // Without `onFailure` the reply is the appendFuture's to give (parked replies): it waits for the verdict.
      const onTimeout =
        result.replayRecords === false
          ? 'settle'
          : result.onFailure
            ? (outcome: FailedWrite) => resolve(reply(outcome))
            : 'wait';
      if (result.unwritable !== undefined)
        this.failBeforeAppend(ErrorCode.UNKNOWN_SERVER_ERROR, result.unwritable, onSettled);
      else this.write(result.records, onSettled, onTimeout);
    });
  }

  /**
   * Appends `records` with the open batch; `onSettled` runs once they are committed or have failed.
   * `onTimeout` is what a timeout does (see `PendingOp`): by default nothing, the write waits for the verdict.
   */
  write(
    records: LogRecord[],
    onSettled: (outcome: WriteOutcome) => void,
    onTimeout: PendingOp['onTimeout'] = 'wait',
  ): void {
    const op: PendingOp = { records, settled: false, onSettled, onTimeout };
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
    const op: PendingOp = { records: [], settled: false, onSettled, onTimeout: 'wait' };
    this.pending.add(op);
    queueMicrotask(() => this.settle(op, { ok: false, storeError, message }));
  }

  /**
   * The newest write not yet settled. Writes commit in the order they were handed over, so once it has
   * settled every earlier one has too (a failure fails its whole batch and the batches after it, a
   * commit settles every earlier write).
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
    this.appended = [];
    this.appendedHead = 0;
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
      op.written = { ok: true, baseOffset: base, lastOffset: base + op.records.length - 1 };
      base += op.records.length;
      this.appended.push(op);
    }
    this.awaitCommit(ops, timeoutMs);
  }

  /**
   * Waits for the high watermark to pass the last record of `ops` (writes appended together, in log
   * order); a timeout answers them and waits on. One wait for all of them, as Kafka's runtime completes
   * a batch's deferred writes together: the log commits a prefix, so its last record committed is every
   * record committed. A wait per write was a waiter, a timer and three promises per heartbeat of a
   * burst, each kept until its commit.
   */
  private awaitCommit(ops: PendingOp[], timeoutMs: number): void {
    const last = ops[ops.length - 1];
    let committed: Promise<void>;
    try {
      committed = this.store.awaitCommit(this.partition, this.leaderEpoch, last.written!.lastOffset, timeoutMs);
    } catch (error) {
      const outcome = failure(error);
      for (const op of ops) this.failAppended(op, outcome);
      return;
    }
    committed.then(
      () => this.committedThrough(last),
      (error: unknown) => this.onCommitError(ops, failure(error)),
    );
  }

  private onCommitError(ops: PendingOp[], outcome: FailedWrite): void {
    const open = ops.filter((op) => !op.settled);
    if (open.length === 0) return;
    if (outcome.storeError === ErrorCode.REQUEST_TIMED_OUT) {
      for (const op of open) {
        if (op.onTimeout === 'settle') this.failAppended(op, outcome);
        else if (!op.unknown) this.answerUnknown(op, outcome);
      }
      // Waited on synchronously, before any other I/O can fail or truncate the log under it.
      const waiting = open.filter((op) => !op.settled);
      if (waiting.length > 0) this.awaitCommit(waiting, this.commitTimeoutMs);
      return;
    }
    if (outcome.storeError === ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND) {
      for (const op of open) if (!op.unknown && op.onTimeout !== 'settle') this.answerUnknown(op, outcome);
      this.committedThrough(open[open.length - 1]);
      return;
    }
    for (const op of open) this.failAppended(op, outcome);
  }

  /** The write timed out: its reply (and its followers') leaves with the timeout; its verdict is still awaited. */
  private answerUnknown(op: PendingOp, outcome: FailedWrite): void {
    op.unknown = outcome;
    this.hooks.onFailure(outcome.storeError, outcome.message);
    try {
      if (typeof op.onTimeout === 'function') op.onTimeout(outcome);
    } catch (error) {
      this.hooks.onCallbackError(error);
    }
    this.tellFollowers(op, outcome);
  }

  /** `op` is committed, so is every write before it in the log: each is settled, in log order. */
  private committedThrough(op: PendingOp): void {
    const index = this.appended.indexOf(op, this.appendedHead);
    if (index < 0) return;
    const done = this.appended.slice(this.appendedHead, index + 1);
    this.appendedHead = index + 1;
    // The settled front is dropped once it is most of the array, so the copy is paid once per half.
    if (this.appendedHead * 2 >= this.appended.length) {
      this.appended = this.appended.slice(this.appendedHead);
      this.appendedHead = 0;
    }
    for (const settled of done) this.settle(settled, settled.written!);
  }

  private failAppended(op: PendingOp, outcome: FailedWrite): void {
    const index = this.appended.indexOf(op, this.appendedHead);
    if (index >= 0) this.appended.splice(index, 1);
    this.settle(op, outcome);
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
    this.tellFollowers(op, outcome);
  }

  private tellFollowers(op: PendingOp, outcome: WriteOutcome): void {
    const followers = op.followers;
    if (!followers) return;
    op.followers = undefined;
    for (const follower of followers) follower(outcome);
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

function failure(error: unknown): FailedWrite {
  if (error instanceof KafkaError) return { ok: false, storeError: error.errorCode, message: error.message };
  return {
    ok: false,
    storeError: ErrorCode.UNKNOWN_SERVER_ERROR,
    message: error instanceof Error ? error.message : String(error),
  };
}

function notCoordinator(message: string): FailedWrite {
  return { ok: false, storeError: ErrorCode.NOT_COORDINATOR, message };
}

/** The response a result gives once its write (or the writes it waited for) has the outcome `outcome`. */
function replyOf<T>(result: CoordinatorResult<T>): (outcome: WriteOutcome) => T | undefined {
  return (outcome) => (outcome.ok || !result.onFailure ? result.response : result.onFailure(outcome));
}
