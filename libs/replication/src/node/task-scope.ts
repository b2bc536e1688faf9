import type { Clock, TimerHandle } from '../time/clock';

/**
 * The timers of one node incarnation. Closing the scope (stop or simulated crash) cancels every timer
 * and turns later scheduling into no-ops, so nothing of a dead incarnation runs again; async code checks
 * `closed` after each await for the same reason.
 */
export class TaskScope {
  private readonly timers = new Set<TimerHandle>();
  private _closed = false;

  constructor(readonly clock: Clock) {}

  get closed(): boolean {
    return this._closed;
  }

  schedule(delayMs: number, fn: () => void): TimerHandle {
    if (this._closed) return { cancel: () => undefined };
    const handle: TimerHandle = this.clock.schedule(delayMs, () => {
      this.timers.delete(handle);
      if (!this._closed) fn();
    });
    this.timers.add(handle);
    return {
      cancel: () => {
        handle.cancel();
        this.timers.delete(handle);
      },
    };
  }

  /** Runs `fn` every `periodMs` (first run after one period) until the scope closes. */
  every(periodMs: number, fn: () => void): void {
    const tick = () => {
      fn();
      this.schedule(periodMs, tick);
    };
    this.schedule(periodMs, tick);
  }

  /** Resolves after `delayMs` (never, once the scope is closed: the awaiting code is dead anyway). */
  sleep(delayMs: number): Promise<void> {
    return new Promise((resolve) => this.schedule(delayMs, resolve));
  }

  close(): void {
    this._closed = true;
    for (const t of this.timers) t.cancel();
    this.timers.clear();
  }
}
