import { isCaughtUp, newRemoteReplica, resetForNewEpoch, updateFetchState } from './remote-replica';

describe('remote replica state', () => {
  it('a fetch at the leader LEO makes the follower caught up at that time', () => {
    const r = newRemoteReplica(1);
    updateFetchState(r, 10, 0, 1_000, 10, 7);
    expect(r).toMatchObject({ leo: 10, lastCaughtUpTimeMs: 1_000, lastFetchLeaderLogEndOffset: 10, nodeEpoch: 7 });
  });

  it('KAFKA-4485: a follower always one small produce behind still counts as caught up at its previous fetch', () => {
    const r = newRemoteReplica(1);
    updateFetchState(r, 10, 0, 1_000, 11, 7); // behind by one
    expect(r.lastCaughtUpTimeMs).toBe(0);
    updateFetchState(r, 11, 0, 1_050, 12, 7); // reached what the leader had at the previous fetch
    expect(r.lastCaughtUpTimeMs).toBe(1_000);
    expect(isCaughtUp(r, 12, 5_000, 10_000)).toBe(true);
    expect(isCaughtUp(r, 12, 20_000, 10_000)).toBe(false);
  });

  it('a new leader forgets follower positions; a re-elected one keeps them from its epoch start', () => {
    const r = newRemoteReplica(1);
    updateFetchState(r, 10, 0, 1_000, 10, 7);
    resetForNewEpoch(r, true, true, 2_000, 12);
    expect(r).toMatchObject({ leo: 10, nodeEpoch: 7, lastFetchLeaderLogEndOffset: 12, lastCaughtUpTimeMs: 2_000 });
    resetForNewEpoch(r, false, false, 3_000, 12);
    expect(r).toMatchObject({ leo: -1, nodeEpoch: -1, lastCaughtUpTimeMs: 0 });
  });
});
