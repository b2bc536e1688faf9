import type * as P from '@cohort/protocol';
import { shareGroupHarness, track } from '@cohort/coordinator/testing';
import { DeliveryHorizon } from './share-partition-horizon';
import { decodeSharePartitionSnapshot, sharePartitionStateRecord } from './share-state-records';

// The delivery horizon (share-partition-horizon.ts): new offsets below a committed record's horizon are
// leased without a write and the acquire answers at once; past it, or for a redelivery, the acquire
// writes and answers after the commit; a restart never gives a count lower than one a member saw.

const G = 'share-g';

async function setup(config: Record<string, unknown> = {}) {
  const {
    h,
    membership,
    bind,
    acquire: acquireRequest,
    acknowledge,
    stateRecords,
  } = await shareGroupHarness(G, {
    topics: [{ name: 'jobs', partitions: 1 }],
    config: { groupShareAutoOffsetReset: 'earliest', groupShareRecordLockDurationMs: 10_000, ...config },
  });
  membership.members.set('m1', [{ topic: 'jobs', partition: 0 }]);
  membership.members.set('m2', [{ topic: 'jobs', partition: 0 }]);
  const acquire = (memberId: string, maxRecords: number) => acquireRequest(memberId, { maxRecords });
  const ack = (memberId: string, firstOffset: number, lastOffset: number, type: number) =>
    acknowledge(memberId, [
      { topic: 'jobs', partition: 0, batches: [{ firstOffset, lastOffset, acknowledgeTypes: [type] }] },
    ]);
  const report = (endOffset: number) => h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset }]);
  const leases = (response: P.ShareAcquireResponse) =>
    response.partitions.flatMap((p) => p.leases.map((l) => [l.firstOffset, l.lastOffset, l.deliveryCount]));
  const horizon = () => h.shardOf(G).sharePartitions.slot(G, 'jobs', 0)!.state.horizon.committed;
  return { h, bind, acquire, ack, report, leases, stateRecords, horizon };
}

