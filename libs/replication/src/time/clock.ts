/**
 * Time port. Everything in libs/replication and libs/coordinator reads time and schedules work only
 * through a Clock, so the same code runs under wall-clock time in the app and virtual time in tests
 * and the simulator (docs/architecture.md, the rules of the house).
 */
export interface TimerHandle {
  cancel(): void;
  /**
   * Moves a timer that has not fired to `delayMs` from now, with the same callback: exactly what
   * cancel() and a new schedule() would do (it fires at the same instant and, among timers due then,
   * in the same order), without a new timer. Optional: callers fall back to cancel + schedule.
   */
  reschedule?(delayMs: number): void;
}

export interface Clock {
  /** Milliseconds since the Unix epoch (virtual in simulations). */
  now(): number;
  /** Runs `fn` once after `delayMs` (>= 0). */
  schedule(delayMs: number, fn: () => void): TimerHandle;
}
