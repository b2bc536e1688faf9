import { ErrorCode } from '@cohort/protocol';
import { groupMetadataKey, offsetCommitKey } from '../records/record-codec';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

describe('loading a partition (failover, restart)', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness({ config: { loadBatchRecords: 3 } });
    await h.settle();
  });

  it('groups come back Stable at their last persisted generation, with members, leader, protocol, assignments and offsets', async () => {
    const { memberIds, leader, generationId } = await h.stableGroup('g', 3);
    h.commit('g', generationId, memberIds[1], { orders: { 1: 11, 2: 22 } });
    await h.settle();
    const before = await h.coordinator.describeGroup('g');
    await h.restart();
    const after = await h.coordinator.describeGroup('g');
    expect(after).toEqual(before);
    expect(after).toMatchObject({ state: 'Stable', generationId, leader, protocol: 'range' });
    expect(
      (await h.fetch('g', [{ name: 'orders', partitionIndexes: [1, 2] }])).topics[0].partitions.map(
        (p) => p.committedOffset,
      ),
    ).toEqual([11, 22]);
    // Members carry on with the same generation.
    expect((await h.heartbeat('g', memberIds[0], generationId)).errorCode).toBe(0);
    const sync = h.sync('g', memberIds[2], generationId);
    await h.settle();
    expect(sync.value.assignment).toEqual({ partitions: [{ topic: 'orders', partitions: [2] }] });
  });

  it('session timers are re-armed from the load: silent members expire one session timeout later', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 2, { sessionTimeoutMs: 10_000 });
    await h.advance(9000);
    await h.restart();
    await h.advance(9000);
    expect((await h.heartbeat('g', memberIds[0], generationId)).errorCode).toBe(0);
    await h.advance(1000);
    expect((await h.describe('g')).members.map((m) => m.memberId)).toEqual([memberIds[0]]);
  });

  it('a rebalance in progress is not persisted: the group comes back Stable at the last generation', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 2);
    h.join('g', memberIds[0]);
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
    await h.restart();
    expect(await h.coordinator.describeGroup('g')).toMatchObject({ state: 'Stable', generationId });
  });

  it('deleted groups and offsets stay deleted; offsets without a group record make an Empty offsets-only group', async () => {
    h.commit('simple', -1, '', { orders: { 0: 5, 1: 6 } });
    await h.settle();
    await h.coordinator.offsetDelete({
      groupId: 'simple',
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 1 }] }],
    });
    const { memberIds } = await h.stableGroup('gone', 1);
    await h.coordinator.leaveGroup({ groupId: 'gone', members: [{ memberId: memberIds[0] }] }, h.context());
    await h.settle();
    expect((await h.coordinator.deleteGroups({ groupsNames: ['gone'] })).results[0].errorCode).toBe(0);
    await h.restart();
    expect((await h.describe('gone')).groupState).toBe('Dead');
    expect(await h.describe('simple')).toMatchObject({ groupState: 'Empty', protocolType: '' });
    expect((await h.fetch('simple', null)).topics).toEqual([
      {
        name: 'orders',
        partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, metadata: '', errorCode: 0 }],
      },
    ]);
  });

  it('while the records read at election are not yet committed, the partition answers COORDINATOR_LOAD_IN_PROGRESS (Heartbeat NONE, SyncGroup REBALANCE_IN_PROGRESS)', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    const partition = h.partitionOf('g');
    h.store.autoCommit = false;
    h.commit('g', generationId, memberIds[0], { orders: { 0: 1 } });
    await h.settle();
    h.store.elect(partition); // a new epoch: the commit's record is in the log but not below the HW
    await h.settle();
    expect(h.coordinator.isServing(partition)).toBe(false);
    expect(h.coordinator.loadingPartitions()).toEqual([partition]);
    expect((await h.coordinator.joinGroup(h.joinRequest('g'), h.context())).errorCode).toBe(
      ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
    );
    expect((await h.heartbeat('g', memberIds[0], generationId)).errorCode).toBe(ErrorCode.NONE);
    const sync = h.sync('g', memberIds[0], generationId);
    await h.settle();
    expect(sync.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect((await h.fetch('g', null)).errorCode).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect((await h.describe('g')).errorCode).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    expect((await h.coordinator.listGroups({})).errorCode).toBe(ErrorCode.COORDINATOR_LOAD_IN_PROGRESS);
    await expect(h.coordinator.describeGroup('g')).rejects.toMatchObject({ errorName: 'COORDINATOR_LOAD_IN_PROGRESS' });
    h.store.commitAll();
    await h.settle();
    expect(h.coordinator.isServing(partition)).toBe(true);
    expect(
      (await h.fetch('g', [{ name: 'orders', partitionIndexes: [0] }])).topics[0].partitions[0].committedOffset,
    ).toBe(1);
  });

  it('a partition resigned while loading never serves; a later epoch loads afresh', async () => {
    await h.stableGroup('g', 1);
    const partition = h.partitionOf('g');
    h.store.autoCommit = false;
    // An uncommitted tail keeps the next load waiting for the high watermark.
    h.store.append(partition, h.store.leaderEpoch(partition)!, [
      { key: offsetCommitKey('g', 'orders', 0), value: null, timestamp: 1 },
    ]);
    h.store.elect(partition);
    await h.settle();
    expect(h.coordinator.loadingPartitions()).toEqual([partition]);
    h.store.resign(partition);
    await h.settle();
    expect(h.coordinator.isServing(partition)).toBe(false);
    expect(h.coordinator.loadingPartitions()).toEqual([]);
    expect((await h.describe('g')).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    h.store.elect(partition);
    h.store.commitAll();
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it('unknown record types and unreadable records are skipped', async () => {
    const partition = h.partitionOf('g');
    const epoch = h.store.leaderEpoch(partition)!;
    h.store.append(partition, epoch, [
      { key: Buffer.from('[9,"future-record"]'), value: Buffer.from('{}'), timestamp: 1 },
      { key: Buffer.from('not json'), value: Buffer.from('{}'), timestamp: 1 },
      { key: offsetCommitKey('g', 'orders', 0), value: Buffer.from('{"v":3,"offset":"NaN"}'), timestamp: 1 },
      { key: groupMetadataKey('broken'), value: Buffer.from('[]'), timestamp: 1 },
      {
        key: offsetCommitKey('g', 'orders', 1),
        value: Buffer.from('{"v":3,"offset":4,"leaderEpoch":2,"metadata":"m","commitTimestamp":5}'),
        timestamp: 1,
      },
    ]);
    await h.restart();
    expect(h.coordinator.isServing(partition)).toBe(true);
    expect(await h.coordinator.committedOffsets('g')).toEqual([
      { topic: 'orders', partition: 1, committedOffset: 4, leaderEpoch: 2, metadata: 'm', commitTimestamp: 5 },
    ]);
    expect((await h.describe('broken')).groupState).toBe('Dead');
  });

  it('a group record that decodes but cannot be rebuilt (one instance id on two members, one member twice) is skipped: the partition still loads', async () => {
    const partition = h.partitionOf('g');
    expect([h.partitionOf('twins-9'), h.partitionOf('dup-21')]).toEqual([partition, partition]);
    await h.stableGroup('g', 1);
    const member = (memberId: string) => ({
      memberId,
      groupInstanceId: 'same-instance',
      clientId: 'c',
      clientHost: 'h',
      rebalanceTimeout: 60_000,
      sessionTimeout: 10_000,
      subscription: { topics: ['orders'] },
      assignment: { partitions: [] },
    });
    const group = (members: object[]) =>
      Buffer.from(
        JSON.stringify({
          v: 3,
          protocolType: 'consumer',
          generation: 4,
          protocol: 'range',
          leader: 'm-1',
          currentStateTimestamp: 1,
          members,
        }),
      );
    h.store.append(partition, h.store.leaderEpoch(partition)!, [
      { key: groupMetadataKey('twins-9'), value: group([member('m-1'), member('m-2')]), timestamp: 1 },
      {
        key: groupMetadataKey('dup-21'),
        value: group([
          { ...member('m-1'), groupInstanceId: null },
          { ...member('m-1'), groupInstanceId: null },
        ]),
        timestamp: 1,
      },
    ]);
    await h.restart();
    expect(h.coordinator.isServing(partition)).toBe(true);
    expect((await h.describe('g')).groupState).toBe('Stable');
    expect((await h.describe('twins-9')).groupState).toBe('Dead');
    expect((await h.describe('dup-21')).groupState).toBe('Dead');
  });

  it('a resignation of an older epoch than the one served is ignored', async () => {
    await h.stableGroup('g', 1);
    const partition = h.partitionOf('g');
    const registry = (h.coordinator as unknown as { shards: { onResign(p: number, e: number): void } }).shards;
    const epoch = h.store.leaderEpoch(partition)!;
    registry.onResign(partition, epoch - 1);
    expect(h.coordinator.isServing(partition)).toBe(true);
  });
});
