import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

const MAX = 3;

/** GROUP_MAX_SIZE (KIP-389), Kafka's acceptJoiningMember, ported from GroupCoordinatorTest. */
describe('GROUP_MAX_SIZE', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness({ config: { groupMaxSize: MAX, groupInitialRebalanceDelayMs: 3000 } });
    await h.settle();
  });

  it('dynamic members with KIP-394: all get ids, the first MAX to join with them get in, the rest GROUP_MAX_SIZE_REACHED, also when they try again (testDynamicMembersJoinGroupWithMaxSizeAndRequiredKnownMember)', async () => {
    const ids: string[] = [];
    for (let i = 0; i < MAX + 1; i++) {
      const first = await h.coordinator.joinGroup(h.joinRequest('g'), h.context());
      expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
      ids.push(first.memberId);
    }
    const joins = ids.map((memberId) => h.join('g', memberId));
    await h.settle();
    expect((await h.describe('g')).members).toHaveLength(MAX);
    await h.advance(3000); // the initial delay, extended once by the members that joined during it
    await h.advance(3000);
    const codes = joins.map((j) => j.value.errorCode);
    expect(codes.filter((c) => c === ErrorCode.NONE)).toHaveLength(MAX);
    expect(codes.filter((c) => c === ErrorCode.GROUP_MAX_SIZE_REACHED)).toHaveLength(1);
    // Again, while the group completes its rebalance: the members get the current generation, the other is refused.
    const again = ids.map((memberId) => h.join('g', memberId));
    await h.settle();
    expect(again.map((j) => j.value.errorCode)).toEqual(codes);
    expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
  });

  it('static members (no KIP-394 round): the first MAX are in, the next is GROUP_MAX_SIZE_REACHED (testStaticMembersJoinGroupWithMaxSize)', async () => {
    const joins = ['a', 'b', 'c', 'd'].map((instance) => h.join('g', '', { groupInstanceId: instance }));
    await h.settle();
    expect(joins[3].value.errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    await h.advance(3000); // the initial delay, extended once by the members that joined during it
    await h.advance(3000);
    expect(joins.slice(0, MAX).map((j) => j.value.errorCode)).toEqual([0, 0, 0]);
    expect((await h.describe('g')).members.map((m) => m.groupInstanceId).sort()).toEqual(['a', 'b', 'c']);
  });

  it('a member of a full Stable group rejoins freely; a stranger is refused without a member id', async () => {
    const small = new CoordinatorHarness({ config: { groupMaxSize: 2 } });
    await small.settle();
    const { memberIds, generationId } = await small.stableGroup('g', 2);
    const follower = memberIds[1];
    const rejoin = small.join('g', follower);
    const stranger = await small.coordinator.joinGroup(small.joinRequest('g'), small.context());
    await small.settle();
    expect(rejoin.value).toMatchObject({ errorCode: 0, generationId });
    expect(stranger).toMatchObject({ errorCode: ErrorCode.GROUP_MAX_SIZE_REACHED, memberId: '' });
  });
});
