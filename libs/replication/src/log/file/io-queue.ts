/**
 * One serial chain of file operations per log. Writes, truncations, segment creation and deletion,
 * fsyncs and compaction swaps run in the order they were asked for, so a truncation can never be
 * overtaken by an earlier write landing late.
 *
 * An operation that fails is kept, and so is every operation asked for after it: each fails at once
 * for its caller (with the error `toFailure` makes of the I/O error), and `resume()` runs them all
 * again, in order, once the storage may work again (a write to a full disk is written again, at the
 * same positions, once space is back). Operations are written to be run again: a write rewrites the
 * same bytes at the same positions, a truncation truncates to the same size, a deletion ignores a file
 * already gone. One that cannot be run twice (a compaction swap, `retriable: false`) breaks the queue
 * for good instead: the disk's state is then unknown and the log must be reopened.
 */
export class IoQueue {
  private tail: Promise<unknown> = Promise.resolve();
  /** Set while kept operations wait for `resume()`. */
  private fault: unknown;
  /** Set for good: every operation fails with it. */
  private broken: unknown;
  /** The operation that failed and those asked for since, to run again in this order. */
  private held: Array<() => Promise<unknown>> = [];

  /** `toFailure` turns an I/O error into what callers see (it is told of every failure, retries included). */
  constructor(private readonly toFailure: (error: unknown) => unknown) {}

  /** Whether an operation failed and operations are kept (or the queue is broken). */
  get failed(): boolean {
    return this.fault !== undefined || this.broken !== undefined;
  }

  /** Whether the queue failed for good (`resume` cannot help). */
  get isBroken(): boolean {
    return this.broken !== undefined;
  }

  run<T>(op: () => Promise<T>, options: { retriable?: boolean } = {}): Promise<T> {
    const result = this.tail.then(() => this.attempt(op, options.retriable ?? true));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /**
   * Runs the kept operations again, in order. Resolves once they are all done; rejects when one fails
   * again (it and those after it are kept again), or when the queue is broken.
   */
  resume(): Promise<void> {
    if (this.broken !== undefined) return Promise.reject(this.broken);
    this.fault = undefined;
    return this.run(() => Promise.resolve());
  }

  /** Gives up: the kept operations are dropped, and everything run from now on fails with `error`. */
  abandon(error: unknown): void {
    this.broken ??= error;
    this.held = [];
  }

  /** Resolves when every operation asked for so far has finished (successfully or not). */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }

  private async attempt<T>(op: () => Promise<T>, retriable: boolean): Promise<T> {
    if (this.broken !== undefined) throw this.broken;
    if (this.fault !== undefined) {
      if (!retriable) throw this.fault;
      this.held.push(op);
      throw this.fault;
    }
    while (this.held.length > 0) {
      try {
        await this.execute(this.held[0], true, true);
      } catch (error) {
        // Still failing: this operation waits behind the kept ones.
        if (this.broken === undefined && retriable) this.held.push(op);
        throw error;
      }
      this.held.shift();
    }
    return this.execute(op, retriable, false);
  }

  private async execute<T>(op: () => Promise<T>, retriable: boolean, kept: boolean): Promise<T> {
    try {
      return await op();
    } catch (error) {
      const failure = this.toFailure(error);
      if (!retriable) {
        this.abandon(failure);
        throw failure;
      }
      if (this.broken !== undefined) throw this.broken;
      if (!kept) this.held.push(op);
      this.fault = failure;
      throw failure;
    }
  }
}
