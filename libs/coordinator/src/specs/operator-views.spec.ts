import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

describe('operator views (REST) and DescribeGroups / ListGroups', () => {
  let h: CoordinatorHarness;
  const completed: [string, number][] = [];
  beforeEach(async () => {
    completed.length = 0;
    h = new CoordinatorHarness({
      config: { groupInitialRebalanceDelayMs: 3000 },
      metrics: { onRebalanceCompleted: (g, d) => completed.push([g, d]) },
    });
    await h.settle();
  });

  it('describeGroup shows members with subscription and assignment; unknown groups are GROUP_ID_NOT_FOUND', async () => {
    const { memberIds, leader } = await h.stableGroup('g', 2);
    const view = await h.coordinator.describeGroup('g');
    expect(view).toMatchObject({
      groupId: 'g',
      state: 'Stable',
      protocolType: 'consumer',
      protocol: 'range',
      generationId: 1,
      leader,
      coordinatorPartition: h.partitionOf('g'),
    });
    expect(view.members.map((m) => [m.memberId, m.subscription, m.assignment])).toEqual([
      [memberIds[0], { topics: ['orders'] }, { partitions: [{ topic: 'orders', partitions: [0] }] }],
      [memberIds[1], { topics: ['orders'] }, { partitions: [{ topic: 'orders', partitions: [1] }] }],
    ]);
    await expect(h.coordinator.describeGroup('missing')).rejects.toMatchObject({
      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
    });
    h.store.resign(h.partitionOf('g'));
    await expect(h.coordinator.describeGroup('g')).rejects.toMatchObject({ errorCode: ErrorCode.NOT_COORDINATOR });
  });

  it('DescribeGroups carries metadata and assignments only while Stable; an unknown group is Dead', async () => {
    const { memberIds } = await h.stableGroup('g', 2);
    const stable = await h.describe('g');
    expect(stable).toMatchObject({
      errorCode: 0,
      groupState: 'Stable',
      protocolType: 'consumer',
      protocolData: 'range',
    });
    expect(stable.members[0]).toEqual({
      memberId: memberIds[0],
      groupInstanceId: null,
      clientId: 'client',
      clientHost: '/127.0.0.1',
      memberMetadata: { topics: ['orders'] },
      memberAssignment: { partitions: [{ topic: 'orders', partitions: [0] }] },
    });
    h.join('g', memberIds[0]);
    await h.settle();
    const preparing = await h.describe('g');
    expect(preparing).toMatchObject({ groupState: 'PreparingRebalance', protocolData: '' });
    expect(preparing.members[0]).toMatchObject({ memberMetadata: null, memberAssignment: null });
    expect(await h.describe('missing')).toEqual({
      errorCode: 0,
      groupId: 'missing',
      groupState: 'Dead',
      protocolType: '',
      protocolData: '',
      members: [],
    });
  });

  it('ListGroups and listGroupSummaries filter by state (case-insensitive on the wire)', async () => {
    await h.stableGroup('stable-group', 1);
    h.commit('simple', -1, '', { orders: { 0: 1 } });
    await h.settle();
    const listed = await h.coordinator.listGroups({ statesFilter: ['stable'] });
    expect(listed).toEqual({
      errorCode: 0,
      groups: [{ groupId: 'stable-group', protocolType: 'consumer', groupState: 'Stable', groupType: 'classic' }],
    });
    expect((await h.coordinator.listGroups({})).groups.map((g) => g.groupId).sort()).toEqual([
      'simple',
      'stable-group',
    ]);
    expect(await h.coordinator.listGroupSummaries(['Empty'])).toEqual([
      { groupId: 'simple', type: 'classic', protocolType: null, state: 'Empty', members: 0 },
    ]);
  });

  it('resetOffsets sets offsets of an Empty or absent group only; otherwise NON_EMPTY_GROUP', async () => {
    const response = await h.coordinator.resetOffsets('fresh', [
      { name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 5 }] },
    ]);
    expect(response.topics[0].partitions[0].errorCode).toBe(0);
    expect(await h.coordinator.committedOffsets('fresh')).toEqual([
      {
        topic: 'orders',
        partition: 0,
        committedOffset: 5,
        leaderEpoch: -1,
        metadata: '',
        commitTimestamp: h.clock.now(),
      },
    ]);
    await h.stableGroup('busy', 1);
    await expect(
      h.coordinator.resetOffsets('busy', [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1 }] }]),
    ).rejects.toMatchObject({
      errorCode: ErrorCode.NON_EMPTY_GROUP,
    });
    expect(await h.coordinator.committedOffsets('busy')).toEqual([]);
  });

  it('rebalanceHistory keeps each rebalance with its reason, timing, members and protocol; metrics get the duration', async () => {
    const start = h.clock.now();
    await h.joinNew('g');
    await h.joinNew('g');
    await h.advance(3000); // b joined during the initial delay: it is extended by another 3 s
    const [a, b] = (await h.coordinator.describeGroup('g')).members.map((m) => m.memberId);
    expect(await h.coordinator.rebalanceHistory('g')).toEqual([
      {
        generationId: 0,
        reason: expect.stringContaining(`Adding new member ${a}`),
        startedAt: start,
        completedAt: null,
        durationMs: null,
        members: 1,
        protocol: null,
      },
    ]);
    await h.advance(3000);
    await h.advance(500);
    h.sync('g', b, 1);
    h.sync('g', a, 1, []);
    await h.settle();
    expect(await h.coordinator.rebalanceHistory('g')).toEqual([
      {
        generationId: 1,
        reason: expect.stringContaining('Adding new member'),
        startedAt: start,
        completedAt: start + 6500,
        durationMs: 6500,
        members: 2,
        protocol: 'range',
      },
    ]);
    expect(completed).toEqual([['g', 6500]]);
    await expect(h.coordinator.rebalanceHistory('missing')).rejects.toMatchObject({
      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
    });
  });
});
