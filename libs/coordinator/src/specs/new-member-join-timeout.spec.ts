import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/** Kafka's NewMemberJoinTimeoutMs (KAFKA-7610): 5 minutes, configurable here only for tests. */
const NEW_MEMBER_JOIN_TIMEOUT = 300_000;

describe('new-member join timeout (Kafka: testNewMemberJoinExpiration, testNewMemberTimeoutCompletion)', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
  });

  it('a new member whose JoinGroup hangs in a protracted rebalance is dropped after the join timeout, with UNKNOWN_MEMBER_ID', async () => {
    const timeouts = {
      sessionTimeoutMs: NEW_MEMBER_JOIN_TIMEOUT + 5000,
      rebalanceTimeoutMs: 2 * NEW_MEMBER_JOIN_TIMEOUT,
    };
    const first = await h.joinNew('g', timeouts);
    await h.advance(0);
    expect(first.join.value.leader).toBe(first.memberId);
    // A second member joins; the first never rejoins, so the rebalance waits out its 10-minute timeout.
    const second = await h.joinNew('g', timeouts);
    await h.advance(NEW_MEMBER_JOIN_TIMEOUT - 1);
    expect(second.join.done).toBe(false);
    await h.heartbeat('g', first.memberId, 1); // the first member stays alive meanwhile
    await h.advance(1);
    expect(second.join.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const described = await h.describe('g');
    expect(described.groupState).toBe('PreparingRebalance');
    expect(described.members.map((m) => m.memberId)).toEqual([first.memberId]);
  });

  it('once its JoinGroup is answered a member lives by its session timeout, not by the join timeout', async () => {
    const sessionTimeoutMs = NEW_MEMBER_JOIN_TIMEOUT + 5000;
    const { memberIds } = await h.stableGroup('g', 1, { sessionTimeoutMs });
    await h.advance(NEW_MEMBER_JOIN_TIMEOUT + 100);
    expect((await h.describe('g')).members.map((m) => m.memberId)).toEqual(memberIds);
    await h.advance(sessionTimeoutMs);
    expect((await h.describe('g')).members).toEqual([]);
  });
});
