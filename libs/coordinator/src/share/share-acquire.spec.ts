import type * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness, FakeShareMembership, shareGroupHarness, track } from '@cohort/coordinator/testing';
import { decodeSharePartitionSnapshot } from './share-state-records';

// ShareAcquire and ShareAcknowledge through the coordinator, on virtual time, with a membership that
// assigns what each test says: leases are written before they leave, acknowledgements answer after
// their commit, held acquires wake, and a restart replays the state.

const G = 'share-g';

async function setup(config: Record<string, unknown> = {}) {
  const counted = { leased: 0, acknowledged: {} as Record<string, number> };
  const { h, membership, bind, acquire, acknowledge, stateRecords } = await shareGroupHarness(G, {
    metrics: {
      onShareOffsetsLeased: (count) => (counted.leased += count),
      onShareOffsetsAcknowledged: (type, count) =>
        (counted.acknowledged[type] = (counted.acknowledged[type] ?? 0) + count),
    },
    topics: [
      { name: 'jobs', partitions: 2 },
      { name: 'secret', partitions: 1 },
    ],
    config: { groupShareAutoOffsetReset: 'earliest', groupShareRecordLockDurationMs: 10_000, ...config },
  });
  membership.members.set('m1', [{ topic: 'jobs', partition: 0 }]);
  membership.members.set('m2', [{ topic: 'jobs', partition: 0 }]);
  const ack = (memberId: string, firstOffset: number, lastOffset: number, types: number[], partition = 0) =>
    acknowledge(memberId, [
      { topic: 'jobs', partition, batches: [{ firstOffset, lastOffset, acknowledgeTypes: types }] },
    ]);
  const report = (endOffset: number, partition = 0) => h.topics.setEndOffsets('jobs', [{ partition, endOffset }]);
  const leases = (response: P.ShareAcquireResponse) =>
    response.partitions.flatMap((p) =>
      p.leases.map((l) => [p.partition, l.firstOffset, l.lastOffset, l.deliveryCount]),
    );
  return { h, membership, bind, acquire, ack, report, leases, counted, stateRecords };
}

