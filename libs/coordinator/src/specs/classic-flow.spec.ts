import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness, track } from '@cohort/coordinator/testing';

describe('classic group protocol, end to end over the fake store', () => {
  it('two members join, the leader gets the metadata, both get their assignment, commit and fetch', async () => {
    const h = new CoordinatorHarness();
    await h.settle();
    const a = await h.joinNew('g');
    const b = await h.joinNew('g', { protocols: [{ name: 'range', metadata: { topics: ['orders', 'payments'] } }] });
    await h.advance(0); // the (zero) initial rebalance delay
    expect(a.join.done && b.join.done).toBe(true);
    const ja = a.join.value;
    const jb = b.join.value;
    expect(ja.errorCode).toBe(0);
    expect(ja.generationId).toBe(1);
    expect(ja.protocolName).toBe('range');
    expect(ja.leader).toBe(a.memberId);
    expect(ja.members.map((m) => m.memberId).sort()).toEqual([a.memberId, b.memberId].sort());
    expect(jb.members).toEqual([]);
    expect(jb.leader).toBe(a.memberId);

    const followerSync = h.sync('g', b.memberId, 1);
    await h.settle();
    expect(followerSync.done).toBe(false);
    const leaderSync = h.sync('g', a.memberId, 1, [
      { memberId: a.memberId, assignment: { partitions: [{ topic: 'orders', partitions: [0, 1] }] } },
      { memberId: b.memberId, assignment: { partitions: [{ topic: 'orders', partitions: [2, 3] }] } },
    ]);
    await h.settle();
    expect(leaderSync.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [0, 1] }] });
    expect(followerSync.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [2, 3] }] });
    expect((await h.describe('g')).groupState).toBe('Stable');

    expect((await h.heartbeat('g', b.memberId, 1)).errorCode).toBe(0);
    const commit = h.commit('g', 1, b.memberId, { orders: { 2: 100, 3: 200 } });
    await h.settle();
    expect(commit.value.errorCode).toBe(0);
    const fetched = await h.fetch('g', [{ name: 'orders', partitionIndexes: [2, 3, 0] }]);
    expect(fetched.topics[0].partitions.map((p) => p.committedOffset)).toEqual([100, 200, -1]);
  });

  it('answers NOT_COORDINATOR for a group whose partition is led elsewhere', async () => {
    const h = new CoordinatorHarness({ elect: false });
    const response = await h.coordinator.joinGroup(h.joinRequest('g'), h.context());
    expect(response.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });

  it('parks nothing forever: a reply to a JoinGroup awaits the join phase only', async () => {
    const h = new CoordinatorHarness();
    await h.settle();
    const a = await h.joinNew('g2');
    await h.advance(0);
    expect(a.join.done).toBe(true);
    const again = track(h.coordinator.joinGroup(h.joinRequest('g2', { memberId: a.memberId }), h.context()));
    await h.settle();
    expect(again.done).toBe(true);
  });
});
