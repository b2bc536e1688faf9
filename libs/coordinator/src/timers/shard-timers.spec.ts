import { type Clock, ManualClock } from '@cohort/replication';
import { ShardTimers } from './shard-timers';

/** The same virtual clock without TimerHandle.reschedule: ShardTimers falls back to cancel + schedule. */
function withoutReschedule(clock: ManualClock): Clock {
  return { now: () => clock.now(), schedule: (delayMs, fn) => ({ cancel: clock.schedule(delayMs, fn).cancel }) };
}

/** Re-arms `session` with other keys armed around it; returns what fired, and when, in order. */
function rearmScenario(clockOf: (clock: ManualClock) => Clock): string[] {
  const clock = new ManualClock(0);
  const timers = new ShardTimers(clockOf(clock));
  const fired: string[] = [];
  const log = (what: string) => () => fired.push(`${what}@${clock.now()}`);
  timers.set('session', 100, log('session-1'));
  timers.set('join', 150, log('join'));
  clock.advance(50);
  // Re-armed to t=150, the instant 'join' (armed before it) and 'sync' (armed after it) are due.
  timers.set('session', 100, log('session-2'));
  timers.set('sync', 100, log('sync'));
  clock.advance(150);
  // Re-armed twice, the second time with another delay: only the last deadline counts.
  timers.set('session', 100, log('session-3'));
  timers.set('session', 30, log('session-4'));
  clock.advance(1000);
  expect(timers.size).toBe(0);
  return fired;
}

describe('ShardTimers.apply (the timer operations a handler returns)', () => {
  it('applies operations in order: a key scheduled twice fires once, with the later callback', () => {
    const clock = new ManualClock();
    const timers = new ShardTimers(clock);
    const fired: string[] = [];
    timers.apply([
      { op: 'schedule', key: 'session', delayMs: 100, run: () => fired.push('first') },
      { op: 'schedule', key: 'session', delayMs: 200, run: () => fired.push('second') },
    ]);
    clock.advance(150);
    expect(fired).toEqual([]);
    clock.advance(100);
    expect(fired).toEqual(['second']);
  });

  it('a cancel after a schedule of the same key leaves nothing armed', () => {
    const clock = new ManualClock();
    const timers = new ShardTimers(clock);
    const fired: string[] = [];
    timers.apply([
      { op: 'schedule', key: 'join', delayMs: 10, run: () => fired.push('join') },
      { op: 'cancel', key: 'join' },
    ]);
    clock.advance(1000);
    expect(fired).toEqual([]);
    expect(timers.size).toBe(0);
  });

  it('runs each firing through the shard step, so what the callback records is applied after it', () => {
    const clock = new ManualClock();
    const steps: string[] = [];
    const timers = new ShardTimers(clock, (fire) => {
      steps.push('step begins');
      fire();
      steps.push('step applies its effects');
    });
    timers.set('retention', 5, () => steps.push('callback'));
    clock.advance(5);
    expect(steps).toEqual(['step begins', 'callback', 'step applies its effects']);
  });

  it('a key re-armed before it fires fires once, at its last deadline, with its last callback, in the order a new timer would', () => {
    const fired = rearmScenario((clock) => clock);
    expect(fired).toEqual(['join@150', 'session-2@150', 'sync@150', 'session-4@230']);
    // Exactly what cancel + schedule gives (a clock without reschedule).
    expect(rearmScenario(withoutReschedule)).toEqual(fired);
  });

  it('a key that fired, or was cancelled, is armed afresh by its next schedule', () => {
    const clock = new ManualClock(0);
    const timers = new ShardTimers(clock);
    const fired: number[] = [];
    timers.set('session', 10, () => fired.push(clock.now()));
    clock.advance(10);
    timers.set('session', 10, () => fired.push(clock.now()));
    timers.cancel('session');
    timers.set('session', 30, () => fired.push(clock.now()));
    clock.advance(100);
    expect(fired).toEqual([10, 40]);
  });

  it('a callback that re-arms its own key while firing is armed again', () => {
    const clock = new ManualClock(0);
    const timers = new ShardTimers(clock);
    const fired: number[] = [];
    const tick = (): void => {
      fired.push(clock.now());
      if (fired.length < 3) timers.set('tick', 5, tick);
    };
    timers.set('tick', 5, tick);
    clock.advance(100);
    expect(fired).toEqual([5, 10, 15]);
  });
});
