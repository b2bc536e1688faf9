import type { Clock, TimerHandle } from './clock';

interface Scheduled {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/**
 * Virtual time for unit tests and the simulator: nothing happens until `advance` is called, and timers
 * due at the same instant fire in the order they were scheduled, so runs are exactly repeatable.
 */
export class ManualClock implements Clock {
  private current: number;
  private seq = 0;
  private queue: Scheduled[] = [];

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  schedule(delayMs: number, fn: () => void): TimerHandle {
    let entry = this.enqueue(delayMs, fn);
    return {
      cancel: () => void (entry.cancelled = true),
      // As cancel + schedule: a new place in the (time, scheduling) order.
      reschedule: (nextMs) => {
        entry.cancelled = true;
        entry = this.enqueue(nextMs, fn);
      },
    };
  }

  private enqueue(delayMs: number, fn: () => void): Scheduled {
    const entry: Scheduled = { at: this.current + Math.max(0, delayMs), seq: this.seq++, fn, cancelled: false };
    this.queue.push(entry);
    return entry;
  }

  /** Moves time forward by `ms`, firing every timer that falls due, in (time, scheduling) order. */
  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const next = this.nextDue(target);
      if (!next) break;
      this.current = next.at;
      next.fn();
    }
    this.current = target;
  }

  /** Time of the next pending timer, or undefined when none is pending. */
  nextTimerAt(): number | undefined {
    this.queue = this.queue.filter((e) => !e.cancelled);
    let best: Scheduled | undefined;
    for (const e of this.queue) if (!best || e.at < best.at || (e.at === best.at && e.seq < best.seq)) best = e;
    return best?.at;
  }

  pendingTimers(): number {
    return this.queue.filter((e) => !e.cancelled).length;
  }

  private nextDue(target: number): Scheduled | undefined {
    let best: Scheduled | undefined;
    let bestIndex = -1;
    for (let i = 0; i < this.queue.length; i++) {
      const e = this.queue[i];
      if (e.cancelled || e.at > target) continue;
      if (!best || e.at < best.at || (e.at === best.at && e.seq < best.seq)) {
        best = e;
        bestIndex = i;
      }
    }
    if (bestIndex >= 0) this.queue.splice(bestIndex, 1);
    return best;
  }
}
