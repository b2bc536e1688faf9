import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/**
 * A parked JoinGroup/SyncGroup reply waits for the group's write, but never longer than the write's own
 * time limit: a group write is Kafka's `replayRecords = false`, so the commit timeout settles it with
 * REQUEST_TIMED_OUT, which the sync phase answers as Kafka's `storeGroup` does (REBALANCE_IN_PROGRESS:
 * rejoin), and a lost leadership answers NOT_COORDINATOR at once. No reply is left for a verdict that
 * never comes, and none stays parked afterwards.
 */
describe('parked SyncGroup replies when the group write gets no verdict', () => {
  let h: CoordinatorHarness;

  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
  });

  const assignment = (leader: string, follower: string) => [
    { memberId: leader, assignment: { partitions: [{ topic: 'orders', partitions: [0, 1] }] } },
    { memberId: follower, assignment: { partitions: [{ topic: 'orders', partitions: [2, 3] }] } },
  ];

  it('a partition that stalls (the write never commits) answers both syncs REBALANCE_IN_PROGRESS at the commit timeout, and keeps none parked', async () => {
    const { leader, follower, generationId } = await h.completingGroup('g');
    h.store.autoCommit = false;
    const followerSync = h.sync('g', follower, generationId);
    await h.settle();
    const leaderSync = h.sync('g', leader, generationId, assignment(leader, follower));
    await h.settle();
    const timeoutMs = h.config.offsetsCommitTimeoutMs;
    await h.advance(timeoutMs - 1);
    expect(followerSync.done).toBe(false);
    expect(leaderSync.done).toBe(false);

    await h.advance(1);
    expect(leaderSync.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(followerSync.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const group = h.shardOf('g').group('g')!;
    for (const member of group.allMembers()) {
      expect(group.parked.hasSync(member)).toBe(false);
      expect(group.parked.hasJoin(member)).toBe(false);
    }
    // Nothing waits on the partition any more: the runtime and the store hold no write of it.
    expect(h.store.pendingCommits(h.partitionOf('g'))).toBe(0);
    // The members are told to rejoin, and can: the group prepares a new rebalance.
    expect(group.is('PreparingRebalance')).toBe(true);
  });

  it('a write whose commit comes after the timeout does not answer the syncs a second time; the members rejoin', async () => {
    const { leader, follower, generationId } = await h.completingGroup('g');
    h.store.autoCommit = false;
    const followerSync = h.sync('g', follower, generationId);
    const leaderSync = h.sync('g', leader, generationId, assignment(leader, follower));
    await h.settle();
    await h.advance(h.config.offsetsCommitTimeoutMs);
    expect(followerSync.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    h.store.advanceHighWatermark(h.partitionOf('g'));
    await h.settle();
    expect(leaderSync.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoin = h.join('g', follower);
    await h.settle();
    expect(rejoin.done).toBe(false);
  });

  it('a lost leadership answers the parked syncs NOT_COORDINATOR at once, without waiting for the timeout', async () => {
    const { leader, follower, generationId } = await h.completingGroup('g');
    h.store.autoCommit = false;
    const followerSync = h.sync('g', follower, generationId);
    const leaderSync = h.sync('g', leader, generationId, assignment(leader, follower));
    await h.settle();
    h.store.resign(h.partitionOf('g'));
    await h.settle();
    expect(leaderSync.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(followerSync.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });

  it('a follower whose leader never syncs is answered REBALANCE_IN_PROGRESS when the rebalance timeout runs out', async () => {
    const { follower, generationId } = await h.completingGroup('g', { rebalanceTimeoutMs: 5_000 });
    const followerSync = h.sync('g', follower, generationId);
    await h.advance(4_999);
    expect(followerSync.done).toBe(false);
    await h.advance(1);
    expect(followerSync.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });
});
