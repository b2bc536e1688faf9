import type * as P from '@cohort/protocol';
import { KafkaError } from '@cohort/protocol';
import { CoordinatorHarness, track } from '@cohort/coordinator/testing';
import { decodeSharePartitionSnapshot, SHARE_PARTITION_STATE_RECORD_TYPE } from './share-state-records';

// An offset reset of a share group (POST /v1/groups/:groupId/offsets/reset, Kafka's AlterShareGroupOffsets)
// through the coordinator on virtual time, with real share membership: the plan reads SPSO, executing
// needs the group Empty, starts each partition afresh under a new state epoch, answers after the
// commit, survives a restart, and a failed write changes nothing.

const G = 'share-reset';

async function setup() {
  const h = new CoordinatorHarness({
    topics: [
      { name: 'jobs', partitions: 1 },
      { name: 'other', partitions: 2 },
    ],
    config: { groupShareAutoOffsetReset: 'earliest', groupShareRecordLockDurationMs: 10_000 },
  });
  await h.settle();
  await h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset: 10 }]);
  await h.topics.setEndOffsets('other', [
    { partition: 0, endOffset: 4 },
    { partition: 1, endOffset: 4 },
  ]);
  const epochs = new Map<string, number>();
  const heartbeat = async (memberId: string, memberEpoch: number, topics = ['jobs']) => {
    const answer = await h.coordinator.shareGroupHeartbeat(
      { groupId: G, memberId, memberEpoch, subscribedTopicNames: topics },
      h.context(`conn-${memberId}`),
    );
    expect(answer.errorCode).toBe(0);
    epochs.set(memberId, answer.memberEpoch);
    return answer;
  };
  const join = (memberId: string, topics?: string[]) => heartbeat(memberId, 0, topics);
  const leave = (memberId: string) => heartbeat(memberId, -1);
  const acquire = (memberId: string, maxRecords = 100) =>
    h.coordinator.shareAcquire({ groupId: G, memberId, maxRecords }, h.context(`conn-${memberId}`));
  const ack = (memberId: string, firstOffset: number, lastOffset: number, types: number[]) =>
    h.coordinator.shareAcknowledge(
      {
        groupId: G,
        memberId,
        acknowledgements: [
          { topic: 'jobs', partition: 0, batches: [{ firstOffset, lastOffset, acknowledgeTypes: types }] },
        ],
      },
      h.context(`conn-${memberId}`),
    );
  const leases = (response: P.ShareAcquireResponse) =>
    response.partitions.flatMap((p) =>
      p.leases.map((l) => [p.partition, l.firstOffset, l.lastOffset, l.deliveryCount]),
    );
  const partitions = async () =>
    ((await h.coordinator.describeGroup(G)).sharePartitions ?? []).map((p) => ({
      partition: p.partition,
      startOffset: p.startOffset,
      stateEpoch: p.stateEpoch,
      offsets: p.offsets,
    }));
  const reset = (request: Partial<P.ResetOffsetsRequest>) =>
    h.coordinator.resetOffsetsTo(G, { topics: [{ name: 'jobs', partitions: [0] }], strategy: 'earliest', ...request });
  /** jobs-0: 0-2 acknowledged, 3 rejected (a dead letter), 4 released: SPSO 4, offsets 0-5 delivered once. */
  const worked = async () => {
    await join('m1');
    expect(leases(await acquire('m1', 6))).toEqual([[0, 0, 5, 1]]);
    expect((await ack('m1', 0, 4, [1, 1, 1, 3, 2])).partitions[0].errorCode).toBe(0);
    await leave('m1');
  };
  return { h, join, leave, acquire, ack, leases, partitions, reset, worked };
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof KafkaError ? `${error.errorName}: ${error.message}` : String(error)),
  );

