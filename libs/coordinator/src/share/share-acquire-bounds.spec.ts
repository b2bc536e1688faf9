import type * as P from '@cohort/protocol';
import { INT32_MAX } from '@cohort/protocol';
import { shareGroupHarness, track } from '@cohort/coordinator/testing';

// What one member can make a node hold or send for ShareAcquire: one held request per member (so a wake
// tries at most one per member of the group), and at most GROUP_SHARE_MAX_ACQUIRE_RECORDS offsets
// leased per answer.

const G = 'share-bounds';

async function setup(config: Record<string, unknown> = {}) {
  const harness = await shareGroupHarness(G, {
    topics: [{ name: 'jobs', partitions: 2 }],
    config: { groupShareAutoOffsetReset: 'earliest', ...config },
  });
  const report = (endOffset: number, partition = 0) =>
    harness.h.topics.setEndOffsets('jobs', [{ partition, endOffset }]);
  const leases = (response: P.ShareAcquireResponse) =>
    response.partitions.flatMap((p) =>
      p.leases.map((l) => [p.partition, l.firstOffset, l.lastOffset, l.deliveryCount]),
    );
  const leasedCount = (response: P.ShareAcquireResponse) =>
    response.partitions.reduce((n, p) => n + p.leases.reduce((m, l) => m + l.lastOffset - l.firstOffset + 1, 0), 0);
  return { ...harness, report, leases, leasedCount, manager: harness.h.shardOf(G).sharePartitions };
}

describe('ShareAcquire bounds', () => {
  it('holds one acquire per member: a second one answers the first at once with no leases', async () => {
    const { h, membership, acquire, report, leases, manager } = await setup();
    membership.members.set('m1', [{ topic: 'jobs', partition: 0 }]);
    const first = track(acquire('m1', { maxWaitMs: 60_000 }));
    await h.settle();
    const second = track(acquire('m1', { maxWaitMs: 60_000 }));
    await h.settle();
    expect(first.value).toMatchObject({ errorCode: 0, partitions: [] });
    expect(second.done).toBe(false);
    expect(manager.waiters.size).toBe(1);
    await report(2);
    await h.settle();
    expect(leases(second.value)).toEqual([[0, 0, 1, 1]]);
    expect(manager.waiters.size).toBe(0);
  });

  it('a thousand acquires of one member leave one held', async () => {
    const { h, membership, acquire, manager } = await setup();
    membership.members.set('m1', [{ topic: 'jobs', partition: 0 }]);
    const all = Array.from({ length: 1000 }, () => track(acquire('m1', { maxWaitMs: 300_000 })));
    await h.settle();
    expect(manager.waiters.size).toBe(1);
    expect(all.filter((a) => !a.done)).toHaveLength(1);
  });

  it('a wake tries one held acquire per member of the group, however many each member sent', async () => {
    const { h, membership, acquire, report, leases, manager } = await setup();
    const members = Array.from({ length: 20 }, (_, i) => `m-${i}`);
    for (const memberId of members) membership.members.set(memberId, [{ topic: 'jobs', partition: 0 }]);
    // Each member sends fifty held acquires: one of each is held, the others are answered at once.
    const sent = members.flatMap((memberId) =>
      Array.from({ length: 50 }, () => track(acquire(memberId, { maxWaitMs: 60_000 }))),
    );
    await h.settle();
    expect(manager.waiters.size).toBe(20);
    expect(sent.filter((a) => a.done)).toHaveLength(20 * 49);
    // Every attempt of a held acquire looks its partitions up: count them when the partition grows.
    const lookups = jest.spyOn(manager, 'slotFor');
    await report(1, 0);
    await h.settle();
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(20);
    const leased = sent.filter((a) => a.done && leases(a.value).length > 0);
    expect(leased.map((a) => leases(a.value))).toEqual([[[0, 0, 0, 1]]]);
  });

  it('leases at most GROUP_SHARE_MAX_ACQUIRE_RECORDS offsets in one answer; the rest stay available, their delivery count unchanged', async () => {
    const { h, membership, acquire, report, leases, leasedCount } = await setup({ groupShareMaxAcquireRecords: 5 });
    membership.members.set('greedy', [
      { topic: 'jobs', partition: 0 },
      { topic: 'jobs', partition: 1 },
    ]);
    membership.members.set('other', [
      { topic: 'jobs', partition: 0 },
      { topic: 'jobs', partition: 1 },
    ]);
    await report(10, 0);
    await report(10, 1);
    await h.settle();
    const greedy = await acquire('greedy', { maxRecords: INT32_MAX, batchSize: 1 });
    expect(leasedCount(greedy)).toBe(5);
    expect(greedy.partitions.flatMap((p) => p.leases).every((l) => l.firstOffset === l.lastOffset)).toBe(true);
    // Every answer is bounded; the 15 offsets left are leased, three answers later, for the first time.
    const rest = [];
    for (let i = 0; i < 3; i++) rest.push(...leases(await acquire('other', { maxRecords: 100 })));
    expect(rest.reduce((n, [, first, last]) => n + last - first + 1, 0)).toBe(15);
    expect(rest.every(([, , , deliveryCount]) => deliveryCount === 1)).toBe(true);
  });
});
