import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';
import { SHARE_PARTITION_STATE_RECORD_TYPE } from '../share/share-state-records';

const MINUTE = 60_000;
const ctx = { clientId: 'client', clientHost: '/127.0.0.1' };

/**
 * The purge task deletes Empty groups of every type (Kafka's `cleanupGroupMetadata`: expired offsets,
 * then every Empty group left without offsets), not only classic ones: a consumer group (KIP-848) with
 * the tombstones DeleteGroups writes, a share group (KIP-932) with its share partitions' state too.
 * Retention of 10 minutes, purged every minute; sessions long enough that no member is fenced.
 */
async function harness(): Promise<CoordinatorHarness> {
  const h = new CoordinatorHarness({
    topics: [
      { name: 'orders', partitions: 2 },
      { name: 'jobs', partitions: 1 },
    ],
    consumerAssignors: [createUniformAssignor()],
    config: {
      offsetsRetentionMinutes: 10,
      offsetsRetentionCheckIntervalMs: MINUTE,
      groupConsumerSessionTimeoutMs: 1_800_000,
      groupShareSessionTimeoutMs: 1_800_000,
      groupShareAutoOffsetReset: 'earliest',
    },
  });
  await h.settle();
  return h;
}

const consumerHeartbeat = (h: CoordinatorHarness, groupId: string, memberId: string, memberEpoch: number) =>
  h.coordinator.consumerGroupHeartbeat(
    memberEpoch === 0
      ? {
          groupId,
          memberId,
          memberEpoch,
          subscribedTopicNames: ['orders'],
          rebalanceTimeoutMs: 60_000,
          topicPartitions: [],
        }
      : { groupId, memberId, memberEpoch },
    ctx,
  );

/** A member joins the consumer group (epoch 0) and, with `leave`, leaves it (epoch -1): the group is Empty. */
async function consumerGroup(h: CoordinatorHarness, groupId: string, leave: boolean): Promise<number> {
  const joined = await consumerHeartbeat(h, groupId, 'member-a', 0);
  expect(joined.errorCode).toBe(0);
  if (leave) expect((await consumerHeartbeat(h, groupId, 'member-a', -1)).errorCode).toBe(0);
  return joined.memberEpoch;
}

async function shareHeartbeat(h: CoordinatorHarness, groupId: string, memberId: string, memberEpoch: number) {
  const answer = await h.coordinator.shareGroupHeartbeat(
    { groupId, memberId, memberEpoch, subscribedTopicNames: memberEpoch === 0 ? ['jobs'] : undefined },
    h.context(`conn-${memberId}`),
  );
  expect(answer.errorCode).toBe(0);
  return answer;
}

const acquire = (h: CoordinatorHarness, groupId: string, memberId: string) =>
  h.coordinator.shareAcquire({ groupId, memberId, maxRecords: 100 }, h.context(`conn-${memberId}`));
const leases = (response: P.ShareAcquireResponse) =>
  response.partitions.flatMap((p) => p.leases.map((l) => [l.firstOffset, l.lastOffset, l.deliveryCount]));

const describeConsumer = async (h: CoordinatorHarness, groupId: string) =>
  (await h.coordinator.consumerGroupDescribe({ groupIds: [groupId] })).groups[0];
const describeShare = async (h: CoordinatorHarness, groupId: string) =>
  (await h.coordinator.shareGroupDescribe({ groupIds: [groupId] })).groups[0];
const listed = async (h: CoordinatorHarness) =>
  (await h.coordinator.listGroups({})).groups.map((g) => `${g.groupId}:${g.groupType}:${g.groupState}`).sort();
const committed = async (h: CoordinatorHarness, groupId: string) =>
  (await h.coordinator.offsetFetch({ groupId, topics: [{ name: 'orders', partitionIndexes: [0] }] })).topics[0]
    .partitions[0].committedOffset;

