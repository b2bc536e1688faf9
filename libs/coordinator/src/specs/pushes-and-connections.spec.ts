import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '../testing/coordinator-harness';

describe('server pushes and closed connections (SPEC §3)', () => {
  it('RebalanceInProgress goes to every member connection as soon as the group starts preparing, with the reason', async () => {
    const h = new CoordinatorHarness();
    await h.settle();
    const { contexts, generationId } = await h.stableGroup('g', 2);
    h.push.rebalances.length = 0;
    const newcomer = h.context('conn-newcomer');
    const first = await h.coordinator.joinGroup(h.joinRequest('g', { reason: 'scaling out' }), newcomer);
    h.join('g', first.memberId, { reason: 'scaling out' }, newcomer);
    await h.settle();
    expect(h.push.rebalances).toEqual([
      {
        connectionIds: [contexts[0].connectionId, contexts[1].connectionId, 'conn-newcomer'].sort(),
        push: { groupId: 'g', generationId, reason: expect.stringContaining('client reason: scaling out') },
      },
    ]);
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
    expect((await h.coordinator.heartbeat({ groupId: 'g', memberId: memberIds[0], generationId }, h.context('conn-reconnected'))).errorCode).toBe(0);
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
