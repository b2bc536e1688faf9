import { InMemoryCheckpointStorage } from '../storage/in-memory-checkpoint-storage';
import { LeaderEpochCache } from './leader-epoch-cache';
import { truncationPoint } from './truncation-point';

function cacheOf(entries: Array<[number, number]>): LeaderEpochCache {
  const c = new LeaderEpochCache(new InMemoryCheckpointStorage(), 'x');
  for (const [e, s] of entries) c.assign(e, s);
  return c;
}

describe('truncationPoint: epochs decide, never the HW', () => {
  it('KIP-279: a follower with epochs the leader never saw converges in two iterations', () => {
    const leader = cacheOf([
      [0, 0],
      [2, 3],
      [4, 8],
    ]);
    const follower = cacheOf([
      [0, 0],
      [3, 5],
    ]);
    let leo = 9;
    const first = truncationPoint(leader.endOffsetFor(3, 9), (e) => follower.endOffsetFor(e, leo), leo, leo);
    expect(first).toEqual({ offset: 5, iterate: true });
    follower.truncateFromEnd(5);
    leo = 5;
    const second = truncationPoint(
      leader.endOffsetFor(follower.latestEpoch(), 9),
      (e) => follower.endOffsetFor(e, leo),
      leo,
      leo,
    );
    expect(second).toEqual({ offset: 3, iterate: false });
  });

  it("KIP-101 case 1: a follower whose epoch the leader still leads keeps everything up to the leader's end", () => {
    const own = cacheOf([[0, 0]]);
    expect(truncationPoint({ epoch: 0, endOffset: 2 }, (e) => own.endOffsetFor(e, 2), 2, 2)).toEqual({
      offset: 2,
      iterate: false,
    });
  });

  it("KIP-101 case 2: the leader's next epoch started earlier, so the follower cuts its divergent tail", () => {
    const own = cacheOf([[0, 0]]);
    expect(truncationPoint({ epoch: 0, endOffset: 1 }, (e) => own.endOffsetFor(e, 2), 2, 2)).toEqual({
      offset: 1,
      iterate: false,
    });
  });

  it('falls back to the fetch offset only when the leader has no epoch information', () => {
    const own = cacheOf([[0, 0]]);
    expect(truncationPoint({ epoch: -1, endOffset: -1 }, (e) => own.endOffsetFor(e, 9), 9, 7)).toEqual({
      offset: 7,
      iterate: false,
    });
  });
});