describe('ShareAcquire and ShareAcknowledge', () => {
  it('leases offsets below the reported end, from the start with earliest', async () => {
    const { acquire, report, leases } = await setup();
    await report(5);
    const response = await acquire('m1');
    expect(leases(response)).toEqual([[0, 0, 4, 1]]);
    expect(response.acquisitionLockTimeoutMs).toBe(10_000);
  });

  it('starts a new partition at the reported end with latest', async () => {
    const { acquire, report, leases } = await setup({ groupShareAutoOffsetReset: 'latest' });
    await report(5);
    expect(leases(await acquire('m1'))).toEqual([]);
    await report(7);
    expect(leases(await acquire('m1'))).toEqual([[0, 5, 6, 1]]);
  });

  it('holds the answer until the lease record commits', async () => {
    const h = new CoordinatorHarness({
      topics: [{ name: 'jobs', partitions: 2 }],
      autoCommit: false,
      config: { groupShareAutoOffsetReset: 'earliest' },
    });
    await h.settle();
    h.store.commitAll();
    await h.settle();
    const membership = new FakeShareMembership(G);
    membership.members.set('m1', [{ topic: 'jobs', partition: 0 }]);
    h.shardOf(G).sharePartitions.membership = membership;
    await h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset: 3 }]);
    const pending = track(h.coordinator.shareAcquire({ groupId: G, memberId: 'm1', maxRecords: 10 }, h.context()));
    await h.settle();
    expect(pending.done).toBe(false);
    h.store.commitAll();
    await h.settle();
    expect(pending.value.partitions[0].leases).toEqual([{ firstOffset: 0, lastOffset: 2, deliveryCount: 1 }]);
  });

  it('applies piggy-backed acknowledgements first and answers their outcome per partition', async () => {
    const { acquire, report, leases } = await setup();
    await report(4);
    expect(leases(await acquire('m1', { maxRecords: 2 }))).toEqual([[0, 0, 1, 1]]);
    const next = await acquire('m1', {
      acknowledgements: [
        { topic: 'jobs', partition: 0, batches: [{ firstOffset: 0, lastOffset: 1, acknowledgeTypes: [1, 2] }] },
        { topic: 'jobs', partition: 1, batches: [{ firstOffset: 0, lastOffset: 0, acknowledgeTypes: [1] }] },
      ],
    });
    expect(next.partitions).toEqual([
      {
        topic: 'jobs',
        partition: 0,
        errorCode: 0,
        acknowledgeErrorCode: 0,
        // Offset 1 comes back once its release is written, not in the same request.
        leases: [{ firstOffset: 2, lastOffset: 3, deliveryCount: 1 }],
      },
      {
        topic: 'jobs',
        partition: 1,
        errorCode: 0,
        acknowledgeErrorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        acknowledgeErrorMessage: 'jobs-1 is not assigned to member m1.',
        leases: [],
      },
    ]);
  });

  it('refuses to acknowledge offsets the member does not hold (42), changing nothing', async () => {
    const { acquire, ack, report, leases, counted } = await setup();
    await report(3);
    await acquire('m1');
    expect((await ack('m2', 0, 2, [1])).partitions).toEqual([
      {
        topic: 'jobs',
        partition: 0,
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'Offsets 0-2 cannot be acknowledged: member m2 is not the owner of offsets 0-2.',
      },
    ]);
    expect((await ack('m1', 0, 2, [1, 3, 1])).partitions[0].errorCode).toBe(0);
    expect(leases(await acquire('m2'))).toEqual([]);
    // The metrics count what was written: three leased, two accepted and one rejected; the refusal nothing.
    expect(counted).toEqual({ leased: 3, acknowledged: { accept: 2, reject: 1 } });
  });

  it('answers 25 for a member the group does not know and 69 for no share group', async () => {
    const { h, acquire } = await setup();
    expect((await acquire('stranger')).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const other = await h.coordinator.shareAcknowledge(
      { groupId: 'no-such-share-group', memberId: 'm1', acknowledgements: [] },
      h.context(),
    );
    expect(other.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });

  it('gives 29 for a topic the caller may not read, leasing nothing of it', async () => {
    const { h, membership } = await setup();
    membership.members.set('m1', [
      { topic: 'jobs', partition: 0 },
      { topic: 'secret', partition: 0 },
    ]);
    await h.topics.setEndOffsets('secret', [{ partition: 0, endOffset: 5 }]);
    const response = await h.coordinator.shareAcquire(
      { groupId: G, memberId: 'm1', maxRecords: 10 },
      h.context(),
      (topic) => topic !== 'secret',
    );
    expect(response.partitions).toEqual([
      {
        topic: 'secret',
        partition: 0,
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        errorMessage: "Topic authorization failed: READ on topic 'secret' is not allowed.",
        acknowledgeErrorCode: 0,
        leases: [],
      },
    ]);
  });

  it('holds an acquire with nothing to lease and answers it when producers report more', async () => {
    const { h, acquire, report, leases } = await setup();
    const held = track(acquire('m1', { maxWaitMs: 5000 }));
    await h.advance(1000);
    expect(held.done).toBe(false);
    await report(2);
    await h.settle();
    expect(leases(held.value)).toEqual([[0, 0, 1, 1]]);
  });

  it('wakes a held acquire when a lock expires, with the delivery count one higher', async () => {
    const { h, acquire, report, leases } = await setup();
    await report(2);
    await acquire('m1');
    const held = track(acquire('m2', { maxWaitMs: 60_000 }));
    await h.advance(9_999);
    expect(held.done).toBe(false);
    await h.advance(1);
    expect(leases(held.value)).toEqual([[0, 0, 1, 2]]);
  });

  it('answers a held acquire with no leases when maxWaitMs runs out', async () => {
    const { h, acquire } = await setup();
    const held = track(acquire('m1', { maxWaitMs: 2000 }));
    await h.advance(2000);
    expect(held.value).toMatchObject({ errorCode: 0, partitions: [] });
  });

  it('gives a member’s leases back at once when membership releases it', async () => {
    const { h, acquire, report, leases } = await setup();
    await report(3);
    await acquire('m1');
    const held = track(acquire('m2', { maxWaitMs: 60_000 }));
    await h.settle();
    h.shardOf(G).step(() => h.shardOf(G).sharePartitions.releaseMember(G, 'm1'));
    await h.settle();
    expect(leases(held.value)).toEqual([[0, 0, 2, 2]]);
  });

  it('after a restart, acknowledged offsets are never leased again and delivery counts do not go down', async () => {
    const { h, bind, acquire, ack, report, leases } = await setup();
    await report(6);
    await acquire('m1');
    await ack('m1', 0, 5, [1, 3, 2, 1, 2, 1]);
    expect(leases(await acquire('m2', { maxRecords: 1 }))).toEqual([[0, 2, 2, 2]]);
    await h.restart();
    bind();
    // Offset 2 was leased (count 2) when the node stopped: its next lease is its third.
    expect(leases(await acquire('m1'))).toEqual([
      [0, 2, 2, 3],
      [0, 4, 4, 2],
    ]);
    const dead = h.shardOf(G).sharePartitions.slot(G, 'jobs', 0)!.state.deadLetterList();
    expect(dead).toEqual([{ first: 1, last: 1, reason: 'rejected', count: 1 }]);
  });

  it('shows operators SPSO, the reported end, offsets per state and the oldest lease age', async () => {
    const { h, acquire, ack, report } = await setup();
    await report(10);
    await acquire('m1', { maxRecords: 4 });
    await h.advance(1500);
    await ack('m1', 0, 3, [1, 3, 1, 2]);
    await acquire('m2', { maxRecords: 2 });
    await h.advance(700);
    // 0-2 are done (2 acknowledged after 1 was rejected): SPSO 3; m2 holds 3 (again) and 4.
    expect((await h.coordinator.describeGroup(G)).sharePartitions).toEqual([
      {
        topic: 'jobs',
        partition: 0,
        startOffset: 3,
        endOffset: 10,
        stateEpoch: 0,
        offsets: { available: 5, acquired: 2, acknowledged: 0, archived: 0 },
        oldestLeaseAgeMs: 700,
      },
    ]);
  });

  it('redelivers dead letters: listed with reason and count, available again from zero, a held acquire woken', async () => {
    const { h, acquire, ack, report, leases } = await setup({ groupShareDeliveryCountLimit: 2 });
    await report(3);
    await acquire('m1');
    await ack('m1', 0, 2, [3, 2, 1]);
    expect(leases(await acquire('m1'))).toEqual([[0, 1, 1, 2]]);
    await ack('m1', 1, 1, [2]);
    expect(await h.coordinator.shareDeadLetters(G)).toEqual([
      { topic: 'jobs', partition: 0, firstOffset: 0, lastOffset: 0, reason: 'rejected', deliveryCount: 1 },
      { topic: 'jobs', partition: 0, firstOffset: 1, lastOffset: 1, reason: 'delivery-limit', deliveryCount: 2 },
    ]);
    const held = track(acquire('m2', { maxWaitMs: 60_000 }));
    await h.settle();
    expect(held.done).toBe(false);
    const redelivered = await h.coordinator.redeliverDeadLetters({
      groupId: G,
      topic: 'jobs',
      partition: 0,
      firstOffset: 0,
      lastOffset: 1,
    });
    expect(redelivered).toEqual({ errorCode: 0, redelivered: 2 });
    await h.settle();
    expect(leases(held.value)).toEqual([[0, 0, 1, 1]]);
    expect(await h.coordinator.shareDeadLetters(G)).toEqual([]);
    expect((await h.coordinator.describeGroup(G)).sharePartitions?.[0]).toMatchObject({
      startOffset: 0,
      stateEpoch: 1,
    });
  });

  it('a deleted group leaves no share partition state behind, a restart included, and its held acquires are answered 69', async () => {
    const { h, bind, acquire, report, leases } = await setup();
    await report(3);
    await acquire('m1');
    const held = track(acquire('m2', { maxWaitMs: 60_000 }));
    await h.settle();
    const shard = h.shardOf(G);
    shard.step(() => shard.sharePartitions.submit({ records: shard.sharePartitions.deleteGroup(G).records }));
    await h.settle();
    expect(held.value).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
    expect(shard.sharePartitions.slotsOf(G)).toEqual([]);
    await h.restart();
    bind();
    expect(h.shardOf(G).sharePartitions.slotsOf(G)).toEqual([]);
    // Started again from the reported start: everything is delivered afresh.
    expect(leases(await acquire('m1'))).toEqual([[0, 0, 2, 1]]);
  });

  it('a member that goes has its held acquire answered 25', async () => {
    const { h, acquire } = await setup();
    const held = track(acquire('m1', { maxWaitMs: 60_000 }));
    await h.settle();
    h.shardOf(G).step(() => h.shardOf(G).sharePartitions.releaseMember(G, 'm1'));
    await h.settle();
    expect(held.value).toMatchObject({ errorCode: ErrorCode.UNKNOWN_MEMBER_ID, partitions: [] });
  });

  it("writes a partition's snapshot once for the acquires and acknowledgements of one turn, holding all of them, and answers each after it commits", async () => {
    const { h, membership, stateRecords } = await setup();
    const shard = h.shardOf(G);
    shard.sharePartitions.membership = membership;
    // The first record's horizon ends at the reported end, 4: the third acquire's new offsets need a write.
    await h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset: 4 }]);
    const acquireOne = (memberId: string) =>
      h.coordinator.shareAcquire({ groupId: G, memberId, maxRecords: 2 }, h.context());
    const [first, second] = await Promise.all([acquireOne('m1'), acquireOne('m2')]);
    expect(first.partitions[0].leases).toEqual([{ firstOffset: 0, lastOffset: 1, deliveryCount: 1 }]);
    expect(second.partitions[0].leases).toEqual([{ firstOffset: 2, lastOffset: 3, deliveryCount: 1 }]);
    const before = stateRecords().length;
    await h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset: 10 }]);
    h.store.autoCommit = false;
    // One turn: an acknowledgement from each member and an acquire; nothing answers before the commit.
    const acks = ['m1', 'm2'].map((memberId, i) =>
      track(
        h.coordinator.shareAcknowledge(
          {
            groupId: G,
            memberId,
            acknowledgements: [
              {
                topic: 'jobs',
                partition: 0,
                batches: [{ firstOffset: 2 * i, lastOffset: 2 * i + 1, acknowledgeTypes: [1] }],
              },
            ],
          },
          h.context(),
        ),
      ),
    );
    const third = track(acquireOne('m1'));
    await h.settle();
    expect([...acks, third].map((p) => p.done)).toEqual([false, false, false]);
    const written = stateRecords().slice(before);
    expect(written).toHaveLength(1);
    // The one record holds the turn's every change: 0-3 acknowledged, 4-5 leased (written as delivered
    // once), and the horizon up to the reported end, 6-9 (delivered once as far as the log knows).
    expect(decodeSharePartitionSnapshot(written[0].value!).ranges).toEqual([
      { first: 0, last: 3, state: 2, count: 1, reason: null },
      { first: 4, last: 9, state: 0, count: 1, reason: null },
    ]);
    h.store.commitAll();
    await h.settle();
    expect(acks.map((a) => a.value.partitions[0].errorCode)).toEqual([0, 0]);
    expect(third.value.partitions[0].leases).toEqual([{ firstOffset: 4, lastOffset: 5, deliveryCount: 1 }]);
  });
});
