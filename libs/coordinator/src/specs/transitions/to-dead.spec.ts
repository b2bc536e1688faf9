import { ErrorCode } from '@cohort/protocol';
import { decodeKey } from '../../records/record-codec';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/** An Empty consumer group (its only member left) that committed offsets for orders-0 and orders-1. */
async function emptyGroupWithOffsets(h: CoordinatorHarness): Promise<number> {
  const { memberIds, generationId } = await h.stableGroup('g', 1);
  const commit = h.commit('g', generationId, memberIds[0], { orders: { 0: 10, 1: 20 } });
  await h.settle();
  expect(commit.value.errorCode).toBe(0);
  await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: memberIds[0] }] }, h.context());
  await h.settle();
  expect((await h.describe('g')).groupState).toBe('Empty');
  return generationId + 1;
}

function tombstoneKinds(h: CoordinatorHarness): string[] {
  return h.store
    .records(h.partitionOf('g'))
    .filter((r) => r.value === null)
    .map((r) => decodeKey(r.key).type);
}

describe('transitions to Dead', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness({ config: { offsetsRetentionMinutes: 1, offsetsRetentionCheckIntervalMs: 10_000 } });
    await h.settle();
  });

  it('Empty → Dead when DeleteGroups commits: offsets and the group get tombstones', async () => {
    await emptyGroupWithOffsets(h);
    h.store.autoCommit = false;
    const deleting = h.coordinator.deleteGroups({ groupsNames: ['g'] });
    await h.settle();
    // Nothing is gone before the tombstones are committed.
    expect((await h.describe('g')).groupState).toBe('Empty');
    expect(
      (await h.fetch('g', [{ name: 'orders', partitionIndexes: [0] }])).topics[0].partitions[0].committedOffset,
    ).toBe(10);
    h.store.commitAll();
    expect((await deleting).results).toEqual([{ groupId: 'g', errorCode: 0 }]);
    expect((await h.describe('g')).groupState).toBe('Dead');
    expect(
      (await h.fetch('g', [{ name: 'orders', partitionIndexes: [0] }])).topics[0].partitions[0].committedOffset,
    ).toBe(-1);
    expect(tombstoneKinds(h).sort()).toEqual(['group-metadata', 'offset-commit', 'offset-commit']);
  });

  it('Empty → Dead when the last offsets expire (KIP-211: retention counted from when the group became Empty)', async () => {
    await emptyGroupWithOffsets(h);
    await h.advance(50_000); // two purge cycles, 50 s < 1 min of retention
    expect((await h.describe('g')).groupState).toBe('Empty');
    await h.advance(20_000);
    expect((await h.describe('g')).groupState).toBe('Dead');
    expect(tombstoneKinds(h).sort()).toEqual(['group-metadata', 'offset-commit', 'offset-commit']);
  });

  it('Empty → Dead when OffsetDelete removes the last offsets', async () => {
    await emptyGroupWithOffsets(h);
    const first = await h.coordinator.offsetDelete({
      groupId: 'g',
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0 }] }],
    });
    expect(first.topics[0].partitions[0].errorCode).toBe(0);
    expect((await h.describe('g')).groupState).toBe('Empty');
    await h.coordinator.offsetDelete({
      groupId: 'g',
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 1 }] }],
    });
    expect((await h.describe('g')).groupState).toBe('Dead');
  });

  it('Empty → Dead at the next purge when an Empty group has no offsets at all', async () => {
    const { memberIds } = await h.stableGroup('g', 1);
    await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: memberIds[0] }] }, h.context());
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('Empty');
    await h.advance(10_000);
    expect((await h.describe('g')).groupState).toBe('Dead');
    expect(tombstoneKinds(h)).toEqual(['group-metadata']);
  });

  it('any → Dead when the partition is unloaded: parked joins and syncs get NOT_COORDINATOR and members hear CoordinatorMoved', async () => {
    h.store.autoCommit = false;
    const a = await h.joinNew('g');
    const b = await h.joinNew('g');
    await h.advance(0);
    const leader = a.join.value.leader;
    const follower = leader === a.memberId ? b.memberId : a.memberId;
    const followerSync = h.sync('g', follower, 1);
    const leaderSync = h.sync('g', leader, 1, []);
    const other = await h.joinNew('other-group');
    await h.settle();
    const commit = h.commit('g', 1, leader, { orders: { 0: 5 } });
    await h.settle();
    expect(commit.done).toBe(true); // CompletingRebalance refuses commits at once
    h.store.resign(h.partitionOf('g'));
    h.store.resign(h.partitionOf('other-group'));
    await h.settle();
    expect(followerSync.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(leaderSync.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(other.join.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(h.push.moves.map((m) => m.push.groupId).sort()).toEqual(['g', 'other-group']);
    expect((await h.describe('g')).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });
});
