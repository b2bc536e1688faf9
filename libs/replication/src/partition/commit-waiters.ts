import { KafkaError, type ErrorName } from '@cohort/protocol';
import type { Clock, TimerHandle } from '../time/clock';

interface Waiter {
  leaderEpoch: number;
  requiredOffset: number;
  resolve: () => void;
  reject: (e: KafkaError) => void;
  timer: TimerHandle;
}

/**
 * Kafka's DelayedProduce purgatory for one partition: acks=all appends waiting for the HW. Each waiter
 * belongs to the leader epoch it was appended in; it completes only when the HW passes its offset in
 * that same epoch (I26, KAFKA-20634) — leaving the epoch fails it first, so a later HW can never
 * complete it.
 */
export class CommitWaiters {
  private waiters: Waiter[] = [];

  constructor(private readonly clock: Clock) {}

  get size(): number {
    return this.waiters.length;
  }

  /** Waits until `complete(epoch, hw)` reports `hw >= requiredOffset`, or `timeoutMs` passes. */
  wait(leaderEpoch: number, requiredOffset: number, timeoutMs: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const waiter: Waiter = {
        leaderEpoch,
        requiredOffset,
        resolve,
        reject,
        timer: this.clock.schedule(timeoutMs, () => {
          this.remove(waiter);
          reject(KafkaError.of('REQUEST_TIMED_OUT', `not committed within ${timeoutMs} ms; the outcome is unknown`));
        }),
      };
      // Keep offset order (callers usually wait in append order, so this scans from the end briefly).
      let i = this.waiters.length;
      while (i > 0 && this.waiters[i - 1].requiredOffset > requiredOffset) i--;
      this.waiters.splice(i, 0, waiter);
    });
  }

  /**
   * The HW is now `hw` in `leaderEpoch`: completes the waiters of that epoch it passed — with success
   * when the maximal ISR still meets the minimum, else NOT_ENOUGH_REPLICAS_AFTER_APPEND (the record is
   * committed, but with fewer replicas than asked for).
   */
  complete(leaderEpoch: number, hw: number, enoughReplicas: boolean): void {
    // Waiters are kept in offset order and all belong to the current epoch, so the completed ones are a prefix.
    let n = 0;
    while (
      n < this.waiters.length &&
      this.waiters[n].leaderEpoch === leaderEpoch &&
      hw >= this.waiters[n].requiredOffset
    )
      n++;
    if (n === 0) return;
    const done = this.waiters.splice(0, n);
    for (const w of done) {
      w.timer.cancel();
      if (enoughReplicas) w.resolve();
      else
        w.reject(
          KafkaError.of('NOT_ENOUGH_REPLICAS_AFTER_APPEND', 'committed, but the ISR fell below MIN_INSYNC_REPLICAS'),
        );
    }
  }

  /** Fails every waiter (of any epoch other than `keepEpoch`) — on leadership loss or an epoch change. */
  failAll(error: ErrorName, message: string, keepEpoch?: number): void {
    const failed = this.waiters.filter((w) => w.leaderEpoch !== keepEpoch);
    this.waiters = this.waiters.filter((w) => w.leaderEpoch === keepEpoch);
    for (const w of failed) {
      w.timer.cancel();
      w.reject(KafkaError.of(error, message));
    }
  }

  private remove(w: Waiter): void {
    const i = this.waiters.indexOf(w);
    if (i >= 0) this.waiters.splice(i, 1);
  }
}
