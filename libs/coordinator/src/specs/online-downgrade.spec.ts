import { createUniformAssignor } from '@cohort/assignors';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';
import type { ConsumerGroupMigrationPolicy } from '@cohort/coordinator/ports/coordinator-config';
import {
  type ClassicClient,
  consumerJoin,
  ownedOnce,
  recordTypes,
  rejoin,
  stableClassicGroup,
  subscription,
} from '../../testing/migration-fixtures';

// Kafka's GroupMetadataManagerTest online-downgrade cases (testLastConsumerProtocolMemberLeavingConsumerGroup,
// testLastConsumerProtocolMemberSessionTimeoutInConsumerGroup, …DowngradeDisabled), over the shard.

const ctx = { clientId: 'client', clientHost: '/127.0.0.1', connectionId: 'consumer-conn' };

async function upgradedGroup(
  policy: ConsumerGroupMigrationPolicy,
): Promise<{ h: CoordinatorHarness; a: ClassicClient; b: ClassicClient; epoch: number }> {
  const h = new CoordinatorHarness({
    topics: [{ name: 'orders', partitions: 4 }],
    consumerAssignors: [createUniformAssignor()],
    config: { groupConsumerMigrationPolicy: policy, groupInitialRebalanceDelayMs: 0 },
  });
  await h.settle();
  const { a, b } = await stableClassicGroup(h, 'g');
  const joined = await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
  expect(joined.errorCode).toBe(ErrorCode.NONE);
  return { h, a, b, epoch: joined.memberEpoch };
}

const leave = (h: CoordinatorHarness) =>
  h.coordinator.consumerGroupHeartbeat({ groupId: 'g', memberId: 'c', memberEpoch: -1 }, ctx);

