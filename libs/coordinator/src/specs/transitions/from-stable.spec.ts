import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

describe('transitions out of Stable', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [
        { name: 'orders', partitions: 4 },
        { name: 'other', partitions: 2 },
      ],
    });
    await h.settle();
  });

  it('Stable → PreparingRebalance when the leader rejoins, even with the same metadata', async () => {
    const { leader } = await h.stableGroup('g', 2);
    h.join('g', leader);
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });

  it('Stable stays when a follower rejoins with the same metadata, and it gets the current generation', async () => {
    const { leader, memberIds, generationId } = await h.stableGroup('g', 2);
    const follower = memberIds.find((m) => m !== leader)!;
    const join = h.join('g', follower);
    await h.settle();
    expect(join.value).toMatchObject({ errorCode: 0, generationId, leader, members: [] });
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it('Stable → PreparingRebalance when a follower rejoins with changed metadata', async () => {
    const { leader, memberIds } = await h.stableGroup('g', 2);
    const follower = memberIds.find((m) => m !== leader)!;
    h.join('g', follower, { protocols: [{ name: 'range', metadata: { topics: ['orders', 'other'] } }] });
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });

  it('Stable → PreparingRebalance when a new member joins', async () => {
    await h.stableGroup('g', 1);
    await h.joinNew('g');
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });

  it('Stable → PreparingRebalance on LeaveGroup', async () => {
    const { memberIds } = await h.stableGroup('g', 2);
    await h.coordinator.leaveGroup(
      { groupId: 'g', members: [{ memberId: memberIds[1], reason: 'shutting down' }] },
      h.context(),
    );
    const described = await h.describe('g');
    expect(described.groupState).toBe('PreparingRebalance');
    expect(described.members.map((m) => m.memberId)).toEqual([memberIds[0]]);
  });

  it('Stable → PreparingRebalance on session expiry', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 2, { sessionTimeoutMs: 10_000 });
    await h.advance(6000);
    expect((await h.heartbeat('g', memberIds[0], generationId)).errorCode).toBe(0);
    await h.advance(4000);
    const described = await h.describe('g');
    expect(described.groupState).toBe('PreparingRebalance');
    expect(described.members.map((m) => m.memberId)).toEqual([memberIds[0]]);
  });

  it('Stable → PreparingRebalance when a static member rejoins with a change of the selected protocol', async () => {
    const join = h.join('g', '', { groupInstanceId: 'i-1' });
    await h.advance(0);
    const { memberId, generationId } = join.value;
    h.sync('g', memberId, generationId, []);
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('Stable');
    // It now prefers roundrobin (still supporting range): the vote of the next generation would change.
    const rejoin = h.join('g', '', {
      groupInstanceId: 'i-1',
      protocols: [
        { name: 'roundrobin', metadata: { topics: ['orders'] } },
        { name: 'range', metadata: { topics: ['orders'] } },
      ],
    });
    await h.settle();
    // It is the only member, so the rebalance it started completes at once with the new vote.
    expect(rejoin.value).toMatchObject({ errorCode: 0, generationId: generationId + 1, protocolName: 'roundrobin' });
    expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
    const history = await h.coordinator.rebalanceHistory('g');
    expect(history[0].reason).toMatch(/selected protocol will change because static member/);
  });

  it('Stable → PreparingRebalance when a follower never sends SyncGroup within the rebalance timeout', async () => {
    const a = await h.joinNew('g', { rebalanceTimeoutMs: 15_000, sessionTimeoutMs: 30_000 });
    const b = await h.joinNew('g', { rebalanceTimeoutMs: 15_000, sessionTimeoutMs: 30_000 });
    await h.advance(0);
    const leader = a.join.value.leader;
    const follower = leader === a.memberId ? b.memberId : a.memberId;
    h.sync('g', leader, 1, []);
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('Stable');
    await h.advance(15_000);
    const described = await h.describe('g');
    expect(described.groupState).toBe('PreparingRebalance');
    expect(described.members.map((m) => m.memberId)).toEqual([leader]);
    expect((await h.heartbeat('g', follower, 1)).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('Stable → PreparingRebalance when a subscribed topic grows, with the reason pushed to the members', async () => {
    const { contexts } = await h.stableGroup('g', 2);
    await h.stableGroup('h-other', 1, { protocols: [{ name: 'range', metadata: { topics: ['other'] } }] });
    await h.topics.setPartitions('orders', 8);
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
    expect((await h.describe('h-other')).groupState).toBe('Stable');
    expect(h.push.rebalances.at(-1)).toEqual({
      connectionIds: contexts.map((c) => c.connectionId).sort(),
      push: { groupId: 'g', generationId: 1, reason: 'topic orders grew to 8 partitions' },
    });
  });

  /** The group `g` of `h` loaded by a coordinator whose GROUP_MAX_SIZE is `max` (same log, smaller limit). */
  async function reloadedWithMaxSize(max: number): Promise<CoordinatorHarness> {
    h.coordinator.close();
    const small = new CoordinatorHarness({ config: { groupMaxSize: max }, elect: false });
    const partition = h.partitionOf('g');
    small.store.elect(partition);
    for (const record of h.store.records(partition))
      small.store.append(partition, small.store.leaderEpoch(partition)!, [record]);
    small.store.commitAll();
    small.store.resign(partition);
    small.store.elect(partition);
    await small.settle();
    return small;
  }

  it('Stable → PreparingRebalance when a freshly loaded group is over GROUP_MAX_SIZE', async () => {
    await h.stableGroup('g', 3);
    const small = await reloadedWithMaxSize(2);
    expect((await small.describe('g')).groupState).toBe('PreparingRebalance');
  });

  it('a freshly loaded group over GROUP_MAX_SIZE turns away the last members to rejoin and completes with the limit (Kafka: testLastJoiningMembersAreKickedOutWhenReJoiningGroupWithMaxSize)', async () => {
    const { memberIds } = await h.stableGroup('g', 3);
    const small = await reloadedWithMaxSize(2);
    const joins = memberIds.map((memberId) => small.join('g', memberId));
    await small.settle();
    expect(joins.map((j) => j.value.errorCode)).toEqual([0, 0, ErrorCode.GROUP_MAX_SIZE_REACHED]);
    expect(joins[0].value.generationId).toBe(2);
    const described = await small.describe('g');
    expect(described.groupState).toBe('CompletingRebalance');
    expect(described.members.map((m) => m.memberId).sort()).toEqual(memberIds.slice(0, 2).sort());
  });
});
