import { Backoff, resolveRetry } from './backoff';

describe('Backoff (KIP-580)', () => {
  it('doubles from the initial wait up to the maximum, with ±jitter around each step (testCoordinatorDiscoveryExponentialBackoff)', () => {
    const draws = [0, 1, 0.5, 0.5, 0.5, 0.5];
    const backoff = new Backoff(resolveRetry({ initialMs: 10, maxMs: 100, multiplier: 2, jitter: 0.2 }), {
      random: () => draws.shift() ?? 0.5,
    });
    expect([backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next(), backoff.next()]).toEqual([
      8, 24, 40, 80, 100, 100,
    ]);
    backoff.reset();
    expect(backoff.next()).toBe(10);
  });

  it('is a constant maximum when the initial wait is not below it', () => {
    const backoff = new Backoff(resolveRetry({ initialMs: 500, maxMs: 200 }), { random: () => 0.9 });
    expect([backoff.next(), backoff.next()]).toEqual([200, 200]);
  });

  it('rejects options that make no sense', () => {
    expect(() => resolveRetry({ multiplier: 0.5 })).toThrow(RangeError);
    expect(() => resolveRetry({ initialMs: -1 })).toThrow(RangeError);
    expect(() => resolveRetry({ jitter: 2 })).toThrow(RangeError);
    expect(resolveRetry({ initialMs: undefined })).toEqual({ initialMs: 100, maxMs: 1000, multiplier: 2, jitter: 0.2 });
  });
});