describe('offset reset of a share group', () => {
  it('previews SPSO as the current offset and changes nothing on a dry run', async () => {
    const { partitions, reset, worked } = await setup();
    await worked();
    const before = await partitions();
    expect(before).toEqual([
      {
        partition: 0,
        startOffset: 4,
        stateEpoch: 0,
        offsets: { available: 6, acquired: 0, acknowledged: 0, archived: 0 },
      },
    ]);
    expect(await reset({ strategy: 'earliest' })).toEqual({
      groupId: G,
      dryRun: true,
      offsets: [{ topic: 'jobs', partition: 0, currentOffset: 4, newOffset: 0 }],
    });
    // allTopics: every partition the group has state for; shift is kept within the reported start and end.
    expect(await reset({ topics: undefined, allTopics: true, strategy: 'shift', value: -100 })).toMatchObject({
      offsets: [{ topic: 'jobs', partition: 0, currentOffset: 4, newOffset: 0 }],
    });
    expect(await reset({ strategy: 'shift', value: 100 })).toMatchObject({
      offsets: [{ topic: 'jobs', partition: 0, currentOffset: 4, newOffset: 10 }],
    });
    expect(await reset({ strategy: 'current' })).toMatchObject({ offsets: [{ currentOffset: 4, newOffset: 4 }] });
    expect(await partitions()).toEqual(before);
  });

  it('moves SPSO back under a new state epoch, discarding what was done, and a member joining afterwards leases from it from count zero', async () => {
    const { h, join, acquire, leases, partitions, reset, worked } = await setup();
    await worked();
    expect(await reset({ strategy: 'offset', value: 2, dryRun: false })).toEqual({
      groupId: G,
      dryRun: false,
      offsets: [{ topic: 'jobs', partition: 0, currentOffset: 4, newOffset: 2 }],
    });
    expect(await partitions()).toEqual([
      {
        partition: 0,
        startOffset: 2,
        stateEpoch: 1,
        offsets: { available: 8, acquired: 0, acknowledged: 0, archived: 0 },
      },
    ]);
    // The dead letter at 3 and the count of 4 and 5 went with the old state.
    expect(await h.coordinator.shareDeadLetters(G)).toEqual([]);
    await join('m2');
    expect(leases(await acquire('m2', 4))).toEqual([[0, 2, 5, 1]]);
  });

  it('is replayed after a restart: the reset state, not the state before it', async () => {
    const { h, join, acquire, leases, partitions, reset, worked } = await setup();
    await worked();
    await reset({ strategy: 'latest', dryRun: false });
    const records = h.store
      .records(h.partitionOf(G))
      .filter((r) => r.key !== null && JSON.parse(r.key.toString())[0] === SHARE_PARTITION_STATE_RECORD_TYPE);
    const last = decodeSharePartitionSnapshot(records[records.length - 1].value!);
    expect(last).toEqual({ stateEpoch: 1, startOffset: 10, endOffset: 10, ranges: [], deadLetters: [] });
    await h.restart();
    expect(await partitions()).toEqual([
      {
        partition: 0,
        startOffset: 10,
        stateEpoch: 1,
        offsets: { available: 0, acquired: 0, acknowledged: 0, archived: 0 },
      },
    ]);
    await h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset: 12 }]);
    await join('m2');
    expect(leases(await acquire('m2')).filter(([partition]) => partition === 0)).toEqual([[0, 10, 11, 1]]);
  });

  it('initialises a partition the group never worked at the chosen offset', async () => {
    const { h, join, acquire, leases, reset, worked } = await setup();
    await worked();
    const result = await reset({
      topics: [{ name: 'other', partitions: [1] }],
      strategy: 'offset',
      value: 3,
      dryRun: false,
    });
    expect(result.offsets).toEqual([{ topic: 'other', partition: 1, currentOffset: null, newOffset: 3 }]);
    const shown = async () =>
      ((await h.coordinator.describeGroup(G)).sharePartitions ?? []).map((p) => [
        p.topic,
        p.partition,
        p.startOffset,
        p.stateEpoch,
      ]);
    expect(await shown()).toEqual([
      ['jobs', 0, 4, 0],
      ['other', 1, 3, 0],
    ]);
    await h.restart();
    expect(await shown()).toEqual([
      ['jobs', 0, 4, 0],
      ['other', 1, 3, 0],
    ]);
    await join('m2', ['other']);
    expect(leases(await acquire('m2')).filter(([partition]) => partition === 1)).toEqual([[1, 3, 3, 1]]);
  });

  it('refuses to execute while the group has members (NON_EMPTY_GROUP), changing nothing', async () => {
    const { join, acquire, partitions, reset } = await setup();
    await join('m1');
    await acquire('m1', 3);
    const before = await partitions();
    expect(await errorOf(reset({ dryRun: false }))).toBe(
      `NON_EMPTY_GROUP: share group '${G}' is Stable with 1 member(s); its start offsets can be reset only while it is Empty (stop its members first)`,
    );
    expect(await partitions()).toEqual(before);
    // A preview is still given.
    expect((await reset({})).offsets).toEqual([{ topic: 'jobs', partition: 0, currentOffset: 0, newOffset: 0 }]);
  });

  it('answers only once the record is committed', async () => {
    const { h, partitions, worked } = await setup();
    await worked();
    h.store.autoCommit = false;
    const pending = track(h.coordinator.resetOffsetsTo(G, { allTopics: true, strategy: 'earliest', dryRun: false }));
    await h.settle();
    expect(pending.done).toBe(false);
    h.store.advanceHighWatermark(h.partitionOf(G));
    await h.settle();
    expect(pending.value.dryRun).toBe(false);
    expect((await partitions())[0]).toMatchObject({ startOffset: 0, stateEpoch: 1 });
  });

  it('a failed write changes nothing, in memory or after a restart', async () => {
    const { h, join, acquire, leases, partitions, reset, worked } = await setup();
    await worked();
    const before = await partitions();
    const deadBefore = await h.coordinator.shareDeadLetters(G);
    h.store.failNextAppend(h.partitionOf(G), KafkaError.of('NOT_ENOUGH_REPLICAS'));
    expect(await errorOf(reset({ dryRun: false }))).toBe(
      `COORDINATOR_NOT_AVAILABLE: cannot reset the start offsets of share group '${G}': COORDINATOR_NOT_AVAILABLE`,
    );
    expect(await partitions()).toEqual(before);
    expect(await h.coordinator.shareDeadLetters(G)).toEqual(deadBefore);
    // The old state still serves: 4 (released) is delivered a second time, 5 a second time too.
    await join('m2');
    expect(leases(await acquire('m2', 2))).toEqual([[0, 4, 5, 2]]);
    await h.restart();
    expect((await partitions())[0]).toMatchObject({ startOffset: 4, stateEpoch: 0 });
  });

  it('sets start offsets as given (POST /v1/groups/:groupId/offsets), refusing an unknown partition, a negative offset or a partition named twice', async () => {
    const { h, partitions, worked } = await setup();
    await worked();
    const set = (partitionIndex: number, committedOffset: number, twice = false) =>
      h.coordinator.resetOffsets(G, [
        {
          name: 'jobs',
          partitions: [{ partitionIndex, committedOffset }, ...(twice ? [{ partitionIndex, committedOffset }] : [])],
        },
      ]);
    const before = await partitions();
    expect(await errorOf(set(5, 1))).toBe("UNKNOWN_TOPIC_OR_PARTITION: topic 'jobs' has no partition 5");
    expect(await errorOf(set(0, -1))).toBe('INVALID_REQUEST: jobs-0: a start offset cannot be -1');
    expect(await errorOf(set(0, 1, true))).toBe('INVALID_REQUEST: jobs-0 is named more than once');
    expect(await partitions()).toEqual(before);
    expect(await set(0, 1)).toEqual({
      errorCode: 0,
      topics: [{ name: 'jobs', partitions: [{ partitionIndex: 0, errorCode: 0 }] }],
    });
    expect((await partitions())[0]).toMatchObject({ startOffset: 1, stateEpoch: 1 });
    // No classic group was made of its id.
    expect((await h.coordinator.describeGroup(G)).type).toBe('share');
  });
});
