import type { MemberAssignment } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { ServerAssignor } from '../ports/server-assignor.port';
import { CoordinatorHarness } from '../testing/coordinator-harness';

/** `[[[…1…]]]`, `depth` arrays deep: valid JSON on the wire, but deeper than JSON.stringify can write back. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

/** Two dynamic members in CompletingRebalance: the leader and the follower, both with their JoinGroup answered. */
async function completing(h: CoordinatorHarness): Promise<{ leader: string; follower: string }> {
  const a = await h.joinNew('g');
  const b = await h.joinNew('g');
  await h.advance(0);
  const leader = a.join.value.leader;
  return { leader, follower: leader === a.memberId ? b.memberId : a.memberId };
}

describe('hostile input never wedges a group (SPEC §6: a clear error, nothing else changes)', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
  });

  it('JoinGroup metadata nested deeper than can be stored is INVALID_REQUEST naming the field, and no group is created', async () => {
    const response = await h.coordinator.joinGroup(h.joinRequest('g', { protocols: [{ name: 'range', metadata: { topics: ['orders'], userData: nested(20_000) } }] }), h.context());
    expect(response.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(response.errorMessage).toContain('protocols[0].metadata');
    expect((await h.describe('g')).groupState).toBe('Dead');
  });

  it('JoinGroup metadata that is not JSON (binary, a class instance) is INVALID_REQUEST', async () => {
    for (const metadata of [Buffer.from('abc'), new Map([['topics', ['orders']]]), { topics: ['orders'], n: Number.NaN }]) {
      const response = await h.coordinator.joinGroup(h.joinRequest('g', { protocols: [{ name: 'range', metadata }] }), h.context());
      expect(response.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    }
  });

  it("a leader's SyncGroup whose assignment cannot be stored is INVALID_REQUEST; the followers are not left waiting and the leader can sync again", async () => {
    const { leader, follower } = await completing(h);
    const followerSync = h.sync('g', follower, 1);
    const bad = h.sync('g', leader, 1, [{ memberId: follower, assignment: nested(20_000) }]);
    await h.settle();
    expect(bad.value.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(bad.value.errorMessage).toContain('assignments[0].assignment');
    expect(followerSync.done).toBe(false);
    const good = h.sync('g', leader, 1, [{ memberId: follower, assignment: { partitions: [{ topic: 'orders', partitions: [0] }] } }]);
    await h.settle();
    expect(good.value.errorCode).toBe(0);
    expect(followerSync.value).toMatchObject({ errorCode: 0, assignment: { partitions: [{ topic: 'orders', partitions: [0] }] } });
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it('a server assignor whose userData cannot be stored fails the join phase with the reason instead of leaving every JoinGroup parked', async () => {
    const bigUserData: ServerAssignor = {
      name: 'big',
      assign: (_cluster, members) =>
        Object.fromEntries(members.map((m): [string, MemberAssignment] => [m.memberId, { partitions: [], userData: { weight: BigInt(1) } }])),
    };
    const withPlugin = new CoordinatorHarness({ assignors: [bigUserData] });
    await withPlugin.settle();
    const a = await withPlugin.joinNew('g', { serverAssignor: 'big' });
    const b = await withPlugin.joinNew('g', { serverAssignor: 'big' });
    await withPlugin.advance(0);
    for (const join of [a.join, b.join]) {
      expect(join.value.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
      expect(join.value.errorMessage).toContain('userData');
    }
    expect((await withPlugin.describe('g')).groupState).toBe('PreparingRebalance');
  });
});

describe('a group record that cannot be encoded (defence in depth behind the request checks)', () => {
  it("fails the leader's SyncGroup like a refused write: every parked SyncGroup is answered and the group rebalances", async () => {
    const h = new CoordinatorHarness();
    await h.settle();
    const { leader, follower } = await completing(h);
    // White box: a value no request can bring in any more, planted to stand for a future gap in the checks.
    h.shardOf('g').group('g')!.get(follower)!.supportedProtocols = [{ name: 'range', metadata: { topics: ['orders'], n: BigInt(1) } }];
    const followerSync = h.sync('g', follower, 1);
    const leaderSync = h.sync('g', leader, 1, []);
    await h.settle();
    expect(leaderSync.value.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(followerSync.value.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });
});
