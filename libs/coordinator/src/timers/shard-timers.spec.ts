import { ManualClock } from '@cohort/replication';
import { ShardTimers } from './shard-timers';

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
});
