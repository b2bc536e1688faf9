import type { Clock, TimerHandle } from '@cohort/replication';

interface Event {
  at: number;
  seq: number;
  fn: () => void;
  cancelled: boolean;
}

/** Lets every pending promise continuation run (microtasks drain before the check phase). */
export function drainMicrotasks(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * The simulator's clock: virtual time and a queue of events ordered by (time, scheduling order). After
 * each event the promise continuations it caused are drained before the next event runs, so async
 * code (transport replies, store calls, flushes) interleaves exactly the same way on every run of a
 * seed. Nothing runs between `run` calls.
 */
export class SimScheduler implements Clock {
  private current: number;
  private seq = 0;
  private heap: Event[] = [];
  /** Events executed so far (for reports and step limits). */
  steps = 0;
  private sameInstantSteps = 0;
  /** A livelock guard: this many events at one virtual instant means time can no longer advance. */
  maxStepsPerInstant = 50_000;
  /** One driver at a time: two loops popping events would interleave oddly and skip checks. */
  private driving = false;

  constructor(start = 1_700_000_000_000) {
    this.current = start;
  }

  now(): number {
    return this.current;
  }

  schedule(delayMs: number, fn: () => void): TimerHandle {
    let e = this.enqueue(delayMs, fn);
    return {
      cancel: () => void (e.cancelled = true),
      // As cancel + schedule: a new place in the (time, scheduling) order.
      reschedule: (nextMs) => {
        e.cancelled = true;
        e = this.enqueue(nextMs, fn);
      },
    };
  }

  private enqueue(delayMs: number, fn: () => void): Event {
    const e: Event = { at: this.current + Math.max(0, delayMs), seq: this.seq++, fn, cancelled: false };
    this.push(e);
    return e;
  }

  /**
   * Runs events up to `now + ms` (then sets the time there). `afterEach` runs after every event and its
   * continuations — the simulator checks invariants there.
   */
  async run(ms: number, afterEach?: () => void): Promise<void> {
    const target = this.current + ms;
    this.enter();
    try {
      await drainMicrotasks();
      for (;;) {
        const e = this.peek();
        if (!e || e.at > target) break;
        this.pop();
        if (e.cancelled) continue;
        this.advanceTo(e.at);
        e.fn();
        await drainMicrotasks();
        afterEach?.();
      }
      this.current = Math.max(this.current, target);
    } finally {
      this.driving = false;
    }
  }

  private enter(): void {
    if (this.driving) throw new Error('the simulation clock is already being run by another caller');
    this.driving = true;
  }

  /** Runs until `predicate` holds (checked after every event) or `maxMs` of virtual time pass. */
  async runUntil(predicate: () => boolean, maxMs: number, afterEach?: () => void): Promise<boolean> {
    this.enter();
    try {
      return await this.runUntilInner(predicate, maxMs, afterEach);
    } finally {
      this.driving = false;
    }
  }

  private async runUntilInner(predicate: () => boolean, maxMs: number, afterEach?: () => void): Promise<boolean> {
    const deadline = this.current + maxMs;
    await drainMicrotasks();
    if (predicate()) return true;
    for (;;) {
      const e = this.peek();
      if (!e || e.at > deadline) {
        this.current = Math.max(this.current, deadline);
        return predicate();
      }
      this.pop();
      if (e.cancelled) continue;
      this.advanceTo(e.at);
      e.fn();
      await drainMicrotasks();
      afterEach?.();
      if (predicate()) return true;
    }
  }

  private advanceTo(at: number): void {
    this.sameInstantSteps = at === this.current ? this.sameInstantSteps + 1 : 0;
    if (this.sameInstantSteps > this.maxStepsPerInstant) {
      throw new Error(
        `livelock: more than ${this.maxStepsPerInstant} events at virtual time ${at} without time advancing`,
      );
    }
    this.current = at;
    this.steps++;
  }

  private less(a: Event, b: Event): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private peek(): Event | undefined {
    return this.heap[0];
  }

  private push(e: Event): void {
    const h = this.heap;
    h.push(e);
    let i = h.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.less(h[i], h[parent])) break;
      [h[i], h[parent]] = [h[parent], h[i]];
      i = parent;
    }
  }

  private pop(): Event | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l], h[m])) m = l;
        if (r < h.length && this.less(h[r], h[m])) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m], h[i]];
        i = m;
      }
    }
    return top;
  }
}