describe('the delivery horizon', () => {
  it('leases new offsets under the committed horizon at once, writing nothing', async () => {
    const { h, acquire, report, leases, stateRecords, horizon } = await setup();
    await report(100);
    expect(leases(await acquire('m1', 1))).toEqual([[0, 0, 1]]);
    // The lease's record counts every reported offset delivered once (one window ahead, within the end).
    const first = decodeSharePartitionSnapshot(stateRecords().at(-1)!.value!);
    expect(first).toMatchObject({ startOffset: 0, endOffset: 100 });
    expect(first.ranges).toEqual([{ first: 0, last: 99, state: 0, count: 1, reason: null }]);
    expect(horizon()).toBe(100);
    const written = stateRecords().length;
    h.store.autoCommit = false;
    // Nothing is committed from here on, yet the acquire answers: its offsets' counts are in the log.
    const second = track(acquire('m2', 2));
    await h.settle();
    expect(second.done).toBe(true);
    expect(leases(second.value)).toEqual([[1, 2, 1]]);
    expect(stateRecords()).toHaveLength(written);
    expect(h.store.pendingCommits(h.partitionOf(G))).toBe(0);
  });

  it('waits for the record whose horizon covers the lease: one still being written does not', async () => {
    const { h, acquire, report, leases } = await setup();
    h.store.autoCommit = false;
    await report(100);
    const first = track(acquire('m1', 1));
    await h.settle();
    // The first record (horizon 100) is not committed: the second acquire writes and waits too.
    const second = track(acquire('m2', 1));
    await h.settle();
    expect([first.done, second.done]).toEqual([false, false]);
    h.store.commitAll();
    await h.settle();
    expect([leases(first.value), leases(second.value)]).toEqual([[[0, 0, 1]], [[1, 1, 1]]]);
  });

  it('moves the horizon with the records written after new leases, and writes again past it', async () => {
    const { h, acquire, ack, report, leases, stateRecords, horizon } = await setup({
      groupSharePartitionMaxRecordLocks: 10,
    });
    await report(12);
    expect(leases(await acquire('m1', 5))).toEqual([[0, 4, 1]]);
    // One window past the leases would be 15: the reported end, 12, bounds it.
    expect(horizon()).toBe(12);
    // A record written with no new lease since the last one does not move it.
    await ack('m1', 0, 4, 1);
    expect(horizon()).toBe(12);
    // Past the committed horizon the lease is written, the new horizon with it, and answered after the commit.
    await report(100);
    h.store.autoCommit = false;
    const past = track(acquire('m1', 10));
    await h.settle();
    expect(past.done).toBe(false);
    expect(decodeSharePartitionSnapshot(stateRecords().at(-1)!.value!)).toMatchObject({
      startOffset: 5,
      endOffset: 25,
      ranges: [{ first: 5, last: 24, state: 0, count: 1, reason: null }],
    });
    h.store.commitAll();
    await h.settle();
    expect(leases(past.value)).toEqual([[5, 14, 1]]);
    expect(horizon()).toBe(25);
    h.store.autoCommit = true;
    await ack('m1', 5, 14, 1);
    const written = stateRecords().length;
    expect(leases(await acquire('m2', 5))).toEqual([[15, 19, 1]]);
    expect(stateRecords()).toHaveLength(written);
    // The acknowledgement's record follows new leases: the horizon is one window past them again.
    await ack('m2', 15, 19, 1);
    expect(horizon()).toBe(30);
  });

  it('answers a held acquire woken under the horizon with one lease, leasing nothing more for it', async () => {
    const { h, acquire, ack, report, leases } = await setup({ groupSharePartitionMaxRecordLocks: 10 });
    await report(100);
    expect(leases(await acquire('m1', 10))).toEqual([[0, 9, 1]]);
    // The window is full: m2's acquire is held until m1's acknowledgement moves SPSO.
    const held = track(
      h.coordinator.shareAcquire({ groupId: G, memberId: 'm2', maxRecords: 2, maxWaitMs: 60_000 }, h.context()),
    );
    await h.settle();
    expect(held.done).toBe(false);
    await ack('m1', 0, 4, 1);
    expect(leases(held.value)).toEqual([[10, 11, 1]]);
    const state = h.shardOf(G).sharePartitions.slot(G, 'jobs', 0)!.state;
    expect(state.summary(h.clock.now())).toMatchObject({ acquired: 7 });
  });

  it('answers a held acquire woken under the horizon only once its own acknowledgements are committed', async () => {
    const { h, acquire, ack, report, leases, stateRecords } = await setup({ groupSharePartitionMaxRecordLocks: 10 });
    await report(100);
    await acquire('m1', 5);
    await acquire('m2', 5);
    h.store.autoCommit = false;
    const m1Acked = track(ack('m1', 0, 4, 1));
    await h.settle();
    const m1Record = stateRecords().at(-1)!;
    // m2 acknowledges 5-9 and waits for work: the window is full until m1's acknowledgement commits.
    const held = track(
      h.coordinator.shareAcquire(
        {
          groupId: G,
          memberId: 'm2',
          maxRecords: 5,
          maxWaitMs: 60_000,
          acknowledgements: [
            { topic: 'jobs', partition: 0, batches: [{ firstOffset: 5, lastOffset: 9, acknowledgeTypes: [1] }] },
          ],
        },
        h.context(),
      ),
    );
    await h.settle();
    // m1's record commits, not m2's: SPSO moves to 5 and m2 is woken with 10-14, under the horizon.
    h.store.advanceHighWatermark(h.partitionOf(G), m1Record.offset + 1);
    await h.settle();
    expect(m1Acked.done).toBe(true);
    expect(held.done).toBe(false);
    h.store.commitAll();
    await h.settle();
    expect(leases(held.value)).toEqual([[10, 14, 1]]);
    expect(held.value.partitions[0].acknowledgeErrorCode).toBe(0);
  });

  it('arms the lock of a lease nothing wrote: it runs out and the offsets come back', async () => {
    const { h, acquire, ack, report, leases } = await setup();
    await report(100);
    await acquire('m1', 1);
    await ack('m1', 0, 0, 1);
    // No other lease holds the lock timer: only the lease under the horizon can have armed it.
    expect(leases(await acquire('m2', 1))).toEqual([[1, 1, 1]]);
    await h.advance(10_001);
    expect(leases(await acquire('m1', 1))).toEqual([[1, 1, 2]]);
  });

  it('writes a redelivery under the horizon before it leaves', async () => {
    const { h, acquire, ack, report, leases } = await setup();
    await report(100);
    await acquire('m1', 2);
    await ack('m1', 0, 1, 2);
    h.store.autoCommit = false;
    const again = track(acquire('m2', 1));
    await h.settle();
    expect(again.done).toBe(false);
    h.store.commitAll();
    await h.settle();
    expect(leases(again.value)).toEqual([[0, 0, 2]]);
  });

  it('after a restart no delivery count is lower than one seen; offsets never leased come back counted once', async () => {
    const { h, bind, acquire, report, leases, stateRecords } = await setup();
    await report(100);
    expect(leases(await acquire('m1', 1))).toEqual([[0, 0, 1]]);
    const written = stateRecords().length;
    expect(leases(await acquire('m2', 2))).toEqual([[1, 2, 1]]);
    expect(stateRecords()).toHaveLength(written);
    await h.restart();
    bind();
    // 0-2 were leased at 1 (1-2 without a record of their own): their next lease is their second. 3-4
    // were never leased: the horizon counted them once, so they go at 2 too (one more than delivered).
    expect(leases(await acquire('m1', 5))).toEqual([[0, 4, 2]]);
    expect(leases(await acquire('m2', 1))).toEqual([[5, 5, 2]]);
  });

  it('loads a record written before the horizon as before: new offsets from its end at count 1, written', async () => {
    const { h, bind, acquire, leases, stateRecords } = await setup();
    const key = { groupId: G, topic: 'jobs', partition: 0 };
    const old = { stateEpoch: 0, startOffset: 0, endOffset: 3, deadLetters: [] };
    const ranges = [{ first: 0, last: 2, state: 0 as const, count: 1, reason: null }];
    const partition = h.partitionOf(G);
    h.store.append(partition, h.store.leaderEpoch(partition)!, [sharePartitionStateRecord(key, { ...old, ranges }, 0)]);
    await h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset: 6 }]);
    await h.restart();
    bind();
    const written = stateRecords().length;
    expect(leases(await acquire('m1', 6))).toEqual([
      [0, 2, 2],
      [3, 5, 1],
    ]);
    expect(stateRecords()).toHaveLength(written + 1);
  });
});

describe('DeliveryHorizon', () => {
  it('runs one window ahead of the leases, within the reported end, only after new leases, never back', () => {
    const horizon = new DeliveryHorizon(10);
    // Nothing leased since it was made (a new, reset or loaded partition): nothing counted ahead.
    expect(horizon.toWrite(10, 1_000, 100)).toBe(10);
    expect(horizon.toWrite(12, 1_000, 100)).toBe(112);
    expect(horizon.toWrite(12, 1_000, 100)).toBe(112);
    expect(horizon.toWrite(20, 50, 100)).toBe(112);
    expect(horizon.toWrite(200, 150, 100)).toBe(200);
    expect(horizon.committed).toBe(10);
    horizon.commit(112);
    horizon.commit(50);
    expect(horizon.committed).toBe(112);
  });
});
