import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/**
 * The "request behaviour by state" table of Kafka's classic group coordinator (GroupMetadataManager's handlers per ClassicGroupState), cell by cell.
 * Each state is reached for real; Dead is the state a request sees when it still holds a group that was
 * just removed (here: a group object switched to Dead while still mapped).
 */
type StateName = 'Empty' | 'PreparingRebalance' | 'CompletingRebalance' | 'Stable' | 'Dead';

interface Fixture {
  h: CoordinatorHarness;
  /** A member id the group knows (or knew, for Empty): a follower. */
  member: string;
  leader: string;
  generationId: number;
}

async function inState(state: StateName): Promise<Fixture> {
  const h = new CoordinatorHarness();
  await h.settle();
  const { memberIds, leader, generationId } = await h.stableGroup('g', 2);
  const follower = memberIds.find((m) => m !== leader)!;
  switch (state) {
    case 'Empty':
      await h.coordinator.leaveGroup(
        { groupId: 'g', members: memberIds.map((memberId) => ({ memberId })) },
        h.context(),
      );
      await h.settle();
      return { h, member: follower, leader, generationId: generationId + 1 };
    case 'PreparingRebalance':
      h.join('g', leader);
      await h.settle();
      return { h, member: follower, leader, generationId };
    case 'CompletingRebalance': {
      const joins = [h.join('g', leader), h.join('g', follower)];
      await h.settle();
      return { h, member: follower, leader, generationId: joins[0].value.generationId };
    }
    case 'Stable':
      return { h, member: follower, leader, generationId };
    case 'Dead':
      h.shardOf('g').group('g')!.transitionTo('Dead', h.clock.now());
      return { h, member: follower, leader, generationId };
  }
}

async function state(h: CoordinatorHarness): Promise<string> {
  return (await h.describe('g')).groupState;
}

