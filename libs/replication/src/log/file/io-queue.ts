/**
 * One serial chain of file operations per log. Writes, truncations, segment creation and deletion,
 * fsyncs and compaction swaps run in the order they were asked for, so a truncation can never be
 * overtaken by an earlier write landing late. After the first failure the queue refuses everything
 * with the same error: the disk's state is unknown and the log must be reopened.
 */
export class IoQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private failure: unknown;

  /** `toFailure` turns the first I/O error into what every caller sees from then on. */
  constructor(private readonly toFailure: (error: unknown) => unknown) {}

  get failed(): boolean {
    return this.failure !== undefined;
  }

  run<T>(op: () => Promise<T>): Promise<T> {
    const result = this.tail.then(async () => {
      if (this.failure !== undefined) throw this.failure;
      try {
        return await op();
      } catch (error) {
        this.failure ??= this.toFailure(error);
        throw this.failure;
      }
    });
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** Resolves when every operation asked for so far has finished (successfully or not). */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
