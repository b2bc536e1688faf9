import { ManualClock } from '../time/manual-clock';
import { LogCleaner } from './log-cleaner';
import { MemoryLog } from './memory-log';
import { flatten, rec } from '@cohort/replication/testing';

const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('LogCleaner', () => {
  it('compacts a registered log below its HW on the clock once the dirty ratio reaches the threshold', async () => {
    const clock = new ManualClock();
    const cleaned: string[] = [];
    const cleaner = new LogCleaner({
      clock,
      checkIntervalMs: 1_000,
      minCleanableDirtyRatio: 0.5,
      onCleaned: (name) => cleaned.push(name),
    });
    const log = new MemoryLog();
    let hw = 0;
    cleaner.register('p0', log, () => hw);
    cleaner.start();
    for (let i = 0; i < 10; i++) log.appendAsLeader([rec('k', `v${i}`)], 0);
    clock.advance(1_000);
    await settle();
    expect(cleaned).toEqual([]);

    hw = 8;
    clock.advance(1_000);
    await settle();
    await settle();
    expect(cleaned).toEqual(['p0']);
    expect(flatten(log.read(0, Number.MAX_SAFE_INTEGER, 100)).map(([o]) => o)).toEqual([7, 8, 9]);

    // Below the new HW, offset 7 was cleaned before and 8 is new: a dirty ratio of 0.5 meets the threshold.
    hw = 9;
    clock.advance(1_000);
    await settle();
    await settle();
    expect(cleaned).toEqual(['p0', 'p0']);
    await cleaner.stop();
    expect(clock.pendingTimers()).toBe(0);
  });

  it('keeps going when one log fails, reporting the error', async () => {
    const clock = new ManualClock();
    const errors: string[] = [];
    const cleaner = new LogCleaner({ clock, onError: (name) => errors.push(name) });
    const broken = new MemoryLog();
    broken.appendAsLeader([rec('k', '1')], 0);
    await broken.flush();
    broken.failDisk();
    const healthy = new MemoryLog();
    healthy.appendAsLeader([rec('k', '1')], 0);
    healthy.appendAsLeader([rec('k', '2')], 0);
    cleaner.register('broken', broken, () => 1);
    cleaner.register('healthy', healthy, () => 2);
    expect(await cleaner.runOnce(true)).toBe(1);
    expect(errors).toEqual(['broken']);
    expect(flatten(healthy.read(0, 10, 10))).toEqual([[1, 'k', '2']]);
  });
});
