import { RealClock } from './real-clock';

describe('RealClock timers (under jest fake timers)', () => {
  beforeEach(() => jest.useFakeTimers({ now: 0 }));
  afterEach(() => jest.useRealTimers());

  it('reschedule moves a pending timer to the new deadline, with the same delay or another one', () => {
    const clock = new RealClock();
    const fired: number[] = [];
    const same = clock.schedule(100, () => fired.push(Date.now()));
    jest.advanceTimersByTime(60);
    same.reschedule!(100);
    jest.advanceTimersByTime(60);
    expect(fired).toEqual([]);
    jest.advanceTimersByTime(40);
    expect(fired).toEqual([160]);
    const other = clock.schedule(100, () => fired.push(Date.now()));
    other.reschedule!(30);
    jest.advanceTimersByTime(1000);
    expect(fired).toEqual([160, 190]);
  });

  it('a rescheduled timer can still be cancelled', () => {
    const clock = new RealClock();
    const fired: number[] = [];
    const handle = clock.schedule(100, () => fired.push(Date.now()));
    handle.reschedule!(100);
    handle.reschedule!(50);
    handle.cancel();
    jest.advanceTimersByTime(1000);
    expect(fired).toEqual([]);
  });
});
