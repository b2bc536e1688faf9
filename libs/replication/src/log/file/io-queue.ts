/**
 * One serial chain of file operations per log. Writes, truncations, segment creation and deletion,
 * fsyncs and compaction swaps run in the order they were asked for, so a truncation can never be
 * overtaken by an earlier write landing late. After the first failure the queue refuses everything:
 * the disk's state is unknown and the log must be reopened.
 */
export class IoQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private failure: unknown;

  constructor(private readonly onFailure: (error: unknown) => void) {}

  get failed(): boolean {
    return this.failure !== undefined;
  }

  run<T>(op: () => Promise<T>): Promise<T> {
    const result = this.tail.then(() => {
      if (this.failure !== undefined) throw this.failure;
      return op();
    });
    this.tail = result.catch((error: unknown) => {
      if (this.failure === undefined) {
        this.failure = error;
        this.onFailure(error);
      }
    });
    return result;
  }

  /** Resolves when every operation asked for so far has finished (successfully or not). */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
