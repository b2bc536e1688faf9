/**
 * One serial chain of file operations per log. Writes, truncations, segment creation and deletion,
 * fsyncs and compaction swaps run in the order they were asked for, so a truncation can never be
 * overtaken by an earlier write landing late. After the first failure the queue refuses everything
 * with the same error: the disk's state is unknown and the log must be reopened.
 */
export class IoQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private failure: unknown;
  /** Operations asked for and not finished that a write must not overtake (all but `{ writesMayPass }` ones). */
  private barriers = 0;

  /** `toFailure` turns the first I/O error into what every caller sees from then on. */
  constructor(private readonly toFailure: (error: unknown) => unknown) {}

  get failed(): boolean {
    return this.failure !== undefined;
  }

  /**
   * Whether a write may be done now, outside the queue: nothing has failed and every operation asked
   * for and not finished was run with `writesMayPass` (an fsync: a positioned write of later bytes
   * beside it changes nothing it covers). A truncation, a segment being opened or deleted, or a
   * compaction swap still queued would otherwise be overtaken.
   */
  get writesMayGoNow(): boolean {
    return this.failure === undefined && this.barriers === 0;
  }

  /** An error of a write done outside the queue fails the queue as if it had happened inside. */
  failWith(error: unknown): unknown {
    this.failure ??= this.toFailure(error);
    return this.failure;
  }

  run<T>(op: () => Promise<T>, options: { writesMayPass?: boolean } = {}): Promise<T> {
    const barrier = options.writesMayPass !== true;
    if (barrier) this.barriers++;
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
    if (barrier) void this.tail.then(() => this.barriers--);
    return result;
  }

  /** Resolves when every operation asked for so far has finished (successfully or not). */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
