import { FakeTimers } from '@cohort/client/testing';
import { HeartbeatLoop } from './heartbeat-loop';

describe('HeartbeatLoop', () => {
  it('beats every interval, counted from when the last beat was sent', async () => {
    const timers = new FakeTimers();
    const sent: number[] = [];
    const start = timers.now();
    const loop = new HeartbeatLoop(timers, 1000, async () => void sent.push(timers.now() - start));
    loop.start();
    await timers.advance(3500);
    expect(sent).toEqual([1000, 2000, 3000]);
    loop.stop();
    await timers.advance(5000);
    expect(sent).toHaveLength(3);
  });

  it('a throttled timer that fires late sends at once, and the next beat is one interval after that (hidden browser tabs)', async () => {
    // Timers that fire only on whole minutes, as Chrome's intensive throttling does.
    const timers = new FakeTimers();
    const start = timers.now();
    const throttled = {
      now: () => timers.now(),
      random: () => 0.5,
      clearTimeout: (h: unknown) => timers.clearTimeout(h),
      setTimeout: (callback: () => void, ms: number) =>
        timers.setTimeout(callback, Math.ceil((timers.now() - start + ms) / 60_000) * 60_000 - (timers.now() - start)),
    };
    const sent: number[] = [];
    const loop = new HeartbeatLoop(throttled, 3000, async () => void sent.push(timers.now() - start));
    loop.start();
    await timers.advance(60_000);
    expect(sent).toEqual([60_000]);
    // Any task the page gets (a socket message, visibilitychange) pokes it: an overdue beat goes out then.
    await timers.advance(5000);
    loop.poke();
    await timers.advance(0);
    expect(sent).toEqual([60_000, 65_000]);
    loop.poke(); // not due yet: nothing
    await timers.advance(0);
    expect(sent).toHaveLength(2);
    loop.stop();
  });

  it('uses the delay a failed beat asks for (back-off), counted from its answer', async () => {
    const timers = new FakeTimers();
    const start = timers.now();
    const sent: number[] = [];
    const loop = new HeartbeatLoop(timers, 1000, async () => {
      sent.push(timers.now() - start);
      return sent.length === 1 ? 200 : undefined;
    });
    loop.start();
    await timers.advance(2500);
    expect(sent).toEqual([1000, 1200, 2200]);
    loop.stop();
  });
});
