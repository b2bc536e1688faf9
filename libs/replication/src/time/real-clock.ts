import type { Clock, TimerHandle } from './clock';

/** The wall-clock adapter: the only place in the libraries allowed to touch Date.now and setTimeout. */
export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  schedule(delayMs: number, fn: () => void): TimerHandle {
    const timer = setTimeout(fn, Math.max(0, delayMs));
    // Timers must never keep a shutting-down process alive.
    timer.unref?.();
    return { cancel: () => clearTimeout(timer) };
  }
}
