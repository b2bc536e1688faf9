import type * as P from '@cohort/protocol';
import { shareGroupHarness, track } from '@cohort/coordinator/testing';
import { STARTS_PER_STEP } from './share-assignment-starts';

// What a ShareAcquire visits of a member's assignment: the partitions without state yet are started a
// bounded number at a time, and then only the partitions that may have offsets to lease are looked at,
// however many are assigned; what it leases, and in which order, is what a walk of every assigned
// partition leases. Work is counted as the partitions an acquire looks up (`slotFor`).

const G = 'share-walk';

async function setup(partitions: number, config: Record<string, unknown> = {}) {
  const harness = await shareGroupHarness(G, {
    topics: [{ name: 'jobs', partitions }],
    config: { groupShareAutoOffsetReset: 'latest', ...config },
  });
  const report = (endOffset: number, ...at: number[]) =>
    harness.h.topics.setEndOffsets(
      'jobs',
      at.map((partition) => ({ partition, endOffset })),
    );
  const leases = (response: P.ShareAcquireResponse) =>
    response.partitions.flatMap((p) =>
      p.leases.map((l) => [p.partition, l.firstOffset, l.lastOffset, l.deliveryCount]),
    );
  const manager = harness.h.shardOf(G).sharePartitions;
  const lookups = jest.spyOn(manager, 'slotFor');
  return { ...harness, report, leases, manager, lookups };
}

const range = (n: number) => Array.from({ length: n }, (_, partition) => ({ topic: 'jobs', partition }));

describe('ShareAcquire over a large assignment', () => {
  it('starts at most a step of partitions per acquire, then visits only the partitions that can lease', async () => {
    const assigned = 20 * STARTS_PER_STEP;
    const { h, membership, acquire, report, leases, manager, lookups } = await setup(assigned);
    membership.members.set('m1', range(assigned));
    await report(4, 0, 5_000, 19_999);

    // The first acquire starts a step's worth of partitions (their start, the reported end, is written) ...
    expect(leases(await acquire('m1'))).toEqual([]);
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(STARTS_PER_STEP);
    expect(manager.slotsOf(G)).toHaveLength(STARTS_PER_STEP);
    // ... and steps of their own start the rest, each as bounded.
    await h.advance(0);
    expect(manager.slotsOf(G)).toHaveLength(assigned);
    expect(manager.slot(G, 'jobs', 19_999)!.state.startOffset).toBe(4);

    // Producers report three partitions: the next acquire looks up those three, not the 20,000 assigned.
    await report(7, 3, 5_000, 19_999);
    lookups.mockClear();
    const response = await acquire('m1', { maxRecords: 100 });
    expect(lookups).toHaveBeenCalledTimes(3);
    expect(leases(response).sort((a, b) => a[0] - b[0])).toEqual([
      [3, 0, 6, 1],
      [5_000, 4, 6, 1],
      [19_999, 4, 6, 1],
    ]);
    // Drained: nothing is left to visit.
    lookups.mockClear();
    expect(leases(await acquire('m1'))).toEqual([]);
    expect(lookups).not.toHaveBeenCalled();
  });

  it('wakes a held acquire when a partition started after it can lease', async () => {
    const assigned = 5 * STARTS_PER_STEP;
    const { h, membership, acquire, report, leases } = await setup(assigned, { groupShareAutoOffsetReset: 'earliest' });
    membership.members.set('m1', range(assigned));
    await report(3, assigned - 1);
    // The first acquire starts the first partitions only, none of which has offsets: it is held ...
    const held = track(acquire('m1', { maxWaitMs: 60_000 }));
    await h.settle();
    expect(held.done).toBe(false);
    // ... and answered once the step that starts the last partition has written it.
    await h.advance(0);
    expect(leases(held.value)).toEqual([[assigned - 1, 0, 2, 1]]);
  });

  it('visits a partition whose lock ran out, or whose member left, before the write recording that commits', async () => {
    const { h, membership, acquire, report, leases, manager } = await setup(2, {
      groupShareRecordLockDurationMs: 1000,
    });
    membership.members.set('m1', range(2));
    membership.members.set('m2', range(2));
    expect(leases(await acquire('m1'))).toEqual([]);
    await report(3, 1);
    expect(leases(await acquire('m1'))).toEqual([[1, 0, 2, 1]]);
    // Nothing commits from here: the lock runs out, and its offsets are available again at once ...
    h.store.autoCommit = false;
    await h.advance(1000);
    const afterExpiry = track(acquire('m2'));
    await h.settle();
    h.store.commitAll();
    await h.settle();
    // ... so the next acquire leases them, as a walk of every partition does, not only once that is written.
    expect(leases(afterExpiry.value)).toEqual([[1, 0, 2, 2]]);
    h.shardOf(G).step(() => manager.releaseMember(G, 'm2'));
    const afterLeaving = track(acquire('m1'));
    await h.settle();
    h.store.commitAll();
    await h.settle();
    expect(leases(afterLeaving.value)).toEqual([[1, 0, 2, 3]]);
  });

  it('leases in the order of a walk of every assigned partition: each acquire starts one partition on, wrapping round', async () => {
    const { membership, acquire, report, leases } = await setup(4);
    membership.members.set('m1', range(4));
    expect(leases(await acquire('m1'))).toEqual([]);
    await report(10, 0, 1, 2, 3);
    // Each acquire takes the next rotation: it starts at the partition after the last one's start.
    const first = leases(await acquire('m1', { maxRecords: 5 }));
    const start = first[0][0];
    expect(first).toEqual([[start, 0, 4, 1]]);
    for (let i = 1; i < 4; i++)
      expect(leases(await acquire('m1', { maxRecords: 5 }))).toEqual([[(start + i) % 4, 0, 4, 1]]);
    // Back at the first one's start, one acquire goes round every partition, past the last to the first.
    expect(leases(await acquire('m1', { maxRecords: 20 }))).toEqual(
      [0, 1, 2, 3].map((i) => [(start + i) % 4, 5, 9, 1]),
    );
  });
});
