import type { Timers } from '../runtime/timers';

/**
 * Auto-commit every `intervalMs` while the member is stable (Kafka's auto.commit.interval.ms), re-armed
 * at every assignment; the next interval counts from the end of the previous commit, so a slow commit
 * never overlaps the next one.
 */
export class AutoCommitTimer {
  private timer: unknown = null;

  constructor(
    private readonly timers: Timers,
    private readonly intervalMs: number | null,
    /** Commits what is marked; resolves when done, whatever the outcome. Returns false to stop re-arming. */
    private readonly commit: (deadlineMs: number) => Promise<boolean>,
  ) {}

  schedule(): void {
    if (this.intervalMs === null) return;
    const interval = this.intervalMs;
    this.stop();
    this.timer = this.timers.setTimeout(() => {
      this.timer = null;
      void this.commit(this.timers.now() + interval).then((again) => {
        if (again) this.schedule();
      });
    }, interval);
  }

  stop(): void {
    if (this.timer !== null) this.timers.clearTimeout(this.timer);
    this.timer = null;
  }
}