describe('online downgrade: a consumer group of classic members becomes classic when its last consumer-protocol member leaves', () => {
  it('the leave writes the consumer group tombstones and a classic group record, and the classic group rebalances at once', async () => {
    const { h, a, b, epoch } = await upgradedGroup('bidirectional');
    const before = h.store.records(h.partitionOf('g')).length;
    const pushesBefore = h.push.rebalances.length;
    expect((await leave(h)).errorCode).toBe(ErrorCode.NONE);
    const types = recordTypes(h, 'g', before);
    expect(types.filter((t) => t.startsWith('consumer-group')).every((t) => t.endsWith('tombstone'))).toBe(true);
    expect(types[types.length - 1]).toBe('group-metadata');
    expect((await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0].errorCode).toBe(
      ErrorCode.GROUP_ID_NOT_FOUND,
    );
    const described = await h.describe('g');
    expect(described.groupState).toBe('PreparingRebalance');
    expect(described.members.map((m) => m.memberId).sort()).toEqual([a.memberId, b.memberId].sort());
    // Both members are told to rejoin (their pushes carry the generation they know).
    const pushed = h.push.rebalances.slice(pushesBefore).filter((r) => r.push.groupId === 'g');
    expect(pushed.length).toBeGreaterThan(0);
    // The classic generation is the group epoch; a member still at its old generation rejoins as well.
    expect((await h.heartbeat('g', a.memberId, epoch)).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect((await h.heartbeat('g', b.memberId, b.generationId)).errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    const listed = (await h.coordinator.listGroups({})).groups.filter((g) => g.groupId === 'g');
    expect(listed).toEqual([expect.objectContaining({ groupType: 'classic' })]);
  });

  it('the classic members rejoin and sync with the classic protocol; the new generation is Stable and nobody owns a partition twice', async () => {
    const { h, a, b } = await upgradedGroup('bidirectional');
    await leave(h);
    expect((await h.describe('g')).members).toHaveLength(2);
    const joinA = h.join('g', a.memberId, { protocols: subscription(['orders'], a.owned) });
    const joinB = h.join('g', b.memberId, { protocols: subscription(['orders'], b.owned) });
    await h.settle();
    expect(joinA.value.errorCode).toBe(ErrorCode.NONE);
    expect(joinB.value.generationId).toBe(joinA.value.generationId);
    const leader = joinA.value.leader;
    const syncs = [a, b].map((client, i) =>
      h.sync(
        'g',
        client.memberId,
        joinA.value.generationId,
        client.memberId === leader
          ? [
              { memberId: a.memberId, assignment: { partitions: [{ topic: 'orders', partitions: [0, 1] }] } },
              { memberId: b.memberId, assignment: { partitions: [{ topic: 'orders', partitions: [2, 3] }] } },
            ]
          : [],
        { protocolName: i === 0 ? joinA.value.protocolName : joinB.value.protocolName },
      ),
    );
    await h.settle();
    expect(syncs.map((s) => s.value.errorCode)).toEqual([0, 0]);
    expect((await h.describe('g')).groupState).toBe('Stable');
    expect(
      ownedOnce(
        ...syncs.map(
          (s) => (s.value.assignment as { partitions: { topic: string; partitions: number[] }[] }).partitions,
        ),
      ),
    ).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);
  });

  it('the last consumer-protocol member fenced by its session timeout downgrades the group too', async () => {
    const { h, a, b } = await upgradedGroup('bidirectional');
    // The classic members keep their sessions alive; the consumer member goes silent.
    const consumerGroupGone = async () =>
      (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0].errorCode ===
      ErrorCode.GROUP_ID_NOT_FOUND;
    for (let i = 0; i < 12; i++) {
      await h.advance(5_000);
      if (await consumerGroupGone()) break;
      for (const client of [a, b]) {
        const answer = await h.heartbeat('g', client.memberId, client.generationId);
        if (answer.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) await rejoin(h, 'g', client);
      }
    }
    const cg = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(cg.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect((await h.describe('g')).members.map((m) => m.memberId).sort()).toEqual([a.memberId, b.memberId].sort());
  });

  it.each(['upgrade', 'disabled'] as const)(
    'with GROUP_CONSUMER_MIGRATION_POLICY=%s the group stays a consumer group of classic members',
    async (policy) => {
      // 'disabled' cannot upgrade a group with members, so that case starts from an upgrade that was allowed.
      const { h, a } = await upgradedGroup(policy === 'disabled' ? 'upgrade' : policy);
      h.config.groupConsumerMigrationPolicy = policy;
      await leave(h);
      const cg = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
      expect(cg.errorCode).toBe(0);
      expect(cg.members.map((m) => m.memberType)).toEqual([0, 0]);
      const beat = await h.heartbeat('g', a.memberId, a.generationId);
      expect(beat.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    },
  );

  it('a leave whose write fails takes the downgrade back: the consumer group and its three members are there again', async () => {
    const { h, a } = await upgradedGroup('bidirectional');
    h.store.failNextAppend(h.partitionOf('g'), KafkaError.of('NOT_ENOUGH_REPLICAS'));
    expect((await leave(h)).errorCode).not.toBe(ErrorCode.NONE);
    const cg = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(cg.errorCode).toBe(0);
    expect(cg.members.map((m) => m.memberType).sort()).toEqual([0, 0, 1]);
    const listed = (await h.coordinator.listGroups({})).groups.filter((g) => g.groupId === 'g');
    expect(listed).toEqual([expect.objectContaining({ groupType: 'consumer' })]);
    // Still a consumer group: the classic member is answered from its state, and the leave can be retried.
    expect((await h.heartbeat('g', a.memberId, a.generationId)).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect((await leave(h)).errorCode).toBe(ErrorCode.NONE);
    expect((await h.describe('g')).groupState).toBe('PreparingRebalance');
  });

  it('survives a restart: the downgraded group loads as a classic group with its members and offsets', async () => {
    const { h, a, b } = await upgradedGroup('bidirectional');
    const commit = h.commit('g', a.generationId, a.memberId, { orders: { 0: 11 } });
    await h.settle();
    expect(commit.value.topics[0].partitions[0].errorCode).toBe(0);
    await leave(h);
    await h.restart();
    const described = await h.describe('g');
    expect(described.protocolType).toBe('consumer');
    expect(described.members.map((m) => m.memberId).sort()).toEqual([a.memberId, b.memberId].sort());
    const fetched = await h.fetch('g', [{ name: 'orders', partitionIndexes: [0] }]);
    expect(fetched.topics[0].partitions[0].committedOffset).toBe(11);
    expect((await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0].errorCode).toBe(
      ErrorCode.GROUP_ID_NOT_FOUND,
    );
  });
});

describe('online downgrade when a classic static member takes over the last consumer-protocol member', () => {
  it("the group is classic at once, Stable, the new member holding the replaced member's partitions without a rebalance", async () => {
    const h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
    });
    await h.settle();
    const { a, b } = await stableClassicGroup(h, 'g');
    const joined = await h.coordinator.consumerGroupHeartbeat({ ...consumerJoin('g', 'c'), instanceId: 'inst-c' }, ctx);
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    // Everyone converges, so c holds partitions.
    let cEpoch = joined.memberEpoch;
    let cOwned = joined.assignment?.topicPartitions ?? [];
    for (let round = 0; round < 4; round++) {
      for (const client of [a, b]) {
        const hb = await h.heartbeat('g', client.memberId, client.generationId);
        if (hb.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) await rejoin(h, 'g', client);
      }
      const answer = await h.coordinator.consumerGroupHeartbeat(
        { groupId: 'g', memberId: 'c', memberEpoch: cEpoch, topicPartitions: cOwned },
        ctx,
      );
      cEpoch = answer.memberEpoch;
      if (answer.assignment) cOwned = answer.assignment.topicPartitions;
    }
    const cHeld = ownedOnce(cOwned);
    expect(cHeld.length).toBeGreaterThan(0);
    // c goes away for now (a restart), and comes back as a classic member of the same instance.
    await h.coordinator.consumerGroupHeartbeat(
      { groupId: 'g', memberId: 'c', memberEpoch: -2, instanceId: 'inst-c' },
      ctx,
    );
    const pushes = h.push.rebalances.length;
    const back = h.join('g', '', { groupInstanceId: 'inst-c', protocols: subscription(['orders'], cOwned) });
    await h.settle();
    expect(back.value.errorCode).toBe(ErrorCode.NONE);
    expect((await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0].errorCode).toBe(
      ErrorCode.GROUP_ID_NOT_FOUND,
    );
    const described = await h.describe('g');
    expect(described.groupState).toBe('Stable');
    expect(described.members.map((m) => m.memberId).sort()).toEqual(
      [a.memberId, b.memberId, back.value.memberId].sort(),
    );
    expect(h.push.rebalances.length).toBe(pushes);
    const sync = h.sync('g', back.value.memberId, back.value.generationId, [], { groupInstanceId: 'inst-c' });
    await h.settle();
    expect(sync.value.errorCode).toBe(ErrorCode.NONE);
    expect(
      ownedOnce((sync.value.assignment as { partitions: { topic: string; partitions: number[] }[] }).partitions),
    ).toEqual(cHeld);
    await h.restart();
    expect((await h.describe('g')).members).toHaveLength(3);
  });
});

describe('empty groups change type at once, whatever the policy', () => {
  it('an Empty consumer group becomes a classic group on its first JoinGroup (its offsets stay)', async () => {
    const h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
      config: { groupConsumerMigrationPolicy: 'disabled' },
    });
    await h.settle();
    const joined = await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    const commit = h.commit('g', joined.memberEpoch, 'c', { orders: { 1: 5 } });
    await h.settle();
    expect(commit.value.topics[0].partitions[0].errorCode).toBe(0);
    await leave(h);
    const { memberIds } = await h.stableGroup('g', 1);
    expect(memberIds).toHaveLength(1);
    expect((await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0].errorCode).toBe(
      ErrorCode.GROUP_ID_NOT_FOUND,
    );
    expect((await h.describe('g')).groupState).toBe('Stable');
    const fetched = await h.fetch('g', [{ name: 'orders', partitionIndexes: [1] }]);
    expect(fetched.topics[0].partitions[0].committedOffset).toBe(5);
    await h.restart();
    expect((await h.describe('g')).members).toHaveLength(1);
  });
});
