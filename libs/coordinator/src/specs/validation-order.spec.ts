import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/** Two static members a-1 (leader) and b-1, Stable at generation 1. */
async function staticGroup(h: CoordinatorHarness): Promise<{ a: string; b: string; generationId: number }> {
  const ja = h.join('g', '', { groupInstanceId: 'a-1' });
  await h.settle();
  const jb = h.join('g', '', { groupInstanceId: 'b-1' });
  await h.advance(0);
  const [a, b, generationId] = [ja.value.memberId, jb.value.memberId, ja.value.generationId];
  h.sync('g', a, generationId, []);
  h.sync('g', b, generationId, [], { groupInstanceId: 'b-1' });
  await h.settle();
  return { a, b, generationId };
}

describe('validation order and codes (Kafka validateGroupStatus / validateMember)', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness();
    await h.settle();
  });

  it('every member request pairing an instance id with another member id is FENCED_INSTANCE_ID, even with a wrong generation', async () => {
    const { a, generationId } = await staticGroup(h);
    const fenced = { groupInstanceId: 'b-1' };
    const join = h.join('g', a, fenced);
    const sync = h.sync('g', a, generationId + 5, [], fenced);
    const heartbeat = await h.coordinator.heartbeat(
      { groupId: 'g', memberId: a, generationId: generationId + 5, ...fenced },
      h.context(),
    );
    const leave = await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: a, ...fenced }] }, h.context());
    const commit = await h.coordinator.offsetCommit(
      {
        groupId: 'g',
        generationId: generationId + 5,
        memberId: a,
        ...fenced,
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1 }] }],
      },
      h.context(),
    );
    await h.settle();
    expect([
      join.value.errorCode,
      sync.value.errorCode,
      heartbeat.errorCode,
      leave.members[0].errorCode,
      commit.topics[0].partitions[0].errorCode,
    ]).toEqual(Array(5).fill(ErrorCode.FENCED_INSTANCE_ID));
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it('an instance id the group does not know is UNKNOWN_MEMBER_ID on every member request', async () => {
    const { a, generationId } = await staticGroup(h);
    const stranger = { groupInstanceId: 'z-9' };
    const join = h.join('g', a, stranger);
    const sync = h.sync('g', a, generationId, [], stranger);
    const heartbeat = await h.coordinator.heartbeat(
      { groupId: 'g', memberId: a, generationId, ...stranger },
      h.context(),
    );
    const commit = await h.coordinator.offsetCommit(
      {
        groupId: 'g',
        generationId,
        memberId: a,
        ...stranger,
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1 }] }],
      },
      h.context(),
    );
    await h.settle();
    expect([
      join.value.errorCode,
      sync.value.errorCode,
      heartbeat.errorCode,
      commit.topics[0].partitions[0].errorCode,
    ]).toEqual(Array(4).fill(ErrorCode.UNKNOWN_MEMBER_ID));
  });

  it('JoinGroup checks the protocol before the member: a fenced member with a foreign protocol type is INCONSISTENT_GROUP_PROTOCOL', async () => {
    const { a } = await staticGroup(h);
    const join = h.join('g', a, { groupInstanceId: 'b-1', protocolType: 'connect' });
    await h.settle();
    expect(join.value.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });

  it('the member is checked before the generation, the generation before the state', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 2);
    h.join('g', memberIds[0]); // the group is now PreparingRebalance
    await h.settle();
    expect((await h.heartbeat('g', 'client-stranger', generationId + 1)).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await h.heartbeat('g', memberIds[1], generationId + 1)).errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await h.heartbeat('g', memberIds[1], generationId)).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const stale = h.sync('g', memberIds[1], generationId + 1);
    await h.settle();
    expect(stale.value.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  describe('before any group is looked at: group id, then started, then loaded, then led here', () => {
    it('an empty group id is INVALID_GROUP_ID for Join, Sync, Heartbeat, Leave and OffsetDelete, even on a stopped coordinator', async () => {
      h.coordinator.close();
      const join = await h.coordinator.joinGroup(h.joinRequest(''), h.context());
      const sync = await h.coordinator.syncGroup(
        { groupId: '', generationId: 1, memberId: 'm', assignments: [] },
        h.context(),
      );
      const heartbeat = await h.coordinator.heartbeat({ groupId: '', generationId: 1, memberId: 'm' }, h.context());
      const leave = await h.coordinator.leaveGroup({ groupId: '', members: [{ memberId: 'm' }] }, h.context());
      const offsetDelete = await h.coordinator.offsetDelete({ groupId: '', topics: [] });
      expect([join, sync, heartbeat, leave, offsetDelete].map((r) => r.errorCode)).toEqual(
        Array(5).fill(ErrorCode.INVALID_GROUP_ID),
      );
    });

    it('an empty group id is a group like any other for OffsetCommit, OffsetFetch, DescribeGroups and DeleteGroups', async () => {
      const commit = await h.coordinator.offsetCommit(
        {
          groupId: '',
          generationId: -1,
          topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 4 }] }],
        },
        h.context(),
      );
      expect(commit.errorCode).toBe(0);
      expect(
        (await h.fetch('', [{ name: 'orders', partitionIndexes: [0] }])).topics[0].partitions[0].committedOffset,
      ).toBe(4);
      expect((await h.describe('')).groupState).toBe('Empty');
      expect((await h.coordinator.deleteGroups({ groupsNames: [''] })).results).toEqual([
        { groupId: '', errorCode: 0 },
      ]);
    });

    it("ConsumerGroupHeartbeat and ShareGroupHeartbeat check their ids themselves, as Kafka's do: an empty group id is INVALID_REQUEST, after an empty member id, even where a classic group '' exists", async () => {
      await h.coordinator.offsetCommit(
        {
          groupId: '',
          generationId: -1,
          topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1 }] }],
        },
        h.context(),
      );
      const consumer = (groupId: string, memberId: string) =>
        h.coordinator.consumerGroupHeartbeat(
          {
            groupId,
            memberId,
            memberEpoch: 0,
            rebalanceTimeoutMs: 30_000,
            subscribedTopicNames: ['orders'],
            topicPartitions: [],
          },
          h.context(),
        );
      const share = (groupId: string, memberId: string) =>
        h.coordinator.shareGroupHeartbeat(
          { groupId, memberId, memberEpoch: 0, subscribedTopicNames: ['orders'] },
          h.context(),
        );
      for (const answer of [await consumer('', 'm-1'), await share('', 'm-1')])
        expect(answer).toMatchObject({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: "GroupId can't be empty." });
      for (const answer of [await consumer('', ''), await share('', '')])
        expect(answer).toMatchObject({
          errorCode: ErrorCode.INVALID_REQUEST,
          errorMessage: "MemberId can't be empty.",
        });
      // Checked before the group is looked up: '' names a classic group, yet the answer is about the request.
      expect((await h.describe('')).groupState).toBe('Empty');
    });

    it('a stopped coordinator answers COORDINATOR_NOT_AVAILABLE', async () => {
      h.coordinator.close();
      const heartbeat = await h.coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: 'm' }, h.context());
      const fetch = await h.fetch('g');
      expect([heartbeat.errorCode, fetch.errorCode]).toEqual([
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
      ]);
    });

    it('a partition led elsewhere is NOT_COORDINATOR for every group request', async () => {
      h.store.resign(h.partitionOf('g'));
      await h.settle();
      const join = await h.coordinator.joinGroup(h.joinRequest('g'), h.context());
      const sync = await h.coordinator.syncGroup(
        { groupId: 'g', generationId: 1, memberId: 'm', assignments: [] },
        h.context(),
      );
      const heartbeat = await h.coordinator.heartbeat({ groupId: 'g', generationId: 1, memberId: 'm' }, h.context());
      const leave = await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: 'm' }] }, h.context());
      const commit = await h.coordinator.offsetCommit(
        {
          groupId: 'g',
          generationId: -1,
          topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1 }] }],
        },
        h.context(),
      );
      const fetch = await h.fetch('g');
      const offsetDelete = await h.coordinator.offsetDelete({ groupId: 'g', topics: [] });
      const deleted = await h.coordinator.deleteGroups({ groupsNames: ['g'] });
      expect([join, sync, heartbeat, leave, commit, fetch, offsetDelete].map((r) => r.errorCode)).toEqual(
        Array(7).fill(ErrorCode.NOT_COORDINATOR),
      );
      expect(deleted.results[0].errorCode).toBe(ErrorCode.NOT_COORDINATOR);
      expect(commit.topics[0].partitions[0].errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    });
  });
});
