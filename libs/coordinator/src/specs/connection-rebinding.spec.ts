import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/**
 * A member is bound to the connection that carried its last request: a request of a known member over
 * a new connection moves it there, pushes follow it, and only the bound connection's closing starts the
 * disconnect grace (MEMBER_DISCONNECT_GRACE_MS).
 */
describe('rebinding a member to its newest connection', () => {
  const GRACE = 3000;

  async function stableOfTwo() {
    const h = new CoordinatorHarness({ config: { memberDisconnectGraceMs: GRACE } });
    await h.settle();
    const group = await h.stableGroup('g', 2, { sessionTimeoutMs: 30_000 });
    return { h, ...group };
  }

  it('pushes follow a member that heartbeated over a new connection; the old connection hears nothing', async () => {
    const { h, memberIds, contexts, generationId } = await stableOfTwo();
    const moved = h.context('conn-moved');
    expect(
      (await h.coordinator.heartbeat({ groupId: 'g', memberId: memberIds[0], generationId }, moved)).errorCode,
    ).toBe(ErrorCode.NONE);
    h.push.rebalances.length = 0;
    await h.joinNew('g', {}, h.context('conn-newcomer'));
    expect(h.push.rebalances).toEqual([
      {
        connectionIds: [contexts[1].connectionId, 'conn-moved'].sort(),
        push: expect.objectContaining({ groupId: 'g', generationId }),
      },
    ]);
  });

  it('closing the connection a member has moved away from starts no grace: the member stays past it', async () => {
    const { h, memberIds, contexts, generationId } = await stableOfTwo();
    await h.coordinator.heartbeat({ groupId: 'g', memberId: memberIds[0], generationId }, h.context('conn-moved'));
    h.coordinator.connectionClosed(contexts[0].connectionId!);
    await h.advance(GRACE + 1000);
    const described = await h.describe('g');
    expect(described.members.map((m) => m.memberId).sort()).toEqual([...memberIds].sort());
    expect(described.groupState).toBe('Stable');
  });

  it('the grace starts when the bound connection closes, and removes the member when it ends', async () => {
    const { h, memberIds, contexts, generationId } = await stableOfTwo();
    const moved = h.context('conn-moved');
    await h.coordinator.heartbeat({ groupId: 'g', memberId: memberIds[0], generationId }, moved);
    h.coordinator.connectionClosed(contexts[0].connectionId!);
    h.coordinator.connectionClosed('conn-moved');
    await h.advance(GRACE - 1);
    expect((await h.describe('g')).members).toHaveLength(2);
    await h.advance(1);
    const described = await h.describe('g');
    expect(described.members.map((m) => m.memberId)).toEqual([memberIds[1]]);
    expect(described.groupState).toBe('PreparingRebalance');
  });

  it('a request on a new connection during the grace cancels the removal, and the generation goes on', async () => {
    const { h, memberIds, contexts, generationId } = await stableOfTwo();
    h.coordinator.connectionClosed(contexts[0].connectionId!);
    await h.advance(GRACE - 500);
    const commit = await h.coordinator.offsetCommit(
      {
        groupId: 'g',
        generationId,
        memberId: memberIds[0],
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 5 }] }],
      },
      h.context('conn-reconnected'),
    );
    expect(commit.errorCode).toBe(ErrorCode.NONE);
    await h.advance(GRACE);
    const described = await h.describe('g');
    expect(described).toMatchObject({ groupState: 'Stable' });
    expect(described.members).toHaveLength(2);
    // The new connection is the bound one now: its closing starts a fresh grace.
    h.coordinator.connectionClosed('conn-reconnected');
    await h.advance(GRACE);
    expect((await h.describe('g')).members.map((m) => m.memberId)).toEqual([memberIds[1]]);
  });

  it('a known member binds even when its request is refused for a stale generation', async () => {
    const { h, memberIds, contexts, generationId } = await stableOfTwo();
    const stale = await h.coordinator.heartbeat(
      { groupId: 'g', memberId: memberIds[0], generationId: generationId - 1 },
      h.context('conn-moved'),
    );
    expect(stale.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    h.coordinator.connectionClosed(contexts[0].connectionId!);
    await h.advance(GRACE + 1);
    expect((await h.describe('g')).members).toHaveLength(2);
  });

  it('an unknown member id binds nothing: closing its connection leaves the group alone', async () => {
    const { h, contexts } = await stableOfTwo();
    const unknown = await h.coordinator.heartbeat(
      { groupId: 'g', memberId: 'nobody', generationId: 1 },
      h.context('conn-stranger'),
    );
    expect(unknown.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    h.coordinator.connectionClosed('conn-stranger');
    await h.advance(GRACE + 1);
    expect((await h.describe('g')).members).toHaveLength(2);
    expect(contexts).toHaveLength(2);
  });
});
