import type { Clock, TimerHandle } from './clock';

/** The wall-clock adapter: the only place in the libraries allowed to touch Date.now and setTimeout. */
export class RealClock implements Clock {
  now(): number {
    return Date.now();
  }

  schedule(delayMs: number, fn: () => void): TimerHandle {
    let durationMs = Math.max(0, delayMs);
    let timer = setTimeout(fn, durationMs);
    // Timers must never keep a shutting-down process alive.
    timer.unref?.();
    return {
      cancel: () => clearTimeout(timer),
      reschedule: (nextMs) => {
        const next = Math.max(0, nextMs);
        // A session re-armed with the same timeout (every heartbeat) restarts the same Timeout in place.
        if (next === durationMs && typeof timer.refresh === 'function') {
          timer.refresh();
          return;
        }
        clearTimeout(timer);
        durationMs = next;
        timer = setTimeout(fn, durationMs);
        timer.unref?.();
      },
    };
  }
}
