import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

describe('OffsetDelete and DeleteGroups', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [
        { name: 'orders', partitions: 4 },
        { name: 'audit', partitions: 2 },
      ],
    });
    await h.settle();
  });

  async function stableWithOffsets(): Promise<{ member: string; generationId: number }> {
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    h.commit('g', generationId, memberIds[0], { orders: { 0: 1, 1: 2 }, audit: { 0: 3 } });
    await h.settle();
    return { member: memberIds[0], generationId };
  }

  it('a Stable consumer group keeps offsets of subscribed topics (GROUP_SUBSCRIBED_TO_TOPIC) and loses the others', async () => {
    await stableWithOffsets();
    const response = await h.coordinator.offsetDelete({
      groupId: 'g',
      topics: [
        { name: 'orders', partitions: [{ partitionIndex: 0 }] },
        { name: 'audit', partitions: [{ partitionIndex: 0 }, { partitionIndex: 1 }] },
        { name: 'ghosts', partitions: [{ partitionIndex: 0 }] },
      ],
    });
    expect(response).toEqual({
      errorCode: 0,
      topics: [
        { name: 'orders', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC }] },
        {
          name: 'audit',
          partitions: [
            { partitionIndex: 0, errorCode: 0 },
            { partitionIndex: 1, errorCode: 0 },
          ],
        },
        { name: 'ghosts', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
      ],
    });
    expect((await h.coordinator.committedOffsets('g')).map((o) => `${o.topic}-${o.partition}`)).toEqual([
      'orders-0',
      'orders-1',
    ]);
  });

  it('a deletion is visible only once its tombstones commit', async () => {
    await stableWithOffsets();
    h.store.autoCommit = false;
    const deleting = h.coordinator.offsetDelete({
      groupId: 'g',
      topics: [{ name: 'audit', partitions: [{ partitionIndex: 0 }] }],
    });
    await h.settle();
    expect(
      (await h.fetch('g', [{ name: 'audit', partitionIndexes: [0] }])).topics[0].partitions[0].committedOffset,
    ).toBe(3);
    expect(
      (await h.fetch('g', [{ name: 'audit', partitionIndexes: [0] }], true)).topics[0].partitions[0].errorCode,
    ).toBe(ErrorCode.UNSTABLE_OFFSET_COMMIT);
    h.store.commitAll();
    expect((await deleting).errorCode).toBe(0);
    expect(
      (await h.fetch('g', [{ name: 'audit', partitionIndexes: [0] }])).topics[0].partitions[0].committedOffset,
    ).toBe(-1);
  });

  it('an unknown group is GROUP_ID_NOT_FOUND; a non-empty group of another protocol type is NON_EMPTY_GROUP', async () => {
    expect((await h.coordinator.offsetDelete({ groupId: 'missing', topics: [] })).errorCode).toBe(
      ErrorCode.GROUP_ID_NOT_FOUND,
    );
    const c = await h.joinNew('connect-group', {
      protocolType: 'connect',
      protocols: [{ name: 'v1', metadata: null }],
    });
    await h.advance(0);
    expect(c.join.value.errorCode).toBe(0);
    const response = await h.coordinator.offsetDelete({
      groupId: 'connect-group',
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0 }] }],
    });
    expect(response).toMatchObject({ errorCode: ErrorCode.NON_EMPTY_GROUP, topics: [] });
  });

  it('DeleteGroups: Empty groups go, non-empty ones are NON_EMPTY_GROUP, unknown ones GROUP_ID_NOT_FOUND, each answered once', async () => {
    await stableWithOffsets();
    h.commit('simple', -1, '', { orders: { 0: 1 } });
    await h.settle();
    const response = await h.coordinator.deleteGroups({ groupsNames: ['g', 'simple', 'missing', 'simple'] });
    expect(response.results).toEqual([
      { groupId: 'g', errorCode: ErrorCode.NON_EMPTY_GROUP },
      { groupId: 'simple', errorCode: 0 },
      { groupId: 'missing', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    ]);
    expect((await h.describe('simple')).groupState).toBe('Dead');
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it('DeleteGroups of a group led elsewhere is NOT_COORDINATOR', async () => {
    h.store.resign(h.partitionOf('x'));
    expect((await h.coordinator.deleteGroups({ groupsNames: ['x'] })).results[0].errorCode).toBe(
      ErrorCode.NOT_COORDINATOR,
    );
  });

  it('an offset committed after a deletion was requested survives it', async () => {
    h.commit('simple', -1, '', { orders: { 0: 1 } });
    await h.settle();
    h.store.autoCommit = false;
    const deleting = h.coordinator.offsetDelete({
      groupId: 'simple',
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0 }] }],
    });
    await h.settle();
    const recommit = h.commit('simple', -1, '', { orders: { 0: 2 } });
    await h.settle();
    h.store.commitAll();
    await deleting;
    await h.settle();
    expect(recommit.value.errorCode).toBe(0);
    expect(
      (await h.fetch('simple', [{ name: 'orders', partitionIndexes: [0] }])).topics[0].partitions[0].committedOffset,
    ).toBe(2);
    expect((await h.describe('simple')).groupState).toBe('Empty');
  });
});
