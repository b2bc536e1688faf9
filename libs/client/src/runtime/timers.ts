/**
 * Time as the member sees it, injected so the state machine runs under a fake clock in tests.
 * `now()` is wall time: every deadline is computed from it rather than from how often timers fired,
 * because browsers throttle timers in hidden tabs (see the README's "In a browser").
 */
export interface Timers {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  /** A number in [0, 1) for back-off jitter. */
  random(): number;
}

export const realTimers: Timers = {
  now: () => Date.now(),
  setTimeout: (callback, ms) => globalThis.setTimeout(callback, Math.max(0, Math.min(ms, 2_147_483_647))),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as ReturnType<typeof setTimeout>),
  random: () => Math.random(),
};
