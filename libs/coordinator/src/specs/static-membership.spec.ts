import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

describe('static membership (KIP-345)', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
  });

  /** Two static members a-1 (leader) and b-1 in Stable. */
  async function staticGroup(
    overrides: { sessionTimeoutMs?: number; rebalanceTimeoutMs?: number } = {},
  ): Promise<{ a: string; b: string; generationId: number }> {
    const ja = h.join('g', '', { groupInstanceId: 'a-1', ...overrides });
    await h.settle();
    const jb = h.join('g', '', { groupInstanceId: 'b-1', ...overrides });
    await h.advance(0);
    const a = ja.value.memberId;
    const b = jb.value.memberId;
    expect(ja.value.leader).toBe(a);
    const generationId = ja.value.generationId;
    h.sync('g', b, generationId);
    h.sync('g', a, generationId, [
      { memberId: a, assignment: { partitions: [{ topic: 'orders', partitions: [0, 1] }] } },
      { memberId: b, assignment: { partitions: [{ topic: 'orders', partitions: [2, 3] }] } },
    ]);
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('Stable');
    return { a, b, generationId };
  }

  it('a static member skips KIP-394: its first JoinGroup joins with a generated `instanceId-uuid`', async () => {
    const join = h.join('g', '', { groupInstanceId: 'a-1' });
    await h.advance(0);
    expect(join.value.errorCode).toBe(0);
    expect(join.value.memberId).toMatch(/^a-1-/);
  });

  it('a known instance rejoining in Stable gets a new id and the current generation without a rebalance; the follower keeps its assignment', async () => {
    const { b, generationId } = await staticGroup();
    h.store.autoCommit = false;
    const restarted = h.join('g', '', { groupInstanceId: 'b-1' });
    await h.settle();
    expect(restarted.done).toBe(false); // the new member id is persisted first
    h.store.commitAll();
    await h.settle();
    expect(restarted.value).toMatchObject({ errorCode: 0, generationId, skipAssignment: false, members: [] });
    expect(restarted.value.memberId).not.toBe(b);
    expect((await h.describe('g')).groupState).toBe('Stable');
    const sync = h.sync('g', restarted.value.memberId, generationId, [], { groupInstanceId: 'b-1' });
    await h.settle();
    expect(sync.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [2, 3] }] });
  });

  it('the replaced member id is fenced: FENCED_INSTANCE_ID', async () => {
    const { b, generationId } = await staticGroup();
    h.join('g', '', { groupInstanceId: 'b-1' });
    await h.settle();
    expect((await h.heartbeat('g', b, generationId, 'b-1')).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const commit = h.commit('g', generationId, b, { orders: { 2: 1 } });
    await h.settle();
    expect(commit.value.topics[0].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a restarted static leader is told to skip the assignment (KIP-814) and still gets the members', async () => {
    const { generationId } = await staticGroup();
    const restarted = h.join('g', '', { groupInstanceId: 'a-1' });
    await h.settle();
    expect(restarted.value).toMatchObject({ errorCode: 0, generationId, skipAssignment: true });
    expect(restarted.value.leader).toBe(restarted.value.memberId);
    expect(restarted.value.members).toHaveLength(2);
  });

  it('a static member restarted before its first SyncGroup syncs under its new id, and the sync timeout then leaves the group alone', async () => {
    const ja = h.join('g', '', { groupInstanceId: 'a-1' });
    await h.settle();
    const jb = h.join('g', '', { groupInstanceId: 'b-1' });
    await h.advance(0);
    const [a, generationId] = [ja.value.memberId, ja.value.generationId];
    h.sync('g', a, generationId, [
      { memberId: a, assignment: { partitions: [{ topic: 'orders', partitions: [0, 1] }] } },
    ]);
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('Stable');
    // b restarts before it ever sent SyncGroup under its first id.
    const restarted = h.join('g', '', { groupInstanceId: 'b-1' });
    await h.settle();
    const b2 = restarted.value.memberId;
    expect(b2).not.toBe(jb.value.memberId);
    const sync = h.sync('g', b2, generationId, [], { groupInstanceId: 'b-1' });
    await h.settle();
    expect(sync.value.errorCode).toBe(0);
    for (let t = 0; t < 7; t++) {
      await h.advance(9_000); // the 60 s rebalance (sync) timeout passes; both keep heartbeating
      expect((await h.heartbeat('g', a, generationId, 'a-1')).errorCode).toBe(0);
      expect((await h.heartbeat('g', b2, generationId, 'b-1')).errorCode).toBe(0);
    }
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it('if persisting the new member id fails, the replacement is undone', async () => {
    const { b, generationId } = await staticGroup();
    h.store.failNextAppend(h.partitionOf('g'), new KafkaError(ErrorCode.NOT_ENOUGH_REPLICAS));
    const restarted = h.join('g', '', { groupInstanceId: 'b-1' });
    await h.settle();
    expect(restarted.value.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect((await h.heartbeat('g', b, generationId, 'b-1')).errorCode).toBe(0);
  });

  it('static members are not removed when a join phase completes without them; they stay until their session expires', async () => {
    const timeouts = { sessionTimeoutMs: 120_000, rebalanceTimeoutMs: 30_000 };
    const { a, b, generationId } = await staticGroup(timeouts);
    const leaderJoin = h.join('g', a, { groupInstanceId: 'a-1', ...timeouts });
    await h.advance(30_000); // the rebalance timeout passes: b did not rejoin
    expect(leaderJoin.value.generationId).toBe(generationId + 1);
    expect(leaderJoin.value.members.map((m) => m.memberId).sort()).toEqual([a, b].sort());
    // b never heartbeats: its session (120 s from its last sign of life) ends it.
    h.sync('g', a, generationId + 1, []);
    for (let t = 0; t < 4; t++) {
      await h.advance(25_000);
      await h.heartbeat('g', a, generationId + 1, 'a-1');
    }
    expect((await h.describe('g')).members.map((m) => m.memberId)).toEqual([a]);
  });

  it('an operator removes a static member by instance id (LeaveGroup with an empty member id)', async () => {
    const { a } = await staticGroup();
    const response = await h.coordinator.leaveGroup(
      {
        groupId: 'g',
        members: [
          { memberId: '', groupInstanceId: 'b-1', reason: 'decommissioned' },
          { memberId: '', groupInstanceId: 'zz-9' },
        ],
      },
      h.context(),
    );
    expect(response.members).toEqual([
      { memberId: '', groupInstanceId: 'b-1', errorCode: 0 },
      { memberId: '', groupInstanceId: 'zz-9', errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
    ]);
    const described = await h.describe('g');
    expect(described.groupState).toBe('PreparingRebalance');
    expect(described.members.map((m) => m.memberId)).toEqual([a]);
  });

  it('a request pairing an instance id with another member id is FENCED_INSTANCE_ID; an unknown instance is UNKNOWN_MEMBER_ID', async () => {
    const { a, b, generationId } = await staticGroup();
    expect((await h.heartbeat('g', a, generationId, 'b-1')).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await h.heartbeat('g', b, generationId, 'c-1')).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const leave = await h.coordinator.leaveGroup(
      { groupId: 'g', members: [{ memberId: a, groupInstanceId: 'b-1' }] },
      h.context(),
    );
    expect(leave.members[0].errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });
});
