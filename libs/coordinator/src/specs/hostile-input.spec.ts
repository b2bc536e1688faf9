import type { MemberAssignment } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { ServerAssignor } from '../ports/server-assignor.port';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/** `[[[…1…]]]`, `depth` arrays deep: valid JSON on the wire, but deeper than JSON.stringify can write back. */
function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = [value];
  return value;
}

describe('hostile input never wedges a group (docs/guarantees.md: a clear error, nothing else changes)', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
  });

  it('JoinGroup metadata nested deeper than can be stored is INVALID_REQUEST naming the field, and no group is created', async () => {
    const response = await h.coordinator.joinGroup(
      h.joinRequest('g', {
        protocols: [{ name: 'range', metadata: { topics: ['orders'], userData: nested(20_000) } }],
      }),
      h.context(),
    );
    expect(response.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(response.errorMessage).toContain('protocols[0].metadata');
    expect((await h.describe('g')).groupState).toBe('Dead');
  });

  it('a consumer JoinGroup whose metadata is not a subscription is INVALID_REQUEST naming the field; a known member starts no generation', async () => {
    const { leader, follower } = await h.completingGroup('g');
    const sync = h.sync('g', leader, 1, [{ memberId: follower, assignment: { partitions: [] } }]);
    h.sync('g', follower, 1);
    await h.settle();
    expect(sync.value.errorCode).toBe(0);
    for (const [metadata, field] of [
      [{ topics: 5 }, 'metadata.topics'],
      [{ topics: [null] }, 'metadata.topics[0]'],
      [7, 'metadata'],
    ] as const) {
      const join = h.join('g', follower, { protocols: [{ name: 'range', metadata }] });
      await h.settle();
      expect(join.value).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST });
      expect(join.value.errorMessage).toContain(`protocols[0].${field}`);
    }
    const joinWithAssignor = await h.coordinator.joinGroup(
      h.joinRequest('other', { serverAssignor: 'range', protocols: [{ name: 'range', metadata: 7 }] }),
      h.context(),
    );
    expect(joinWithAssignor.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(await h.describe('g')).toMatchObject({ groupState: 'Stable' });
    expect((await h.describe('other')).groupState).toBe('Dead');
  });

  it("a consumer leader's SyncGroup with an assignment that is not one is INVALID_REQUEST and the group stays CompletingRebalance", async () => {
    const { leader, follower } = await h.completingGroup('g');
    const bad = h.sync('g', leader, 1, [{ memberId: follower, assignment: { partitions: 5 } }]);
    await h.settle();
    expect(bad.value.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(bad.value.errorMessage).toContain('assignments[0].assignment.partitions');
    expect((await h.describe('g')).groupState).toBe('CompletingRebalance');
  });

  it('JoinGroup metadata that is not JSON (binary, a class instance) is INVALID_REQUEST', async () => {
    for (const metadata of [
      Buffer.from('abc'),
      new Map([['topics', ['orders']]]),
      { topics: ['orders'], n: Number.NaN },
    ]) {
      const response = await h.coordinator.joinGroup(
        h.joinRequest('g', { protocols: [{ name: 'range', metadata }] }),
        h.context(),
      );
      expect(response.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    }
  });

  it("a leader's SyncGroup whose assignment cannot be stored is INVALID_REQUEST; the followers are not left waiting and the leader can sync again", async () => {
    const { leader, follower } = await h.completingGroup('g');
    const followerSync = h.sync('g', follower, 1);
    const bad = h.sync('g', leader, 1, [{ memberId: follower, assignment: nested(20_000) }]);
    await h.settle();
    expect(bad.value.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(bad.value.errorMessage).toContain('assignments[0].assignment');
    expect(followerSync.done).toBe(false);
    const good = h.sync('g', leader, 1, [
      { memberId: follower, assignment: { partitions: [{ topic: 'orders', partitions: [0] }] } },
    ]);
    await h.settle();
    expect(good.value.errorCode).toBe(0);
    expect(followerSync.value).toMatchObject({
      errorCode: 0,
      assignment: { partitions: [{ topic: 'orders', partitions: [0] }] },
    });
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it('a server assignor whose userData cannot be stored fails the join phase with the reason instead of leaving every JoinGroup parked', async () => {
    const bigUserData: ServerAssignor = {
      name: 'big',
      assign: (_cluster, members) =>
        Object.fromEntries(
          members.map((m): [string, MemberAssignment] => [
            m.memberId,
            { partitions: [], userData: { weight: BigInt(1) } },
          ]),
        ),
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
    const { leader, follower } = await h.completingGroup('g');
    // White box: a value no request can bring in any more, planted to stand for a future gap in the checks.
    h.shardOf('g').group('g')!.get(follower)!.supportedProtocols = [
      { name: 'range', metadata: { topics: ['orders'], n: BigInt(1) } },
    ];
    const followerSync = h.sync('g', follower, 1);
    const leaderSync = h.sync('g', leader, 1, []);
    await h.settle();
    expect(leaderSync.value.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect(followerSync.value.errorCode).toBe(ErrorCode.UNKNOWN_SERVER_ERROR);
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });
});

describe('odd but well-formed input', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [
        { name: 'orders', partitions: 4 },
        { name: '__proto__', partitions: 1 },
      ],
    });
    await h.settle();
  });

  it('a partition named twice in one OffsetCommit: both entries are answered and the later one is the committed offset', async () => {
    const response = await h.coordinator.offsetCommit(
      {
        groupId: 'simple',
        generationId: -1,
        topics: [
          {
            name: 'orders',
            partitions: [
              { partitionIndex: 0, committedOffset: 5 },
              { partitionIndex: 0, committedOffset: 9 },
            ],
          },
        ],
      },
      h.context(),
    );
    expect(response.topics[0].partitions).toEqual([
      { partitionIndex: 0, errorCode: 0 },
      { partitionIndex: 0, errorCode: 0 },
    ]);
    const fetched = await h.fetch('simple', [{ name: 'orders', partitionIndexes: [0] }], true);
    expect(fetched.topics[0].partitions[0]).toMatchObject({ committedOffset: 9, errorCode: 0 });
    await h.restart();
    expect(
      (await h.fetch('simple', [{ name: 'orders', partitionIndexes: [0] }])).topics[0].partitions[0].committedOffset,
    ).toBe(9);
  });

  it("a member named twice in the leader's assignments gets the later one; an unknown member id in them is ignored", async () => {
    const { leader, follower } = await h.completingGroup('g');
    const followerSync = h.sync('g', follower, 1);
    h.sync('g', leader, 1, [
      { memberId: follower, assignment: { partitions: [{ topic: 'orders', partitions: [0] }] } },
      { memberId: 'client-stranger', assignment: { partitions: [{ topic: 'orders', partitions: [1] }] } },
      { memberId: follower, assignment: { partitions: [{ topic: 'orders', partitions: [2] }] } },
    ]);
    await h.settle();
    expect(followerSync.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [2] }] });
    expect((await h.describe('g')).members.map((m) => m.memberId).sort()).toEqual([leader, follower].sort());
  });

  it('`__proto__` works as a group id, a member id in assignments, a topic and a metadata key', async () => {
    const a = await h.joinNew('__proto__', {
      protocols: [{ name: 'range', metadata: JSON.parse('{"topics":["__proto__"],"__proto__":{"x":1}}') as unknown }],
    });
    await h.advance(0);
    expect(a.join.value.errorCode).toBe(0);
    const sync = h.sync('__proto__', a.memberId, 1, [
      { memberId: '__proto__', assignment: { partitions: [] } },
      { memberId: a.memberId, assignment: { partitions: [{ topic: '__proto__', partitions: [0] }] } },
    ]);
    await h.settle();
    expect(sync.value.assignment).toEqual({ partitions: [{ topic: '__proto__', partitions: [0] }] });
    const commit = await h.coordinator.offsetCommit(
      {
        groupId: '__proto__',
        generationId: 1,
        memberId: a.memberId,
        topics: [{ name: '__proto__', partitions: [{ partitionIndex: 0, committedOffset: 3 }] }],
      },
      h.contextOf(a.memberId),
    );
    expect(commit.topics[0].partitions[0].errorCode).toBe(0);
    await h.restart();
    expect((await h.fetch('__proto__', null)).topics).toEqual([
      {
        name: '__proto__',
        partitions: [{ partitionIndex: 0, committedOffset: 3, committedLeaderEpoch: -1, metadata: '', errorCode: 0 }],
      },
    ]);
    const subscription = (await h.coordinator.describeGroup('__proto__')).members[0].subscription as object;
    expect(Object.getOwnPropertyDescriptor(subscription, '__proto__')?.value).toEqual({ x: 1 });
  });
});
