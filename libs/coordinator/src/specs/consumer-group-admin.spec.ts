import { createServerRangeAssignor, createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/**
 * DeleteGroups, DescribeGroups and OffsetDelete for a consumer group (KIP-848), as Kafka 4 answers
 * them: a group is deleted only when Empty (NON_EMPTY_GROUP, 68), with its offsets; the classic
 * describe refuses it (GROUP_ID_NOT_FOUND, 69, state Dead); offsets of topics its members subscribe to
 * are kept (GROUP_SUBSCRIBED_TO_TOPIC, 86) and the others deleted.
 */
describe('admin requests on a consumer group (Kafka GroupMetadataManager / OffsetMetadataManager)', () => {
  let h: CoordinatorHarness;
  const ctx = { clientId: 'client', clientHost: '/127.0.0.1' };

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [
        { name: 'orders', partitions: 2 },
        { name: 'audit', partitions: 1 },
      ],
      consumerAssignors: [createUniformAssignor(), createServerRangeAssignor()],
    });
    await h.settle();
  });

  const heartbeat = (request: Partial<P.ConsumerGroupHeartbeatRequest> & { memberId: string; memberEpoch: number }) =>
    h.coordinator.consumerGroupHeartbeat({ groupId: 'cg', ...request }, ctx);
  const join = () =>
    heartbeat({
      memberId: 'member-a',
      memberEpoch: 0,
      subscribedTopicNames: ['orders'],
      rebalanceTimeoutMs: 60_000,
      topicPartitions: [],
    });
  const commit = (memberId: string, generationId: number, topic: string, offset: number) =>
    h.coordinator.offsetCommit(
      {
        groupId: 'cg',
        generationId,
        memberId,
        topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: offset }] }],
      },
      ctx,
    );
  const fetched = async (topic: string) =>
    (await h.coordinator.offsetFetch({ groupId: 'cg', topics: [{ name: topic, partitionIndexes: [0] }] })).topics[0]
      .partitions[0].committedOffset;
  const deleteCg = async () => (await h.coordinator.deleteGroups({ groupsNames: ['cg'] })).results[0].errorCode;
  const offsetDelete = (...topics: string[]) =>
    h.coordinator.offsetDelete({
      groupId: 'cg',
      topics: topics.map((name) => ({ name, partitions: [{ partitionIndex: 0 }] })),
    });
  const describeCg = async () => (await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).groups[0].errorCode;

  /** A member joins, commits `orders`, and (with `leave`) leaves, so the group is Empty with its offsets. */
  async function groupWithOffsets(leave: boolean): Promise<void> {
    const joined = await join();
    expect((await commit('member-a', joined.memberEpoch, 'orders', 42)).errorCode).toBe(0);
    expect((await commit('member-a', joined.memberEpoch, 'audit', 7)).errorCode).toBe(0);
    if (leave) expect((await heartbeat({ memberId: 'member-a', memberEpoch: -1 })).errorCode).toBe(0);
  }

  it('refuses to delete a consumer group with members (NON_EMPTY_GROUP) and keeps it and its offsets', async () => {
    await groupWithOffsets(false);
    expect(await deleteCg()).toBe(ErrorCode.NON_EMPTY_GROUP);
    expect(await describeCg()).toBe(0);
    expect(await fetched('orders')).toBe(42);
  });

  it('deletes an Empty consumer group with its offsets, for good: a restart does not bring either back', async () => {
    await groupWithOffsets(true);
    expect(await deleteCg()).toBe(ErrorCode.NONE);
    expect(await describeCg()).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(await fetched('orders')).toBe(-1);
    expect(await deleteCg()).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    await h.restart();
    expect(await describeCg()).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(await fetched('orders')).toBe(-1);
    expect((await h.coordinator.listGroups({})).groups).toEqual([]);
  });

  it('keeps an Empty consumer group and its offsets when the deletion fails to be written', async () => {
    await groupWithOffsets(true);
    h.store.failNextAppend(h.partitionOf('cg'), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'moved'));
    expect(await deleteCg()).toBe(ErrorCode.NOT_COORDINATOR);
    expect(await describeCg()).toBe(0);
    expect(await fetched('orders')).toBe(42);
    const rejoined = await join();
    expect(rejoined.errorCode).toBe(0);
  });

  it("answers the classic DescribeGroups of a consumer group id with GROUP_ID_NOT_FOUND, the state Dead and Kafka's message", async () => {
    await groupWithOffsets(false);
    await h.stableGroup('classic-g', 1);
    const described = await h.coordinator.describeGroups({ groups: ['cg', 'classic-g'] });
    expect(described.groups[0]).toEqual({
      errorCode: ErrorCode.GROUP_ID_NOT_FOUND,
      errorName: 'GROUP_ID_NOT_FOUND',
      errorMessage: 'Group cg is not a classic group.',
      groupId: 'cg',
      groupState: 'Dead',
      protocolType: '',
      protocolData: '',
      members: [],
    });
    expect(described.groups[1]).toMatchObject({ errorCode: 0, groupId: 'classic-g', groupState: 'Stable' });
  });

  it('keeps the offsets of topics the members subscribe to (GROUP_SUBSCRIBED_TO_TOPIC) and deletes the others', async () => {
    await groupWithOffsets(false);
    const answer = await offsetDelete('orders', 'audit');
    expect(answer.errorCode).toBe(0);
    expect(answer.topics.map((t) => [t.name, t.partitions[0].errorCode])).toEqual([
      ['orders', ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC],
      ['audit', ErrorCode.NONE],
    ]);
    expect(await fetched('orders')).toBe(42);
    expect(await fetched('audit')).toBe(-1);
    expect(await describeCg()).toBe(0);
  });

  it('keeps the offsets of topics a member matches by regex (GROUP_SUBSCRIBED_TO_TOPIC) and deletes the others', async () => {
    const joined = await heartbeat({
      memberId: 'member-r',
      memberEpoch: 0,
      subscribedTopicRegex: 'ord.*',
      rebalanceTimeoutMs: 60_000,
      topicPartitions: [],
    });
    expect(joined.errorCode).toBe(0);
    expect((await commit('member-r', joined.memberEpoch, 'orders', 42)).errorCode).toBe(0);
    expect((await commit('member-r', joined.memberEpoch, 'audit', 7)).errorCode).toBe(0);
    const answer = await offsetDelete('orders', 'audit');
    expect(answer.topics.map((t) => [t.name, t.partitions[0].errorCode])).toEqual([
      ['orders', ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC],
      ['audit', ErrorCode.NONE],
    ]);
    expect(await fetched('orders')).toBe(42);
    expect(await fetched('audit')).toBe(-1);
  });

  it('deletes any offset of an Empty consumer group, and answers a consumer group without offsets without error', async () => {
    await groupWithOffsets(true);
    const answer = await offsetDelete('orders');
    expect(answer.topics[0].partitions[0].errorCode).toBe(ErrorCode.NONE);
    expect(await fetched('orders')).toBe(-1);
    await h.restart();
    expect(await fetched('orders')).toBe(-1);
    expect(await fetched('audit')).toBe(7);

    const other = await heartbeat({
      groupId: 'cg-no-offsets',
      memberId: 'member-b',
      memberEpoch: 0,
      subscribedTopicNames: ['orders'],
      rebalanceTimeoutMs: 60_000,
      topicPartitions: [],
    });
    expect(other.errorCode).toBe(0);
    const none = await h.coordinator.offsetDelete({
      groupId: 'cg-no-offsets',
      topics: [{ name: 'audit', partitions: [{ partitionIndex: 0 }] }],
    });
    expect(none).toMatchObject({
      errorCode: 0,
      topics: [{ name: 'audit', partitions: [{ errorCode: ErrorCode.NONE }] }],
    });
  });

  it('answers ConsumerGroupHeartbeat and ConsumerGroupDescribe UNSUPPORTED_VERSION on a node that serves only the classic protocol, and creates no group', async () => {
    const classicOnly = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 2 }],
      consumerAssignors: [createUniformAssignor()],
      config: { rebalanceProtocols: ['classic'] },
    });
    await classicOnly.settle();
    const refused = await classicOnly.coordinator.consumerGroupHeartbeat(
      { groupId: 'cg', memberId: 'member-a', memberEpoch: 0, subscribedTopicNames: ['orders'], topicPartitions: [] },
      ctx,
    );
    expect(refused).toMatchObject({ errorCode: ErrorCode.UNSUPPORTED_VERSION, memberId: null });
    const described = await classicOnly.coordinator.consumerGroupDescribe({ groupIds: ['cg', 'other'] });
    expect(described.groups.map((g) => [g.groupId, g.errorCode])).toEqual([
      ['cg', ErrorCode.UNSUPPORTED_VERSION],
      ['other', ErrorCode.UNSUPPORTED_VERSION],
    ]);
    expect((await classicOnly.coordinator.listGroups({})).groups).toEqual([]);
  });
});
