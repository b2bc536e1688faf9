import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

describe('JoinGroup', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
  });

  it('KIP-394: a new dynamic member gets MEMBER_ID_REQUIRED carrying its member id `clientId-uuid`, and nothing else changes', async () => {
    const response = await h.coordinator.joinGroup(h.joinRequest('g'), h.context(undefined, 'billing-app'));
    expect(response.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    expect(response.errorName).toBe('MEMBER_ID_REQUIRED');
    expect(response.memberId).toMatch(
      /^billing-app-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    expect((await h.describe('g')).members).toEqual([]);
    expect((await h.describe('g')).groupState).toBe('Empty');
  });

  it('KIP-394: a member id that is never used expires after the session timeout', async () => {
    const first = await h.coordinator.joinGroup(h.joinRequest('g', { sessionTimeoutMs: 8000 }), h.context());
    await h.advance(8000);
    const late = h.join('g', first.memberId);
    await h.settle();
    expect(late.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('KIP-394: a join phase cannot complete while a handed-out member id has not joined', async () => {
    const { memberIds } = await h.stableGroup('g', 1);
    const pending = await h.coordinator.joinGroup(h.joinRequest('g'), h.context());
    const join = h.join('g', memberIds[0]); // the leader rejoins: rebalance
    await h.settle();
    expect(join.done).toBe(false);
    const newcomer = h.join('g', pending.memberId);
    await h.settle();
    expect(join.value.members.map((m) => m.memberId).sort()).toEqual([memberIds[0], pending.memberId].sort());
    expect(newcomer.value.errorCode).toBe(0);
  });

  it('a known member id for a group that does not exist is UNKNOWN_MEMBER_ID, and creates nothing', async () => {
    const join = h.join('nope', 'client-1234');
    await h.settle();
    expect(join.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await h.describe('nope')).groupState).toBe('Dead');
  });

  it.each([5999, 1_800_001])(
    'a session timeout of %i ms is outside the allowed range: INVALID_SESSION_TIMEOUT',
    async (sessionTimeoutMs) => {
      const response = await h.coordinator.joinGroup(h.joinRequest('g', { sessionTimeoutMs }), h.context());
      expect(response.errorCode).toBe(ErrorCode.INVALID_SESSION_TIMEOUT);
      expect(response.errorMessage).toContain('[6000, 1800000]');
    },
  );

  it("an empty group id is INVALID_GROUP_ID; protocols named twice are INVALID_REQUEST (the shape is the transport DTO's)", async () => {
    expect((await h.coordinator.joinGroup(h.joinRequest(''), h.context())).errorCode).toBe(ErrorCode.INVALID_GROUP_ID);
    const dup = await h.coordinator.joinGroup(
      h.joinRequest('g', {
        protocols: [
          { name: 'range', metadata: {} },
          { name: 'range', metadata: {} },
        ],
      }),
      h.context(),
    );
    expect(dup.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(dup.errorMessage).toContain('distinct');
    expect((await h.describe('g')).groupState).toBe('Dead');
  });

  it('the first member must name a protocol type and protocols; later members must share the type and one protocol', async () => {
    expect((await h.coordinator.joinGroup(h.joinRequest('g', { protocols: [] }), h.context())).errorCode).toBe(
      ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    );
    expect((await h.coordinator.joinGroup(h.joinRequest('g', { protocolType: '' }), h.context())).errorCode).toBe(
      ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
    );
    await h.stableGroup('g', 1);
    const otherType = await h.coordinator.joinGroup(h.joinRequest('g', { protocolType: 'connect' }), h.context());
    expect(otherType.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const noCommon = await h.coordinator.joinGroup(
      h.joinRequest('g', { protocols: [{ name: 'sticky', metadata: { topics: ['orders'] } }] }),
      h.context(),
    );
    expect(noCommon.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it.each([
    [['range,roundrobin', 'roundrobin,range', 'roundrobin,range'], 'roundrobin'],
    [['range,roundrobin', 'range,roundrobin', 'roundrobin,range'], 'range'],
    // sticky is not supported by everyone: the vote is among the common protocols only.
    [['sticky,roundrobin', 'sticky,roundrobin', 'roundrobin,range'], 'roundrobin'],
  ])('the protocol is chosen by vote: members preferring %j elect %s', async (preferences, winner) => {
    const joins = [];
    for (const preference of preferences) {
      const protocols = preference.split(',').map((name) => ({ name, metadata: { topics: ['orders'] } }));
      joins.push(await h.joinNew('g', { protocols }));
    }
    await h.advance(0);
    expect(joins.map((j) => j.join.value.protocolName)).toEqual([winner, winner, winner]);
  });

  it('only the leader receives member metadata (for the chosen protocol, with instance ids)', async () => {
    const a = await h.joinNew('g', { protocols: [{ name: 'range', metadata: { topics: ['orders'], userData: 'a' } }] });
    const s = h.join('g', '', {
      groupInstanceId: 'static-1',
      protocols: [{ name: 'range', metadata: { topics: ['orders'], userData: 's' } }],
    });
    await h.advance(0);
    expect(a.join.value.leader).toBe(a.memberId);
    expect(a.join.value.members).toEqual([
      { memberId: a.memberId, groupInstanceId: null, metadata: { topics: ['orders'], userData: 'a' } },
      { memberId: s.value.memberId, groupInstanceId: 'static-1', metadata: { topics: ['orders'], userData: 's' } },
    ]);
    expect(s.value.members).toEqual([]);
    expect(s.value.memberId).toMatch(/^static-1-/);
  });

  it('the leader is kept when it rejoins', async () => {
    const { leader, memberIds } = await h.stableGroup('g', 3);
    const joins = memberIds.map((m) => h.join('g', m));
    await h.settle();
    expect(joins.every((j) => j.value.leader === leader)).toBe(true);
  });

  it('GROUP_MAX_SIZE: a new member beyond the limit gets GROUP_MAX_SIZE_REACHED', async () => {
    const small = new CoordinatorHarness({ config: { groupMaxSize: 2 } });
    await small.settle();
    await small.stableGroup('g', 2);
    const third = await small.coordinator.joinGroup(small.joinRequest('g'), small.context());
    expect(third.errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    expect((await small.describe('g')).members).toHaveLength(2);
    expect((await small.describe('g')).groupState).toBe('Stable');
  });

  it('GROUP_MAX_SIZE while preparing: members are accepted until that many have rejoined', async () => {
    const small = new CoordinatorHarness({ config: { groupMaxSize: 1, groupInitialRebalanceDelayMs: 3000 } });
    await small.settle();
    const a = await small.joinNew('g');
    const first = await small.coordinator.joinGroup(small.joinRequest('g'), small.context());
    const b = small.join('g', first.memberId);
    await small.settle();
    expect(b.value.errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    await small.advance(3000);
    expect(a.join.value.errorCode).toBe(0);
  });

  it('a parked JoinGroup replaced by a newer one of the same member is answered, not left hanging', async () => {
    const { memberIds } = await h.stableGroup('g', 2);
    const older = h.join('g', memberIds[0]);
    await h.settle();
    const newer = h.join('g', memberIds[0]);
    await h.settle();
    expect(older.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(newer.done).toBe(false);
    h.join('g', memberIds[1]);
    await h.settle();
    expect(newer.value.errorCode).toBe(0);
  });
});