describe('request behaviour by group state', () => {
  describe('JoinGroup from a new member', () => {
    it.each([
      ['Empty', 'PreparingRebalance'],
      ['PreparingRebalance', 'PreparingRebalance'],
      ['CompletingRebalance', 'PreparingRebalance'],
      ['Stable', 'PreparingRebalance'],
    ] as const)('%s: adds it, and the group is %s with its JoinGroup parked', async (from, to) => {
      const { h } = await inState(from);
      const { join } = await h.joinNew('g');
      expect(join.done).toBe(false);
      expect(await state(h)).toBe(to);
      expect((await h.describe('g')).members).toHaveLength(from === 'Empty' ? 1 : 3);
    });

    it('Dead: COORDINATOR_NOT_AVAILABLE', async () => {
      const { h } = await inState('Dead');
      const response = await h.coordinator.joinGroup(h.joinRequest('g'), h.context());
      expect(response.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    });
  });

  describe('JoinGroup from a known member', () => {
    it('Empty: UNKNOWN_MEMBER_ID', async () => {
      const { h, member } = await inState('Empty');
      const join = h.join('g', member);
      await h.settle();
      expect(join.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    });

    it('PreparingRebalance: updates it and parks its JoinGroup', async () => {
      const { h, member } = await inState('PreparingRebalance');
      // The leader already rejoined; the follower's JoinGroup completes the phase.
      const join = h.join('g', member);
      await h.settle();
      expect(join.value.errorCode).toBe(0);
      expect(await state(h)).toBe('CompletingRebalance');
    });

    it('CompletingRebalance: same metadata → the current generation, at once', async () => {
      const { h, member, generationId } = await inState('CompletingRebalance');
      const join = h.join('g', member);
      await h.settle();
      expect(join.value).toMatchObject({ errorCode: 0, generationId });
      expect(await state(h)).toBe('CompletingRebalance');
    });

    it('CompletingRebalance: changed metadata → rebalance', async () => {
      const { h, member } = await inState('CompletingRebalance');
      h.join('g', member, { protocols: [{ name: 'range', metadata: { topics: ['orders', 'x'] } }] });
      await h.settle();
      expect(await state(h)).toBe('PreparingRebalance');
    });

    it('Stable: the leader → rebalance; a follower with the same metadata → the current generation', async () => {
      const { h, member, leader, generationId } = await inState('Stable');
      const follower = h.join('g', member);
      await h.settle();
      expect(follower.value).toMatchObject({ errorCode: 0, generationId, members: [] });
      expect(await state(h)).toBe('Stable');
      h.join('g', leader);
      await h.settle();
      expect(await state(h)).toBe('PreparingRebalance');
    });

    it('Dead: COORDINATOR_NOT_AVAILABLE', async () => {
      const { h, member } = await inState('Dead');
      const join = h.join('g', member);
      await h.settle();
      expect(join.value.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    });
  });

  describe('SyncGroup', () => {
    it.each([
      ['Empty', ErrorCode.UNKNOWN_MEMBER_ID],
      ['PreparingRebalance', ErrorCode.REBALANCE_IN_PROGRESS],
      ['Dead', ErrorCode.COORDINATOR_NOT_AVAILABLE],
    ] as const)('%s: error %s', async (from, error) => {
      const { h, member, generationId } = await inState(from);
      const sync = h.sync('g', member, generationId);
      await h.settle();
      expect(sync.value.errorCode).toBe(error);
    });

    it("CompletingRebalance: parked until the leader's assignment is persisted", async () => {
      const { h, member, leader, generationId } = await inState('CompletingRebalance');
      const sync = h.sync('g', member, generationId);
      await h.settle();
      expect(sync.done).toBe(false);
      h.sync('g', leader, generationId, [
        { memberId: member, assignment: { partitions: [{ topic: 'orders', partitions: [3] }] } },
      ]);
      await h.settle();
      expect(sync.value).toMatchObject({
        errorCode: 0,
        assignment: { partitions: [{ topic: 'orders', partitions: [3] }] },
      });
    });

    it('Stable: the stored assignment', async () => {
      const { h, member, generationId } = await inState('Stable');
      const sync = h.sync('g', member, generationId);
      await h.settle();
      expect(sync.value).toMatchObject({
        errorCode: 0,
        protocolType: 'consumer',
        protocolName: 'range',
        assignment: { partitions: [{ topic: 'orders', partitions: [1] }] },
      });
    });
  });

  describe('Heartbeat', () => {
    it.each([
      ['Empty', ErrorCode.UNKNOWN_MEMBER_ID],
      ['PreparingRebalance', ErrorCode.REBALANCE_IN_PROGRESS],
      ['CompletingRebalance', ErrorCode.NONE],
      ['Stable', ErrorCode.NONE],
      ['Dead', ErrorCode.COORDINATOR_NOT_AVAILABLE],
    ] as const)('%s: error %s', async (from, error) => {
      const { h, member, generationId } = await inState(from);
      expect((await h.heartbeat('g', member, generationId)).errorCode).toBe(error);
    });
  });

  describe('OffsetCommit by a member of the current generation', () => {
    it.each([
      ['Empty', ErrorCode.UNKNOWN_MEMBER_ID],
      ['PreparingRebalance', ErrorCode.NONE],
      ['CompletingRebalance', ErrorCode.REBALANCE_IN_PROGRESS],
      ['Stable', ErrorCode.NONE],
      ['Dead', ErrorCode.COORDINATOR_NOT_AVAILABLE],
    ] as const)('%s: error %s', async (from, error) => {
      const { h, member, generationId } = await inState(from);
      const commit = h.commit('g', generationId, member, { orders: { 1: 42 } });
      await h.settle();
      expect(commit.value.topics[0].partitions[0].errorCode).toBe(error);
    });

    it('Empty: allowed with generation -1 (simple consumers, admin tools)', async () => {
      const { h } = await inState('Empty');
      const commit = h.commit('g', -1, '', { orders: { 1: 42 } });
      await h.settle();
      expect(commit.value.errorCode).toBe(0);
      expect(
        (await h.fetch('g', [{ name: 'orders', partitionIndexes: [1] }])).topics[0].partitions[0].committedOffset,
      ).toBe(42);
    });
  });
});
