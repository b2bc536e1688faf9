import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/** Two dynamic members whose join phase just completed: the group is CompletingRebalance, nobody synced. */
async function completing(
  h: CoordinatorHarness,
  overrides: Partial<P.JoinGroupRequest> = {},
): ReturnType<CoordinatorHarness['completingGroup']> {
  const completing = await h.completingGroup('g', overrides);
  expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
  return completing;
}

describe('transitions out of CompletingRebalance', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
  });

  it("CompletingRebalance → Stable when the leader's SyncGroup record commits, and not before", async () => {
    h.store.autoCommit = false;
    const { leader, follower, generationId } = await completing(h);
    const followerSync = h.sync('g', follower, generationId);
    const leaderSync = h.sync('g', leader, generationId, [
      { memberId: leader, assignment: { partitions: [{ topic: 'orders', partitions: [0] }] } },
      { memberId: follower, assignment: { partitions: [{ topic: 'orders', partitions: [1] }] } },
    ]);
    await h.settle();
    expect(leaderSync.done || followerSync.done).toBe(false);
    expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
    h.store.commitAll();
    await h.settle();
    expect(leaderSync.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [0] }] });
    expect(followerSync.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [1] }] });
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it('CompletingRebalance → PreparingRebalance when a member joins with new metadata; waiting syncs get REBALANCE_IN_PROGRESS', async () => {
    const { leader, follower, generationId } = await completing(h);
    const followerSync = h.sync('g', follower, generationId);
    await h.settle();
    h.join('g', leader, { protocols: [{ name: 'range', metadata: { topics: ['orders', 'other'] } }] });
    await h.settle();
    expect(followerSync.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });

  it('CompletingRebalance stays when a member rejoins with the same metadata (its JoinGroup reply was lost)', async () => {
    const { leader, follower, generationId } = await completing(h);
    const again = h.join('g', leader);
    const followerAgain = h.join('g', follower);
    await h.settle();
    expect(again.value.generationId).toBe(generationId);
    expect(again.value.members).toHaveLength(2);
    expect(followerAgain.value.members).toEqual([]);
    expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
  });

  it('CompletingRebalance → PreparingRebalance when a new member joins', async () => {
    await completing(h);
    await h.joinNew('g');
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });

  it('CompletingRebalance → PreparingRebalance when a member leaves', async () => {
    const { follower } = await completing(h);
    const left = await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: follower }] }, h.context());
    expect(left.members[0].errorCode).toBe(0);
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });

  it("CompletingRebalance → PreparingRebalance when a member's session expires", async () => {
    const { leader, generationId } = await completing(h, { sessionTimeoutMs: 10_000 });
    // The leader keeps its session alive by heartbeating; the follower is silent.
    for (let t = 0; t < 3; t++) {
      await h.advance(4000);
      await h.heartbeat('g', leader, generationId);
    }
    const described = await h.describe('g');
    expect(described.groupState).toBe('PreparingRebalance');
    expect(described.members.map((m) => m.memberId)).toEqual([leader]);
  });

  it('CompletingRebalance → PreparingRebalance when a known static member rejoins', async () => {
    const a = await h.joinNew('g');
    const s = h.join('g', '', { groupInstanceId: 'instance-1' });
    await h.advance(0);
    expect(s.value.errorCode).toBe(0);
    expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
    h.join('g', '', { groupInstanceId: 'instance-1' });
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
    expect(a.join.value.errorCode).toBe(0);
    // The replaced member id is fenced.
    expect((await h.heartbeat('g', s.value.memberId, s.value.generationId, 'instance-1')).errorCode).toBe(
      ErrorCode.FENCED_INSTANCE_ID,
    );
  });

  it("CompletingRebalance → PreparingRebalance when storing the leader's assignment fails", async () => {
    h.store.autoCommit = false;
    const { leader, follower, generationId } = await completing(h);
    const followerSync = h.sync('g', follower, generationId);
    const leaderSync = h.sync('g', leader, generationId, []);
    await h.settle();
    h.store.failPendingCommits(h.partitionOf('g'), new KafkaError(ErrorCode.NOT_ENOUGH_REPLICAS, 'isr too small'));
    await h.settle();
    expect(leaderSync.value.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(followerSync.value.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });

  it('CompletingRebalance → PreparingRebalance when the sync timeout expires, without the members that never synced', async () => {
    const { leader, follower, generationId } = await completing(h, {
      rebalanceTimeoutMs: 15_000,
      sessionTimeoutMs: 30_000,
    });
    h.sync('g', follower, generationId);
    await h.advance(15_000);
    const described = await h.describe('g');
    expect(described.groupState).toBe('PreparingRebalance');
    expect(described.members.map((m) => m.memberId)).toEqual([follower]);
    expect((await h.heartbeat('g', leader, generationId)).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });
});
