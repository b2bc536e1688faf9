import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

async function fetchOne(
  h: CoordinatorHarness,
  groupId: string,
  topic: string,
  partition: number,
  requireStable = false,
) {
  return (await h.fetch(groupId, [{ name: topic, partitionIndexes: [partition] }], requireStable)).topics[0]
    .partitions[0];
}

describe('OffsetCommit and OffsetFetch', () => {
  let h: CoordinatorHarness;
  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [
        { name: 'orders', partitions: 4 },
        { name: 'audit', partitions: 1 },
      ],
    });
    await h.settle();
  });

  it('answers only after the records commit, and nobody sees the offset before (requireStable sees it pending)', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    h.store.autoCommit = false;
    const commit = h.commit('g', generationId, memberIds[0], { orders: { 0: 10 } }, 'checkpoint-1');
    await h.settle();
    expect(commit.done).toBe(false);
    expect(await fetchOne(h, 'g', 'orders', 0)).toMatchObject({ committedOffset: -1, errorCode: 0 });
    expect(await fetchOne(h, 'g', 'orders', 0, true)).toMatchObject({
      committedOffset: -1,
      errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT,
    });
    expect(await h.coordinator.committedOffsets('g')).toEqual([]);
    h.store.commitAll();
    await h.settle();
    expect(commit.value).toEqual({
      errorCode: 0,
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, errorCode: 0 }] }],
    });
    expect(await fetchOne(h, 'g', 'orders', 0, true)).toEqual({
      partitionIndex: 0,
      committedOffset: 10,
      committedLeaderEpoch: -1,
      metadata: 'checkpoint-1',
      errorCode: 0,
    });
  });

  it('metadata longer than OFFSET_METADATA_MAX_BYTES fails only that partition', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    const response = await h.coordinator.offsetCommit(
      {
        groupId: 'g',
        generationId,
        memberId: memberIds[0],
        topics: [
          {
            name: 'orders',
            partitions: [
              { partitionIndex: 0, committedOffset: 1, committedMetadata: 'x'.repeat(4097) },
              { partitionIndex: 1, committedOffset: 2, committedMetadata: 'é'.repeat(2048) }, // 4096 bytes of UTF-8
            ],
          },
        ],
      },
      h.context(),
    );
    expect(response.errorCode).toBe(0);
    expect(response.topics[0].partitions).toEqual([
      { partitionIndex: 0, errorCode: ErrorCode.OFFSET_METADATA_TOO_LARGE },
      { partitionIndex: 1, errorCode: 0 },
    ]);
    expect((await fetchOne(h, 'g', 'orders', 0)).committedOffset).toBe(-1);
    expect((await fetchOne(h, 'g', 'orders', 1)).committedOffset).toBe(2);
  });

  it('an unknown topic or a partition beyond its count is UNKNOWN_TOPIC_OR_PARTITION for that partition only', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    const commit = h.commit('g', generationId, memberIds[0], { orders: { 3: 5, 4: 6 }, ghosts: { 0: 1 } });
    await h.settle();
    expect(commit.value.topics).toEqual([
      {
        name: 'orders',
        partitions: [
          { partitionIndex: 3, errorCode: 0 },
          { partitionIndex: 4, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
        ],
      },
      { name: 'ghosts', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
    ]);
  });

  it('a simple consumer (generation -1) creates an offsets-only Empty group; generation >= 0 for an unknown group is ILLEGAL_GENERATION', async () => {
    const illegal = h.commit('nope', 0, 'client-x', { orders: { 0: 1 } });
    const simple = h.commit('manual', -1, '', { orders: { 0: 7 } });
    await h.settle();
    expect(illegal.value.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect((await h.describe('nope')).groupState).toBe('Dead');
    expect(simple.value.errorCode).toBe(0);
    expect(await h.describe('manual')).toMatchObject({ groupState: 'Empty', protocolType: '' });
    expect((await fetchOne(h, 'manual', 'orders', 0)).committedOffset).toBe(7);
  });

  it('validates the committer: non-members of a non-empty group, unknown members and old generations are refused', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    const outsider = h.commit('g', -1, '', { orders: { 0: 1 } });
    const stranger = h.commit('g', generationId, 'client-x', { orders: { 0: 1 } });
    const stale = h.commit('g', generationId - 1, memberIds[0], { orders: { 0: 1 } });
    await h.settle();
    expect(outsider.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(stranger.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(stale.value.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(stale.value.topics[0].partitions[0].errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
  });

  it('during PreparingRebalance the current generation may still commit (before rejoining)', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 2);
    h.join('g', memberIds[0]);
    await h.settle();
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
    const commit = h.commit('g', generationId, memberIds[1], { orders: { 1: 99 } });
    await h.settle();
    expect(commit.value.errorCode).toBe(0);
  });

  it('a commit keeps the committing member alive (it resets its session)', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 1, { sessionTimeoutMs: 10_000 });
    for (let i = 0; i < 3; i++) {
      await h.advance(8000);
      h.commit('g', generationId, memberIds[0], { orders: { 0: i } });
      await h.settle();
    }
    expect((await h.describe('g')).groupState).toBe('Stable');
  });

  it('maps store failures like Kafka: timeout → REQUEST_TIMED_OUT, too few replicas → COORDINATOR_NOT_AVAILABLE, lost leadership → NOT_COORDINATOR', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 1, { sessionTimeoutMs: 60_000 });
    const member = memberIds[0];
    h.store.autoCommit = false;
    const timedOut = h.commit('g', generationId, member, { orders: { 0: 1 } });
    await h.advance(h.config.offsetsCommitTimeoutMs);
    expect(timedOut.value.errorCode).toBe(ErrorCode.REQUEST_TIMED_OUT);
    // The record is in the log and may still commit: the offset stays pending until the log decides.
    expect((await fetchOne(h, 'g', 'orders', 0, true)).errorCode).toBe(ErrorCode.UNSTABLE_OFFSET_COMMIT);
    h.store.advanceHighWatermark(h.partitionOf('g'));
    await h.settle();
    expect(await fetchOne(h, 'g', 'orders', 0, true)).toMatchObject({ committedOffset: 1, errorCode: 0 });

    h.store.failNextAppend(h.partitionOf('g'), new KafkaError(ErrorCode.NOT_ENOUGH_REPLICAS));
    const refused = h.commit('g', generationId, member, { orders: { 0: 2 } });
    await h.settle();
    expect(refused.value.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);

    const lost = h.commit('g', generationId, member, { orders: { 0: 3 } });
    await h.settle();
    h.store.resign(h.partitionOf('g'));
    await h.settle();
    expect(lost.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });

  it('the later of two commits in flight wins; the partition stays unstable until the last one commits', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    h.store.autoCommit = false;
    // Two turns, so two batches: a batch's writes complete together, once its last record commits (as
    // Kafka's runtime completes a batch's deferred events), and the first must commit on its own here.
    const first = h.commit('g', generationId, memberIds[0], { orders: { 0: 100 } });
    await h.settle();
    const second = h.commit('g', generationId, memberIds[0], { orders: { 0: 200 } });
    await h.settle();
    const partition = h.partitionOf('g');
    const { logEndOffset } = h.store.offsets(partition);
    h.store.advanceHighWatermark(partition, logEndOffset - 1); // only the first commit's record
    await h.settle();
    expect(first.done && !second.done).toBe(true);
    expect(await fetchOne(h, 'g', 'orders', 0, true)).toMatchObject({ errorCode: ErrorCode.UNSTABLE_OFFSET_COMMIT });
    expect((await fetchOne(h, 'g', 'orders', 0)).committedOffset).toBe(100);
    h.store.commitAll();
    await h.settle();
    expect((await fetchOne(h, 'g', 'orders', 0, true)).committedOffset).toBe(200);
  });

  it('OffsetFetch with topics null lists every committed offset; an unknown group answers -1', async () => {
    const { memberIds, generationId } = await h.stableGroup('g', 1);
    h.commit('g', generationId, memberIds[0], { orders: { 2: 5, 0: 3 }, audit: { 0: 9 } });
    await h.settle();
    const all = await h.fetch('g', null);
    expect(all.topics.map((t) => [t.name, t.partitions.map((p) => [p.partitionIndex, p.committedOffset])])).toEqual([
      ['audit', [[0, 9]]],
      [
        'orders',
        [
          [0, 3],
          [2, 5],
        ],
      ],
    ]);
    expect(await h.fetch('missing', null)).toEqual({ errorCode: 0, topics: [] });
    expect((await fetchOne(h, 'missing', 'orders', 1)).committedOffset).toBe(-1);
  });

  it("keeps the committer's leader epoch and metadata, stamps the commit with the coordinator's clock, and all of it survives a restart", async () => {
    await h.advance(12_345);
    const response = await h.coordinator.offsetCommit(
      {
        groupId: 'simple',
        generationId: -1,
        topics: [
          {
            name: 'orders',
            partitions: [
              { partitionIndex: 2, committedOffset: 77, committedLeaderEpoch: 9, committedMetadata: 'ckpt' },
            ],
          },
        ],
      },
      h.context(),
    );
    expect(response.errorCode).toBe(0);
    const committedAt = h.clock.now();
    await h.advance(1000);
    await h.restart();
    expect(await fetchOne(h, 'simple', 'orders', 2)).toEqual({
      partitionIndex: 2,
      committedOffset: 77,
      committedLeaderEpoch: 9,
      metadata: 'ckpt',
      errorCode: 0,
    });
    expect(await h.coordinator.committedOffsets('simple')).toEqual([
      {
        topic: 'orders',
        partition: 2,
        committedOffset: 77,
        leaderEpoch: 9,
        metadata: 'ckpt',
        commitTimestamp: committedAt,
      },
    ]);
  });
});
