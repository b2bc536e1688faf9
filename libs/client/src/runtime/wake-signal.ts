import type { Timers } from './timers';

/** Resolves after `ms` on `timers`, or as soon as `wake` fires (the member is stopping, or has news). */
export function sleep(timers: Timers, ms: number, wake?: WakeSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    let unsubscribe = (): void => undefined;
    const handle = timers.setTimeout(() => {
      unsubscribe();
      resolve();
    }, ms);
    if (wake) {
      unsubscribe = wake.subscribe(() => {
        timers.clearTimeout(handle);
        resolve();
      });
    }
  });
}

/** Wakes whoever sleeps on it; each sleeper is woken once and then forgotten. */
export class WakeSignal {
  private readonly sleepers = new Set<() => void>();

  subscribe(callback: () => void): () => void {
    this.sleepers.add(callback);
    return () => this.sleepers.delete(callback);
  }

  /** Resolves at the next `fire()`. */
  next(): Promise<void> {
    return new Promise((resolve) => {
      const unsubscribe = this.subscribe(() => {
        unsubscribe();
        resolve();
      });
    });
  }

  fire(): void {
    const sleepers = [...this.sleepers];
    this.sleepers.clear();
    for (const sleeper of sleepers) sleeper();
  }
}

/** Resolves when `work` settles (however it ends) or after `ms`, whichever comes first. */
export async function waitAtMost(timers: Timers, ms: number, work: Promise<unknown>): Promise<void> {
  const done = new WakeSignal();
  void work.then(
    () => done.fire(),
    () => done.fire(),
  );
  await sleep(timers, ms, done);
}
