import { createServerRangeAssignor, createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
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

// Kafka's GroupMetadataManagerTest online-upgrade cases (testUpgradeFromClassicGroupToConsumerGroup…,
// testClassicGroupJoinToConsumerGroup…, testClassicGroupHeartbeatToConsumerGroup…), over the shard.

const ctx = { clientId: 'client', clientHost: '/127.0.0.1', connectionId: 'consumer-conn' };

function harness(policy: ConsumerGroupMigrationPolicy = 'bidirectional'): CoordinatorHarness {
  return new CoordinatorHarness({
    topics: [{ name: 'orders', partitions: 4 }],
    consumerAssignors: [createUniformAssignor()],
    config: { groupConsumerMigrationPolicy: policy },
  });
}

function partitionsOf(assignment: { topicPartitions: P.TopicPartitions[] } | null | undefined): string[] {
  return ownedOnce(assignment?.topicPartitions ?? []);
}

describe('online upgrade: a classic group becomes a consumer group when a consumer-protocol member joins', () => {
  let h: CoordinatorHarness;
  let a: ClassicClient;
  let b: ClassicClient;

  beforeEach(async () => {
    h = harness();
    await h.settle();
    ({ a, b } = await stableClassicGroup(h, 'g'));
  });

  it('the first heartbeat converts it before replying: the classic record is tombstoned and the consumer group written with its classic members and their assignments', async () => {
    const before = h.store.records(h.partitionOf('g')).length;
    const joined = await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    expect(joined.memberEpoch).toBe(a.generationId + 1);
    const types = recordTypes(h, 'g', before);
    expect(types[0]).toBe('group-metadata tombstone');
    expect(types.slice(1, 4)).toEqual([
      'consumer-group-member-metadata',
      'consumer-group-member-metadata',
      'consumer-group-metadata',
    ]);
    const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(described.groupEpoch).toBe(a.generationId + 1);
    const byId = new Map(described.members.map((m) => [m.memberId, m]));
    // The classic members kept what they own; the new member waits for what they must give up.
    expect(byId.get(a.memberId)).toMatchObject({ memberType: 0, memberEpoch: a.generationId });
    expect(partitionsOf(byId.get(a.memberId)!.assignment)).toEqual(['orders-0']);
    expect(partitionsOf(byId.get(b.memberId)!.assignment)).toEqual(['orders-1']);
    expect(byId.get('c')).toMatchObject({ memberType: 1 });
    ownedOnce(...described.members.map((m) => m.assignment.topicPartitions));
    // ListGroups shows one group of the id, a consumer group.
    const listed = (await h.coordinator.listGroups({})).groups.filter((g) => g.groupId === 'g');
    expect(listed).toEqual([expect.objectContaining({ groupType: 'consumer' })]);
  });

  it('a classic member behind the group epoch is told REBALANCE_IN_PROGRESS (and pushed), rejoins, and SyncGroup hands it its assignment; no partition is ever owned twice', async () => {
    const c = await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    const beat = await h.heartbeat('g', a.memberId, a.generationId);
    expect(beat.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const pushed = h.push.rebalances.filter((r) => r.push.groupId === 'g' && r.push.generationId === a.generationId);
    expect(pushed.length).toBeGreaterThan(0);
    let cOwned = c.assignment?.topicPartitions ?? [];
    let cEpoch = c.memberEpoch;
    for (let round = 0; round < 6; round++) {
      for (const client of [a, b]) {
        const hb = await h.heartbeat('g', client.memberId, client.generationId);
        if (hb.errorCode === ErrorCode.REBALANCE_IN_PROGRESS || hb.errorCode === ErrorCode.ILLEGAL_GENERATION) {
          const synced = await rejoin(h, 'g', client);
          expect([ErrorCode.NONE, ErrorCode.REBALANCE_IN_PROGRESS]).toContain(synced.errorCode);
        }
        ownedOnce(a.owned, b.owned, cOwned);
      }
      const answer = await h.coordinator.consumerGroupHeartbeat(
        { groupId: 'g', memberId: 'c', memberEpoch: cEpoch, topicPartitions: cOwned },
        ctx,
      );
      expect(answer.errorCode).toBe(ErrorCode.NONE);
      cEpoch = answer.memberEpoch;
      if (answer.assignment) cOwned = answer.assignment.topicPartitions;
      ownedOnce(a.owned, b.owned, cOwned);
    }
    // Converged: everyone has something, everything is owned exactly once.
    expect(ownedOnce(a.owned, b.owned, cOwned)).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);
    for (const owned of [a.owned, b.owned, cOwned]) expect(ownedOnce(owned).length).toBeGreaterThan(0);
    const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(described.groupState).toBe('Stable');
  });

  it('a consumer member waiting for partitions a classic member gives up is told to heartbeat as soon as it gives them up', async () => {
    // Two partitions, the range assignor: c sorts before the classic members' ids, so its target takes a
    // partition one of them holds, which that member must give up first.
    const hr = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 2 }],
      consumerAssignors: [createServerRangeAssignor()],
    });
    await hr.settle();
    const classic = await stableClassicGroup(hr, 'g');
    const c = await hr.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    expect(c.assignment?.topicPartitions ?? []).toEqual([]);
    const target = (await hr.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0].members.find(
      (m) => m.memberId === 'c',
    )!.targetAssignment.topicPartitions;
    const holder = [classic.a, classic.b].find((client) => ownedOnce(client.owned).includes(ownedOnce(target)[0]))!;
    const told = () => hr.push.heartbeatNows.filter((p) => p.connectionId === ctx.connectionId).length;
    // The holder learns what it keeps (its SyncGroup leaves out what c's target took), then rejoins without it.
    await rejoin(hr, 'g', holder);
    const before = told();
    expect((await rejoin(hr, 'g', holder)).errorCode).toBe(ErrorCode.NONE);
    expect(told()).toBe(before + 1);
    const answer = await hr.coordinator.consumerGroupHeartbeat(
      { groupId: 'g', memberId: 'c', memberEpoch: c.memberEpoch, topicPartitions: [] },
      ctx,
    );
    expect(partitionsOf(answer.assignment)).toEqual(ownedOnce(target));
    ownedOnce(classic.a.owned, classic.b.owned, answer.assignment!.topicPartitions);
  });

  it('a classic member commits offsets with its member epoch as generation; another generation is ILLEGAL_GENERATION', async () => {
    await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    const ok = h.commit('g', a.generationId, a.memberId, { orders: { 0: 7 } });
    await h.settle();
    expect(ok.value.topics[0].partitions[0].errorCode).toBe(ErrorCode.NONE);
    const stale = h.commit('g', a.generationId + 5, a.memberId, { orders: { 0: 8 } });
    await h.settle();
    expect(stale.value.topics[0].partitions[0].errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    const fetched = await h.fetch('g', [{ name: 'orders', partitionIndexes: [0] }]);
    expect(fetched.topics[0].partitions[0].committedOffset).toBe(7);
  });

  it('a JoinGroup parked when the group converts is answered REBALANCE_IN_PROGRESS, and a new classic member then joins the consumer group', async () => {
    const parked = h.join('g', a.memberId, { protocols: subscription(['orders'], a.owned) });
    await h.settle();
    expect(parked.done).toBe(false);
    await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    await h.settle();
    expect(parked.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const first = h.join('g', '', { protocols: subscription(['orders']) });
    await h.settle();
    expect(first.value.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
    const second = h.join('g', first.value.memberId, { protocols: subscription(['orders']) });
    await h.settle();
    expect(second.value).toMatchObject({ errorCode: 0, leader: '', members: [], protocolName: 'range' });
    const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(described.members).toHaveLength(4);
  });

  it('a classic member that leaves is removed from the consumer group and the group epoch moves', async () => {
    const c = await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    const left = await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: a.memberId }] }, ctx);
    expect(left.members).toEqual([{ memberId: a.memberId, groupInstanceId: null, errorCode: 0 }]);
    const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(described.members.map((m) => m.memberId).sort()).toEqual([b.memberId, 'c'].sort());
    expect(described.groupEpoch).toBe(c.memberEpoch + 1);
    const again = await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: 'c' }] }, ctx);
    expect(again.members[0].errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a classic member that stops heartbeating is fenced after its own session timeout', async () => {
    await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    await h.advance(10_001); // the harness's classic session timeout (10 s), well under the consumer one
    const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(described.members.map((m) => m.memberId)).toEqual(['c']);
  });

  it('survives a restart: the loaded group is a consumer group whose classic members keep heartbeating', async () => {
    await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    await h.restart();
    const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(described.errorCode).toBe(0);
    expect(described.members.map((m) => m.memberType).sort()).toEqual([0, 0, 1]);
    expect((await h.heartbeat('g', a.memberId, a.generationId)).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    await rejoin(h, 'g', a);
    expect(a.generationId).toBe(described.groupEpoch);
  });
});

