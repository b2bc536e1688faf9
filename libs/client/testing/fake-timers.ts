import type { Timers } from '@cohort/client/runtime/timers';

interface Scheduled {
  at: number;
  seq: number;
  callback: () => void;
}

/** Lets promise chains and socket callbacks run to completion (a few macrotask turns of the real loop). */
export async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/**
 * Virtual time for the member's unit tests: nothing fires until `advance` moves the clock, and then
 * timers fire in due order, with the member's async work drained between them.
 */
export class FakeTimers implements Timers {
  private time = 1_000_000;
  private seq = 0;
  private readonly queue = new Set<Scheduled>();

  constructor(private readonly randomValue = 0.5) {}

  now(): number {
    return this.time;
  }

  setTimeout(callback: () => void, ms: number): unknown {
    const entry: Scheduled = { at: this.time + Math.max(0, ms), seq: this.seq++, callback };
    this.queue.add(entry);
    return entry;
  }

  clearTimeout(handle: unknown): void {
    this.queue.delete(handle as Scheduled);
  }

  random(): number {
    return this.randomValue;
  }

  /** Delays of the timers pending now, soonest first. */
  pending(): number[] {
    return [...this.queue].map((t) => t.at - this.time).sort((a, b) => a - b);
  }

  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    await flush();
    for (;;) {
      const next = [...this.queue].filter((t) => t.at <= end).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!next) break;
      this.queue.delete(next);
      this.time = next.at;
      next.callback();
      await flush();
    }
    this.time = end;
    await flush();
  }

  /** Advances in steps until `condition` holds (at most `limitMs` of virtual time). */
  async until(condition: () => boolean, limitMs = 120_000, stepMs = 50): Promise<void> {
    for (let waited = 0; !condition(); waited += stepMs) {
      if (waited >= limitMs) throw new Error(`condition not met within ${limitMs} ms of virtual time`);
      await this.advance(stepMs);
    }
  }
}
