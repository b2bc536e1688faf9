import type { FetchResponse } from '../transport/messages';
import type { TaskScope } from './task-scope';

interface Parked {
  partitions: number[];
  complete: () => void;
}

/**
 * Kafka's DelayedFetch for follower fetches with nothing to return yet: parked up to `maxWaitMs`, woken
 * by an append to (or a role change of) any partition it asks for. On completion it is re-read without
 * updating follower state (the state was updated when it arrived).
 */
export class FetchPurgatory {
  private readonly byPartition = new Map<number, Set<Parked>>();
  /** Parked fetches woken since the last drain; they are answered together once the current step's microtasks run. */
  private readonly woken = new Set<Parked>();

  constructor(private readonly scope: TaskScope) {}

  park(partitions: number[], maxWaitMs: number, reread: () => FetchResponse): Promise<FetchResponse> {
    return new Promise((resolve) => {
      let done = false;
      const parked: Parked = {
        partitions,
        complete: () => {
          if (done) return;
          done = true;
          timer.cancel();
          for (const p of partitions) this.byPartition.get(p)?.delete(parked);
          resolve(reread());
        },
      };
      const timer = this.scope.schedule(maxWaitMs, parked.complete);
      for (const p of partitions) {
        let set = this.byPartition.get(p);
        if (!set) this.byPartition.set(p, (set = new Set()));
        set.add(parked);
      }
    });
  }

  /**
   * Answers the fetches parked on `partition` after the current synchronous step, not inside it: the
   * coordinator appends to many partitions in one step (one flush per turn), and a fetch answered at
   * the first append would carry that partition alone, leaving the rest for another round trip.
   */
  wake(partition: number): void {
    const set = this.byPartition.get(partition);
    if (!set || set.size === 0) return;
    const first = this.woken.size === 0;
    for (const parked of set) this.woken.add(parked);
    if (first) queueMicrotask(() => this.answerWoken());
  }

  private answerWoken(): void {
    const woken = [...this.woken];
    this.woken.clear();
    // A closed scope answers nothing, as its cancelled timers do not.
    if (this.scope.closed) return;
    for (const parked of woken) parked.complete();
  }

  wakeAll(): void {
    for (const p of [...this.byPartition.keys()]) this.wake(p);
  }
}
