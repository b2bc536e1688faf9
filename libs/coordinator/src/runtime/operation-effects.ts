import type { TimerOp } from '../timers/timer-op';
import type { CoordinatorResult } from './coordinator-result';

/**
 * What one synchronous step of a shard (a request, a timer firing, a write completing) asks for besides
 * its own response: timers to schedule or cancel, and the writes its phase completions started (an
 * Empty group's metadata, a server-computed assignment). The rebalance code records them here instead
 * of touching the timers or the runtime; the handler's result carries them out (`attachTo`), and the
 * shard applies them in one place (`CoordinatorShard.run`), in the order they were asked for.
 */
export class OperationEffects {
  private timerOps: TimerOp[] = [];
  private writes: CoordinatorResult<never>[] = [];

  schedule(key: string, delayMs: number, run: () => void): void {
    this.timerOps.push({ op: 'schedule', key, delayMs, run });
  }

  cancel(key: string): void {
    this.timerOps.push({ op: 'cancel', key });
  }

  /** A write nobody waits on; it joins the runtime's batch when the step's result is run. */
  write(result: CoordinatorResult<never>): void {
    this.writes.push(result);
  }

  get isEmpty(): boolean {
    return this.timerOps.length === 0 && this.writes.length === 0;
  }

  /** `result` with everything recorded so far added to its timers and follow-up writes. */
  attachTo<T>(result: CoordinatorResult<T>): CoordinatorResult<T> {
    if (this.isEmpty) return result;
    const { timers, followUps } = this.take();
    // Handlers build a fresh result per request: it is completed in place (a copy per request is
    // garbage on the commit path); only the shared frozen results are copied.
    const target = Object.isFrozen(result) ? { ...result } : result;
    target.timers = result.timers ? result.timers.concat(timers) : timers;
    if (followUps.length > 0) target.followUps = result.followUps ? result.followUps.concat(followUps) : followUps;
    return target;
  }

  /** Everything recorded so far, as a result of its own; the buffer is left empty. */
  take(): CoordinatorResult<never> & { timers: TimerOp[]; followUps: CoordinatorResult<never>[] } {
    const taken = { records: [], timers: this.timerOps, followUps: this.writes };
    this.timerOps = [];
    this.writes = [];
    return taken;
  }

  discard(): void {
    this.timerOps = [];
    this.writes = [];
  }
}