describe('the purge task deletes Empty groups of every type (Kafka cleanupGroupMetadata)', () => {
  it('deletes an Empty consumer group without offsets at the next retention check, for good', async () => {
    const h = await harness();
    await consumerGroup(h, 'cg', true);
    expect(await listed(h)).toEqual(['cg:consumer:Empty']);
    await h.advance(MINUTE);
    expect((await describeConsumer(h, 'cg')).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(await listed(h)).toEqual([]);
    await h.restart();
    expect((await describeConsumer(h, 'cg')).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(await listed(h)).toEqual([]);
    // The id is free: a member joining again makes a new group.
    expect(await consumerGroup(h, 'cg', false)).toBe(1);
  });

  it('deletes an Empty share group at the next retention check, with its share partitions’ state, for good', async () => {
    const h = await harness();
    await h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset: 3 }]);
    await shareHeartbeat(h, 'sg', 'm1', 0);
    expect(leases(await acquire(h, 'sg', 'm1'))).toEqual([[0, 2, 1]]);
    await shareHeartbeat(h, 'sg', 'm1', -1);
    expect(await listed(h)).toEqual(['sg:share:Empty']);
    await h.advance(MINUTE);
    expect((await describeShare(h, 'sg')).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(await listed(h)).toEqual([]);
    const state = h.store
      .records(h.partitionOf('sg'))
      .filter((r) => r.key !== null && JSON.parse(r.key.toString())[0] === SHARE_PARTITION_STATE_RECORD_TYPE);
    expect(state.at(-1)).toMatchObject({ value: null });
    await h.restart();
    expect((await describeShare(h, 'sg')).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(await listed(h)).toEqual([]);
    // A group made again under the id starts fresh: its records were delivered once before, not counted again.
    await shareHeartbeat(h, 'sg', 'm2', 0);
    expect(leases(await acquire(h, 'sg', 'm2'))).toEqual([[0, 2, 1]]);
  });

  it('keeps an Empty consumer group while it has committed offsets, and deletes it with them once they expire', async () => {
    const h = await harness();
    const epoch = await consumerGroup(h, 'cg', false);
    const commit = await h.coordinator.offsetCommit(
      {
        groupId: 'cg',
        generationId: epoch,
        memberId: 'member-a',
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 42 }] }],
      },
      ctx,
    );
    expect(commit.errorCode).toBe(0);
    expect((await consumerHeartbeat(h, 'cg', 'member-a', -1)).errorCode).toBe(0);
    await h.advance(9 * MINUTE);
    expect((await describeConsumer(h, 'cg')).groupState).toBe('Empty');
    expect(await listed(h)).toEqual(['cg:consumer:Empty']);
    expect(await committed(h, 'cg')).toBe(42);
    await h.restart();
    expect((await describeConsumer(h, 'cg')).groupState).toBe('Empty');
    await h.advance(1 * MINUTE);
    expect(await committed(h, 'cg')).toBe(-1);
    expect((await describeConsumer(h, 'cg')).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(await listed(h)).toEqual([]);
    await h.restart();
    expect((await describeConsumer(h, 'cg')).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(await committed(h, 'cg')).toBe(-1);
    expect(await listed(h)).toEqual([]);
  });

  it("keeps a consumer group's offsets of the topics it subscribes to whatever their age, and expires the others (Kafka's cleanupExpiredOffsets)", async () => {
    const h = await harness();
    const epoch = await consumerGroup(h, 'cg', false);
    const commit = await h.coordinator.offsetCommit(
      {
        groupId: 'cg',
        generationId: epoch,
        memberId: 'member-a',
        topics: [
          { name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 42 }] },
          { name: 'jobs', partitions: [{ partitionIndex: 0, committedOffset: 7 }] },
        ],
      },
      ctx,
    );
    expect(commit.errorCode).toBe(0);
    const jobs = async () =>
      (await h.coordinator.offsetFetch({ groupId: 'cg', topics: [{ name: 'jobs', partitionIndexes: [0] }] })).topics[0]
        .partitions[0].committedOffset;
    // The member subscribes to orders only, and reads on without committing for twenty minutes.
    await h.advance(20 * MINUTE);
    expect(await committed(h, 'cg')).toBe(42);
    expect(await jobs()).toBe(-1);
    await h.restart();
    await h.advance(MINUTE);
    expect(await committed(h, 'cg')).toBe(42);
    // Once nobody subscribes to orders, its offset ages out as any other.
    expect((await consumerHeartbeat(h, 'cg', 'member-a', -1)).errorCode).toBe(0);
    await h.advance(MINUTE);
    expect(await committed(h, 'cg')).toBe(-1);
  });

  it('never touches a group with a member, while the Empty ones beside it go', async () => {
    const h = await harness();
    await consumerGroup(h, 'cg-live', false);
    await consumerGroup(h, 'cg-empty', true);
    await shareHeartbeat(h, 'sg-live', 'm1', 0);
    await shareHeartbeat(h, 'sg-empty', 'm2', 0);
    await shareHeartbeat(h, 'sg-empty', 'm2', -1);
    await h.advance(20 * MINUTE);
    expect(await listed(h)).toEqual(['cg-live:consumer:Stable', 'sg-live:share:Stable']);
    expect((await describeConsumer(h, 'cg-live')).members.map((m) => m.memberId)).toEqual(['member-a']);
    expect((await describeShare(h, 'sg-live')).members.map((m) => m.memberId)).toEqual(['m1']);
    await h.restart();
    expect(await listed(h)).toEqual(['cg-live:consumer:Stable', 'sg-live:share:Stable']);
  });

  it('keeps an Empty consumer group whose deletion failed to be written, and deletes it at the next check', async () => {
    const h = await harness();
    await consumerGroup(h, 'cg', true);
    h.store.failNextAppend(h.partitionOf('cg'), KafkaError.of('NOT_ENOUGH_REPLICAS'));
    await h.advance(MINUTE);
    expect((await describeConsumer(h, 'cg')).groupState).toBe('Empty');
    await h.advance(MINUTE);
    expect((await describeConsumer(h, 'cg')).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
  });
});
