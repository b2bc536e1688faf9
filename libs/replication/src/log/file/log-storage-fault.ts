import { KafkaError } from '@cohort/protocol';
import type { IoQueue } from './io-queue';
import type { Segment } from './segment';

/** What a FileLog lends the keeper of its storage fault. */
export interface LogStorageFaultContext {
  dir: string;
  io: () => IoQueue;
  segments: () => Segment[];
  closed: () => boolean;
  /** Told once per fault (see FileLogOptions.onFault). */
  onFault?: (fault: KafkaError, cause: unknown) => void;
}

/**
 * A FileLog's storage fault: an I/O error (no space, EIO) fails the log until `heal()` — appends throw
 * and flushes reject with the one error it became, and the owner is told once — and a heal writes
 * again what never reached the files, then takes appends again.
 */
export class LogStorageFault {
  /** Set while the storage is failed: appends and flushes fail with it until `heal()` (see IoQueue). */
  private fault: KafkaError | undefined;
  /** A heal() is under way: a failure then is the same fault going on, not a new one to report. */
  private healing = false;
  private healAttempt: Promise<void> | undefined;

  constructor(private readonly ctx: LogStorageFaultContext) {}

  /** The storage error appends fail with until `heal()` succeeds; undefined while the log is writable. */
  get current(): KafkaError | undefined {
    return this.fault;
  }

  /**
   * After a storage fault: writes again what never reached the files (at the same positions, so a
   * partial write is overwritten) and runs every file operation held since, then takes appends again.
   * Rejects, the log still failed, when the storage still fails; a failure that cannot be retried
   * (a compaction swap cut short) keeps the log failed until it is reopened.
   */
  heal(): Promise<void> {
    // One attempt at a time: a second caller shares it rather than see the fault cleared under way.
    this.healAttempt ??= this.attemptHeal().finally(() => (this.healAttempt = undefined));
    return this.healAttempt;
  }

  private async attemptHeal(): Promise<void> {
    const { ctx } = this;
    if (ctx.closed()) throw KafkaError.of('KAFKA_STORAGE_ERROR', `log ${ctx.dir} is closed`);
    const fault = this.fault;
    if (!fault) return;
    const io = ctx.io();
    if (io.isBroken) throw fault;
    // The held write and the writes queued behind it take their chunks again.
    for (const s of ctx.segments()) for (const c of s.pending) c.issued = false;
    this.fault = undefined;
    this.healing = true;
    try {
      await io.resume();
    } catch (error) {
      throw this.fail(error);
    } finally {
      this.healing = false;
    }
  }

  /**
   * An I/O error fails the log until `heal()`: appends throw and flushes reject with the returned error,
   * and the owner is told once. A closing log does not wait for its storage: it gives up at once.
   */
  fail(error: unknown): KafkaError {
    if (error instanceof KafkaError && error === this.fault) return error;
    const message = error instanceof Error ? error.message : String(error);
    const first = this.fault === undefined;
    this.fault ??= KafkaError.of('KAFKA_STORAGE_ERROR', `log ${this.ctx.dir} failed: ${message}`);
    if (this.ctx.closed()) this.ctx.io().abandon(this.fault);
    else if (first && !this.healing) this.report(this.fault, error);
    return this.fault;
  }

  private report(fault: KafkaError, cause: unknown): void {
    try {
      this.ctx.onFault?.(fault, cause);
    } catch {
      // the owner's bookkeeping must not change how the log fails
    }
  }
}
