// The share-groups bench's ratios to Redis come from these rounds: a side run out of turn, a lead-in
// counted as a round, or a ratio paired across rounds would favour one side without showing it.
import { interleavedRounds, medianRatio, middle, roundOrder } from './interleaved-rounds';

describe('roundOrder', () => {
  it('goes forward in even rounds and back in odd ones', () => {
    expect(roundOrder(4, 0)).toEqual([0, 1, 2, 3]);
    expect(roundOrder(4, 1)).toEqual([3, 2, 1, 0]);
    expect(roundOrder(2, 2)).toEqual([0, 1]);
  });
});

describe('interleavedRounds', () => {
  it('warms every side up, then runs each every round after its preparation and lead-in, and keeps only the measured runs', async () => {
    const calls: string[] = [];
    const side = (name: string) => ({
      prepare: async () => {
        calls.push(`${name} prepare`);
      },
      run: async (ms: number) => {
        calls.push(`${name} ${ms}`);
        return { perSecond: ms };
      },
    });
    const results = await interleavedRounds([side('a'), side('b')], {
      warmUpMs: 50,
      rounds: 2,
      roundMs: 100,
      leadInMs: 7,
    });
    expect(calls).toEqual([
      'a prepare',
      'a 50',
      'b prepare',
      'b 50',
      'a prepare',
      'a 7',
      'a 100',
      'b prepare',
      'b 7',
      'b 100',
      'b prepare',
      'b 7',
      'b 100',
      'a prepare',
      'a 7',
      'a 100',
    ]);
    expect(results).toEqual([
      [{ perSecond: 100 }, { perSecond: 100 }],
      [{ perSecond: 100 }, { perSecond: 100 }],
    ]);
  });
});

describe('medianRatio', () => {
  it('pairs the rounds, so a slow spell that hit both sides of a round cancels out', () => {
    // Rounds 3 and 4 ran slower for both sides, and round 2 slowed Cohort's side alone: every other
    // round says 0.5, the ratio of the medians (37.5 / 95) would not.
    const cohort = [50, 5, 30, 45];
    const redis = [100, 100, 60, 90];
    expect(medianRatio(cohort, redis)).toBe(0.5);
    expect(middle(cohort) / middle(redis)).toBeCloseTo(0.39, 2);
    expect(medianRatio([40, 60, 10], [100, 100, 100])).toBe(0.4);
  });

  it('refuses sides of different round counts', () => {
    expect(() => medianRatio([1, 2], [1])).toThrow('one figure per round');
  });
});

describe('middle', () => {
  it('takes the middle figure, or the mean of the two middle ones', () => {
    expect(middle([3, 1, 2])).toBe(2);
    expect(middle([4, 1, 3, 2])).toBe(2.5);
    expect(Number.isNaN(middle([]))).toBe(true);
  });
});