describe('online upgrade refused', () => {
  it.each(['downgrade', 'disabled'] as const)(
    'with GROUP_CONSUMER_MIGRATION_POLICY=%s the classic group stays and the heartbeat gets GROUP_ID_NOT_FOUND',
    async (policy) => {
      const h = harness(policy);
      await h.settle();
      const { a } = await stableClassicGroup(h, 'g');
      const refused = await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
      expect(refused.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
      expect((await h.heartbeat('g', a.memberId, a.generationId)).errorCode).toBe(ErrorCode.NONE);
    },
  );

  it('with GROUP_CONSUMER_MIGRATION_POLICY=disabled a classic JoinGroup to a consumer group is INCONSISTENT_GROUP_PROTOCOL and changes nothing (KAFKA-20640)', async () => {
    const h = harness('disabled');
    await h.settle();
    const joined = await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    expect(joined.errorCode).toBe(ErrorCode.NONE);
    const before = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    const records = h.store.records(h.partitionOf('g')).length;
    for (const memberId of ['', 'classic-member']) {
      const refused = h.join('g', memberId, { protocols: subscription(['orders']) });
      await h.settle();
      expect(refused.value).toMatchObject({
        errorCode: ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        errorMessage:
          'Cannot join the consumer group g with the classic protocol because the group migration is disabled.',
      });
    }
    expect(h.store.records(h.partitionOf('g'))).toHaveLength(records);
    expect((await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0]).toEqual(before);
  });

  it.each(['upgrade', 'downgrade'] as const)(
    'with GROUP_CONSUMER_MIGRATION_POLICY=%s a classic member still joins a consumer group (only disabled refuses it)',
    async (policy) => {
      const h = harness(policy);
      await h.settle();
      await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
      const first = h.join('g', '', { protocols: subscription(['orders']) });
      await h.settle();
      expect(first.value.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
      const second = h.join('g', first.value.memberId, { protocols: subscription(['orders']) });
      await h.settle();
      expect(second.value).toMatchObject({ errorCode: 0, leader: '', members: [] });
    },
  );

  it('a classic group whose protocol type is not consumer is not upgraded', async () => {
    const h = harness();
    await h.settle();
    await h.stableGroup('connect', 1, { protocolType: 'connect', protocols: [{ name: 'default', metadata: {} }] });
    const refused = await h.coordinator.consumerGroupHeartbeat(consumerJoin('connect', 'c'), ctx);
    expect(refused.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect((await h.describe('connect')).groupState).toBe('Stable');
  });

  it('a classic group whose leader gave one partition to two members is not upgraded (no consumer group can hold that)', async () => {
    const h = harness();
    await h.settle();
    const { memberIds, leader, generationId } = await h.stableGroup('twice', 1);
    const second = await h.joinNew('twice');
    await h.advance(0);
    const rejoined = h.join('twice', memberIds[0]);
    await h.settle();
    const generation = rejoined.value.generationId;
    expect(generation).toBeGreaterThan(generationId);
    const both = [memberIds[0], second.memberId].map((memberId) => ({
      memberId,
      assignment: { partitions: [{ topic: 'orders', partitions: [0] }] },
    }));
    const syncs = [memberIds[0], second.memberId].map((memberId) =>
      h.sync('twice', memberId, generation, memberId === leader ? both : []),
    );
    await h.settle();
    expect(syncs.map((s) => s.value.errorCode)).toEqual([0, 0]);
    const refused = await h.coordinator.consumerGroupHeartbeat(consumerJoin('twice', 'c'), ctx);
    expect(refused.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect(refused.errorMessage).toContain('still owned');
    expect((await h.describe('twice')).groupState).toBe('Stable');
  });

  it('a heartbeat refused after the conversion (the consumer group would be too large) leaves the group classic', async () => {
    const h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
      config: { groupConsumerMaxSize: 2 },
    });
    await h.settle();
    const { a, b } = await stableClassicGroup(h, 'g');
    const refused = await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    expect(refused.errorCode).toBe(ErrorCode.GROUP_MAX_SIZE_REACHED);
    expect((await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0].errorCode).toBe(
      ErrorCode.GROUP_ID_NOT_FOUND,
    );
    for (const client of [a, b])
      expect((await h.heartbeat('g', client.memberId, client.generationId)).errorCode).toBe(ErrorCode.NONE);
    // The classic sessions still run: a member that stops heartbeating is removed at its session timeout.
    await h.advance(10_001);
    expect((await h.describe('g')).members).toHaveLength(0);
  });

  it('a write that fails takes the conversion back: the group is classic again', async () => {
    const h = harness();
    await h.settle();
    const { a } = await stableClassicGroup(h, 'g');
    h.store.failNextAppend(h.partitionOf('g'), KafkaError.of('NOT_ENOUGH_REPLICAS'));
    const failed = await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
    expect(failed.errorCode).not.toBe(ErrorCode.NONE);
    const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(described.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    expect((await h.heartbeat('g', a.memberId, a.generationId)).errorCode).toBe(ErrorCode.NONE);
  });
});
