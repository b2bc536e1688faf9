import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

describe('server pushes and closed connections (docs/protocol.md)', () => {
  it('RebalanceInProgress goes, as soon as the group starts preparing and with the reason, to the members that must rejoin', async () => {
    const h = new CoordinatorHarness();
    await h.settle();
    const { contexts, generationId } = await h.stableGroup('g', 2);
    h.push.rebalances.length = 0;
    const newcomer = h.context('conn-newcomer');
    const first = await h.coordinator.joinGroup(h.joinRequest('g', { reason: 'scaling out' }), newcomer);
    h.join('g', first.memberId, { reason: 'scaling out' }, newcomer);
    await h.settle();
    // The newcomer's JoinGroup is parked for this phase already: the push is for the others only.
    expect(h.push.rebalances).toEqual([
      {
        connectionIds: [contexts[0].connectionId, contexts[1].connectionId].sort(),
        push: { groupId: 'g', generationId, reason: expect.stringContaining('client reason: scaling out') },
      },
    ]);
  });

  it('the member whose JoinGroup starts the rebalance gets no push: the first member of a new group, or the leader rejoining in Stable', async () => {
    const h = new CoordinatorHarness();
    await h.settle();
    const founder = await h.joinNew('new-group', {}, h.context('conn-founder'));
    await h.advance(0);
    expect(founder.join.value.errorCode).toBe(0);
    expect(h.push.rebalances).toEqual([]);

    const { leader, contexts, memberIds, generationId } = await h.stableGroup('g', 2);
    h.push.rebalances.length = 0;
    const rejoin = h.join('g', leader);
    await h.settle();
    expect(rejoin.done).toBe(false);
    const follower = contexts[memberIds.indexOf(leader) === 0 ? 1 : 0].connectionId;
    expect(h.push.rebalances).toEqual([
      { connectionIds: [follower], push: expect.objectContaining({ groupId: 'g', generationId }) },
    ]);
  });

  it('an existing member that has not rejoined gets exactly one push per rebalance, however many members join meanwhile', async () => {
    const h = new CoordinatorHarness();
    await h.settle();
    const { memberIds, contexts } = await h.stableGroup('g', 2);
    h.push.rebalances.length = 0;
    const pushesTo = (connectionId: string | undefined) =>
      h.push.rebalances.filter((r) => r.connectionIds.includes(connectionId!)).map((r) => r.push.generationId);

    // Rebalance 1 (generation 1 ends): two newcomers join one after the other, then the old members rejoin.
    const c = await h.joinNew('g', {}, h.context('conn-c'));
    const d = await h.joinNew('g', {}, h.context('conn-d'));
    expect(pushesTo(contexts[0].connectionId)).toEqual([1]);
    expect(pushesTo(contexts[1].connectionId)).toEqual([1]);
    const rejoins = memberIds.map((id) => h.join('g', id));
    await h.settle();
    const generation2 = rejoins[0].value.generationId;
    expect(generation2).toBe(2);
    const leader = rejoins[0].value.leader;
    const everyone = [...memberIds, c.memberId, d.memberId];
    const syncs = everyone.map((id) =>
      h.sync(
        'g',
        id,
        generation2,
        id === leader ? everyone.map((memberId) => ({ memberId, assignment: { partitions: [] } })) : [],
      ),
    );
    await h.settle();
    expect(syncs.every((s) => s.value.errorCode === 0)).toBe(true);
    expect((await h.describe('g')).groupState).toBe('Stable');

    // Rebalance 2 (generation 2 ends): the topic grows; nobody has rejoined, so all four hear of it once.
    await h.topics.setPartitions('orders', 8);
    await h.settle();
    for (const connectionId of [contexts[0].connectionId, contexts[1].connectionId])
      expect(pushesTo(connectionId)).toEqual([1, 2]);
    for (const connectionId of ['conn-c', 'conn-d']) expect(pushesTo(connectionId)).toEqual([2]);
  });

  it('a member that rejoined gets no stale push when the join phase completes or the generation stabilizes', async () => {
    const h = new CoordinatorHarness();
    await h.settle();
    const { memberIds, leader, contexts } = await h.stableGroup('g', 3);
    h.push.rebalances.length = 0;
    const [rejoiner, laggard] = memberIds.filter((id) => id !== leader);
    const leaderJoin = h.join('g', leader);
    await h.settle();
    const rejoin = h.join('g', rejoiner);
    await h.settle();
    expect(h.push.rebalances).toHaveLength(1);
    // The laggard never rejoins: its session expires, which completes the join phase without it.
    await h.advance(10_000);
    expect(rejoin.value).toMatchObject({ errorCode: 0, generationId: 2 });
    const syncs = [leader, rejoiner].map((id) =>
      h.sync(
        'g',
        id,
        2,
        id === leader ? [leader, rejoiner].map((memberId) => ({ memberId, assignment: { partitions: [] } })) : [],
      ),
    );
    await h.settle();
    expect(leaderJoin.value.errorCode).toBe(0);
    expect(syncs.map((s) => s.value.errorCode)).toEqual([0, 0]);
    expect((await h.describe('g')).groupState).toBe('Stable');
    const connectionOf = (id: string) => contexts[memberIds.indexOf(id)].connectionId;
    expect(h.push.rebalances).toEqual([
      {
        connectionIds: [connectionOf(rejoiner), connectionOf(laggard)].sort(),
        push: expect.objectContaining({ generationId: 1 }),
      },
    ]);
  });

  it('members whose JoinGroups are already parked get no push when the group goes back to preparing (server-side assignment, topic grows before it commits)', async () => {
    const h = new CoordinatorHarness({
      assignors: [
        {
          name: 'all-to-first',
          assign: (_cluster, members) => Object.fromEntries(members.map((m) => [m.memberId, { partitions: [] }])),
        },
      ],
    });
    await h.settle();
    h.store.autoCommit = false;
    const a = await h.joinNew('g', { serverAssignor: 'all-to-first' });
    const b = await h.joinNew('g', { serverAssignor: 'all-to-first' });
    await h.advance(0);
    expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
    expect(a.join.done || b.join.done).toBe(false);
    await h.topics.setPartitions('orders', 8);
    await h.settle();
    h.store.commitAll();
    await h.settle();
    // Both JoinGroups carried over into the next rebalance and are answered with its generation.
    expect([a.join.value.generationId, b.join.value.generationId]).toEqual([2, 2]);
    expect(h.push.rebalances).toEqual([]);
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it('a dynamic member whose connection closes leaves at once (grace 0); a static member waits for its session timeout', async () => {
    const h = new CoordinatorHarness();
    await h.settle();
    const dynamicCtx = h.context('conn-d');
    const staticCtx = h.context('conn-s');
    const d = await h.joinNew('g', { sessionTimeoutMs: 20_000 }, dynamicCtx);
    const s = h.join('g', '', { groupInstanceId: 'static-1', sessionTimeoutMs: 20_000 }, staticCtx);
    await h.advance(0);
    const generationId = s.value.generationId;
    h.sync('g', d.memberId, generationId);
    h.sync('g', s.value.memberId, generationId, []);
    await h.settle();
    h.coordinator.connectionClosed('conn-s');
    expect((await h.describe('g')).members).toHaveLength(2);
    h.coordinator.connectionClosed('conn-d');
    const described = await h.describe('g');
    expect(described.members.map((m) => m.memberId)).toEqual([s.value.memberId]);
    expect(described.groupState).toBe('PreparingRebalance');
    await h.advance(20_000);
    expect((await h.describe('g')).members).toEqual([]);
  });

  it('with MEMBER_DISCONNECT_GRACE_MS the member leaves after the grace, unless it spoke again on a new connection', async () => {
    const h = new CoordinatorHarness({ config: { memberDisconnectGraceMs: 5000 } });
    await h.settle();
    const { memberIds, contexts, generationId } = await h.stableGroup('g', 2, { sessionTimeoutMs: 30_000 });
    h.coordinator.connectionClosed(contexts[0].connectionId!);
    h.coordinator.connectionClosed(contexts[1].connectionId!);
    await h.advance(3000);
    // Member 0 reconnects and heartbeats on a new socket within the grace.
    expect(
      (
        await h.coordinator.heartbeat(
          { groupId: 'g', memberId: memberIds[0], generationId },
          h.context('conn-reconnected'),
        )
      ).errorCode,
    ).toBe(0);
    await h.advance(2000);
    expect((await h.describe('g')).members.map((m) => m.memberId)).toEqual([memberIds[0]]);
  });

  it('a member whose JoinGroup is parked and whose connection closes is removed, and the join phase completes without it', async () => {
    const h = new CoordinatorHarness();
    await h.settle();
    const { memberIds, contexts } = await h.stableGroup('g', 2);
    const parked = h.join('g', memberIds[0], {}, contexts[0]);
    await h.settle();
    expect(parked.done).toBe(false);
    h.coordinator.connectionClosed(contexts[0].connectionId!);
    await h.settle();
    expect(parked.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const other = h.join('g', memberIds[1], {}, contexts[1]);
    await h.settle();
    expect(other.value).toMatchObject({ errorCode: 0, leader: memberIds[1], members: [{ memberId: memberIds[1] }] });
  });
});
