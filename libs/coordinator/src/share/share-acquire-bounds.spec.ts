import type * as P from '@cohort/protocol';
import { INT32_MAX } from '@cohort/protocol';
import { shareGroupHarness, track } from '@cohort/coordinator/testing';

// What one member can make a node hold or send for ShareAcquire: one held request per member, a wake
// that visits only the requests held on the partition that changed, and at most
// GROUP_SHARE_MAX_ACQUIRE_RECORDS offsets leased per answer.

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

  it('a wake visits only the acquires held on the partition that changed', async () => {
    const { h, membership, acquire, report, leases, manager } = await setup();
    const onZero = Array.from({ length: 50 }, (_, i) => `zero-${i}`);
    for (const memberId of onZero) membership.members.set(memberId, [{ topic: 'jobs', partition: 0 }]);
    membership.members.set('one', [{ topic: 'jobs', partition: 1 }]);
    const held = [...onZero, 'one'].map((memberId) => track(acquire(memberId, { maxWaitMs: 60_000 })));
    await h.settle();
    expect(manager.waiters.size).toBe(51);
    // Every attempt of a held acquire looks its partitions up: count them while partition 1 grows.
    const lookups = jest.spyOn(manager, 'slotFor');
    await report(3, 1);
    await h.settle();
    expect(leases(held[50].value)).toEqual([[1, 0, 2, 1]]);
    expect(lookups).toHaveBeenCalledTimes(1);
    expect(held.slice(0, 50).every((a) => !a.done)).toBe(true);
  });

  it('a held acquire waits on the partitions its member was assigned since', async () => {
    const { h, acquire, report, leases, manager } = await setup({});
    // The real membership: a member that joins, is held on its one partition, then gets both.
    const join = (memberId: string, memberEpoch: number) =>
      h.coordinator.shareGroupHeartbeat(
        { groupId: G, memberId, memberEpoch, ...(memberEpoch === 0 ? { subscribedTopicNames: ['jobs'] } : {}) },
        h.context(),
      );
    manager.membership = h.shardOf(G).share;
    const a = await join('a', 0);
    const b = await join('b', 0);
    const onlyA = a.assignment!.topicPartitions[0].partitions;
    expect(onlyA).toHaveLength(2);
    const aAgain = await join('a', a.memberEpoch);
    const kept = aAgain.assignment!.topicPartitions[0].partitions;
    expect(kept).toHaveLength(1);
    const held = track(acquire('a', { maxWaitMs: 60_000 }));
    await h.settle();
    // b leaves: a's next heartbeat gives it both partitions, and a report on the one it gained wakes it.
    await h.coordinator.shareGroupHeartbeat({ groupId: G, memberId: 'b', memberEpoch: -1 }, h.context());
    expect(b.errorCode).toBe(0);
    const grown = await join('a', aAgain.memberEpoch);
    expect(grown.assignment!.topicPartitions[0].partitions).toHaveLength(2);
    const gained = onlyA.find((p) => !kept.includes(p))!;
    await report(2, gained);
    await h.settle();
    expect(leases(held.value)).toEqual([[gained, 0, 1, 1]]);
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
