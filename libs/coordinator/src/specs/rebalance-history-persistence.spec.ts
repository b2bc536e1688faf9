import { CoordinatorHarness } from '@cohort/coordinator/testing';

describe('rebalance history: written with the group, replayed by the next coordinator', () => {
  it('a coordinator that loads the partition shows the rebalances of the group, the last one completed', async () => {
    const h = new CoordinatorHarness({ config: { rebalanceHistorySize: 3 } });
    await h.settle();
    const { memberIds, leader, generationId } = await h.stableGroup('g', 2);
    // Two more generations: a member leaves, then joins back.
    const other = memberIds.find((m) => m !== leader)!;
    await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: other }] }, h.contextOf(other));
    await h.settle();
    const rejoin = h.join('g', leader);
    await h.settle();
    h.sync('g', leader, rejoin.value.generationId, [{ memberId: leader, assignment: { partitions: [] } }]);
    await h.settle();
    const before = await h.coordinator.rebalanceHistory('g');
    expect(before.map((r) => r.generationId)).toEqual([generationId + 1, generationId]);
    expect(before.every((r) => r.completedAt !== null)).toBe(true);

    await h.restart();
    expect(await h.coordinator.rebalanceHistory('g')).toEqual(before);
  });

  it('keeps at most the configured number of entries across loads', async () => {
    const h = new CoordinatorHarness({ config: { rebalanceHistorySize: 2 } });
    await h.settle();
    for (let i = 0; i < 4; i++) {
      const {
        memberIds: [memberId],
      } = await h.stableGroup('g', 1);
      await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId }] }, h.contextOf(memberId));
      await h.settle();
    }
    const before = await h.coordinator.rebalanceHistory('g');
    expect(before).toHaveLength(2);
    await h.restart();
    expect(await h.coordinator.rebalanceHistory('g')).toEqual(before);
  });
});
