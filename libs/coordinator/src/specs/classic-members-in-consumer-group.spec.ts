import { createUniformAssignor } from '@cohort/assignors';
import { ErrorCode } from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';
import {
  type ClassicClient,
  consumerJoin,
  rejoin,
  stableClassicGroup,
  subscription,
} from '../../testing/migration-fixtures';

// Kafka's GroupMetadataManagerTest cases of classic requests to a consumer group
// (testClassicGroupJoinToConsumerGroup…, testClassicGroupSyncToConsumerGroup…,
// testClassicGroupHeartbeatToConsumerGroup…, testConsumerGroupJoinTimeout / SyncTimeout), over the shard.

const ctx = { clientId: 'client', clientHost: '/127.0.0.1', connectionId: 'consumer-conn' };

describe('classic members of a consumer group', () => {
  let h: CoordinatorHarness;
  let a: ClassicClient;
  let b: ClassicClient;

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
    });
    await h.settle();
    ({ a, b } = await stableClassicGroup(h, 'g'));
    await h.coordinator.consumerGroupHeartbeat(consumerJoin('g', 'c'), ctx);
  });

  it('a JoinGroup whose protocols the classic members do not all support is INCONSISTENT_GROUP_PROTOCOL', async () => {
    const join = h.join('g', a.memberId, {
      protocols: [{ name: 'roundrobin', metadata: { topics: ['orders'], ownedPartitions: a.owned } }],
    });
    await h.settle();
    expect(join.value.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const wrongType = h.join('g', a.memberId, { protocolType: 'connect' });
    await h.settle();
    expect(wrongType.value.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
  });

  it('SyncGroup checks the generation, the protocol name and whether the member must rejoin first', async () => {
    // Behind the group epoch: rejoin first.
    const behind = h.sync('g', a.memberId, a.generationId, [], { protocolName: 'range' });
    await h.settle();
    expect(behind.value.errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const wrongGeneration = h.sync('g', a.memberId, a.generationId + 7);
    await h.settle();
    expect(wrongGeneration.value.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    const join = h.join('g', a.memberId, { protocols: subscription(['orders'], a.owned) });
    await h.settle();
    const wrongName = h.sync('g', a.memberId, join.value.generationId, [], { protocolName: 'cooperative-sticky' });
    await h.settle();
    expect(wrongName.value.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    const stranger = h.sync('g', 'stranger', join.value.generationId);
    await h.settle();
    expect(stranger.value.errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const ok = h.sync('g', a.memberId, join.value.generationId, [], { protocolName: 'range' });
    await h.settle();
    expect(ok.value).toMatchObject({ errorCode: 0, protocolType: 'consumer', protocolName: 'range' });
  });

  it('classic requests naming a consumer-protocol member are UNKNOWN_MEMBER_ID', async () => {
    const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    const epoch = described.members.find((m) => m.memberId === 'c')!.memberEpoch;
    expect((await h.heartbeat('g', 'c', epoch)).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const left = await h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: 'c' }] }, ctx);
    expect(left.members[0].errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('a member told to rejoin that does not within its rebalance timeout is fenced', async () => {
    expect((await h.heartbeat('g', a.memberId, a.generationId)).errorCode).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    // b keeps its session by heartbeating, rejoining as it is told; a only heartbeats, never rejoins;
    // c heartbeats too (were it fenced, the group would turn classic).
    let cEpoch = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0].members.find(
      (m) => m.memberId === 'c',
    )!.memberEpoch;
    for (let t = 0; t < 65_000; t += 5_000) {
      await h.advance(5_000);
      cEpoch = (await h.coordinator.consumerGroupHeartbeat({ groupId: 'g', memberId: 'c', memberEpoch: cEpoch }, ctx))
        .memberEpoch;
      if ((await h.heartbeat('g', a.memberId, a.generationId)).errorCode === ErrorCode.UNKNOWN_MEMBER_ID) break;
      const answer = await h.heartbeat('g', b.memberId, b.generationId);
      if (answer.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) await rejoin(h, 'g', b);
    }
    const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(described.members.map((m) => m.memberId).sort()).toEqual([b.memberId, 'c'].sort());
  });

  it('a member that joined but does not sync within its rebalance timeout is fenced', async () => {
    const join = h.join('g', a.memberId, { protocols: subscription(['orders'], a.owned), rebalanceTimeoutMs: 8_000 });
    await h.settle();
    expect(join.value.errorCode).toBe(0);
    // Heartbeats keep the session, but without a SyncGroup the member is fenced at the deadline.
    for (let t = 0; t < 10_000; t += 2_000) {
      await h.advance(2_000);
      await h.heartbeat('g', a.memberId, join.value.generationId);
    }
    const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0];
    expect(described.members.map((m) => m.memberId)).not.toContain(a.memberId);
  });

  it('a static classic member that joins again without its member id takes over its instance under a new id', async () => {
    const s = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
    });
    await s.settle();
    const first = s.join('st', '', { groupInstanceId: 'instance-1' });
    await s.advance(0);
    expect(first.value.errorCode).toBe(0);
    const { memberId: oldId, generationId } = first.value;
    const synced = s.sync('st', oldId, generationId, [
      { memberId: oldId, assignment: { partitions: [{ topic: 'orders', partitions: [0] }] } },
    ]);
    await s.settle();
    expect(synced.value.errorCode).toBe(0);
    await s.coordinator.consumerGroupHeartbeat(consumerJoin('st', 'c'), ctx);
    const again = s.join('st', '', {
      groupInstanceId: 'instance-1',
      protocols: subscription(['orders'], [{ topic: 'orders', partitions: [0] }]),
    });
    await s.settle();
    expect(again.value.errorCode).toBe(0);
    expect(again.value.memberId).not.toBe(oldId);
    const described = (await s.coordinator.consumerGroupDescribe({ groupIds: ['st'] })).groups[0];
    const member = described.members.find((m) => m.instanceId === 'instance-1')!;
    expect(member.memberId).toBe(again.value.memberId);
    expect(member.memberType).toBe(0);
    // The old id is fenced out: its heartbeat names an instance that is now someone else's.
    const old = await s.coordinator.heartbeat(
      { groupId: 'st', memberId: oldId, generationId, groupInstanceId: 'instance-1' },
      s.context(),
    );
    expect(old.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });

  it("a classic member's JoinGroup that moves other members' targets tells them at once (HeartbeatNow, or RebalanceInProgress to classic members)", async () => {
    const targets = async () =>
      new Map(
        (await h.coordinator.consumerGroupDescribe({ groupIds: ['g'] })).groups[0].members.map((m) => [
          m.memberId,
          JSON.stringify(m.targetAssignment),
        ]),
      );
    const before = await targets();
    const [nows, rebalances] = [h.push.heartbeatNows.length, h.push.rebalances.length];
    const first = h.join('g', '', { protocols: subscription(['orders']) });
    await h.settle();
    const joined = h.join('g', first.value.memberId, { protocols: subscription(['orders']) });
    await h.settle();
    expect(joined.value.errorCode).toBe(0);
    const after = await targets();
    const moved = [...before.keys()].filter((id) => before.get(id) !== after.get(id));
    expect(moved.length).toBeGreaterThan(0);
    const told = [
      ...h.push.heartbeatNows.slice(nows).map((p) => (p.connectionId === ctx.connectionId ? 'c' : p.connectionId)),
      ...h.push.rebalances.slice(rebalances).flatMap((r) => r.connectionIds),
    ];
    expect(told.length).toBe(moved.length);
    if (moved.includes('c')) expect(told).toContain('c');
  });

  it('REST shows which members are classic', async () => {
    const view = await h.coordinator.describeGroup('g');
    const types = Object.fromEntries((view.members ?? []).map((m) => [m.memberId, m.memberType]));
    expect(types).toEqual({ [a.memberId]: 0, [b.memberId]: 0, c: 1 });
  });
});
