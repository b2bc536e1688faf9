/**
 * Group commit: at most one sync runs at a time, and every caller that asks while one is running
 * shares the single next sync (its writes may have come after the running sync began, so it cannot
 * ride on that one). N concurrent callers cost at most two syncs instead of N.
 */
export class GroupCommit {
  private running = false;
  private waiters: Array<{ resolve: () => void; reject: (e: unknown) => void }> = [];

  constructor(private readonly sync: () => Promise<void>) {}

  request(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      if (!this.running) this.runNext();
    });
  }

  /** Whether a sync is running or waiting to run. */
  get busy(): boolean {
    return this.running || this.waiters.length > 0;
  }

  private runNext(): void {
    const batch = this.waiters;
    this.waiters = [];
    if (batch.length === 0) return;
    this.running = true;
    let syncing: Promise<void>;
    try {
      syncing = this.sync();
    } catch (e) {
      syncing = Promise.reject(e);
    }
    syncing.then(
      () => this.finish(batch, (w) => w.resolve()),
      (e: unknown) => this.finish(batch, (w) => w.reject(e)),
    );
  }

  private finish(
    batch: Array<{ resolve: () => void; reject: (e: unknown) => void }>,
    settle: (w: (typeof batch)[0]) => void,
  ): void {
    this.running = false;
    for (const w of batch) settle(w);
    this.runNext();
  }
}
