import { ConsumerGroupHarness, MockConsumerAssignor } from '@cohort/coordinator/testing';
import { memberTombstones } from './consumer-group-records';
import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';
import { consumerGroupEpochRecord } from './consumer-records';
import { MemberState } from './member-state';

// Kafka's GroupMetadataManagerTest session and rebalance timeout cases, and its reconciliation
// process, on virtual time; then what Cohort adds: a failed write is taken back, and the log replays
// into the live state.

const G = 'fooup';

function setup(config: { sessionTimeoutMs?: number } = {}) {
  const assignor = new MockConsumerAssignor('range');
  const h = new ConsumerGroupHarness({ assignors: [assignor], topics: { foo: 6, bar: 3 }, config });
  return { h, assignor };
}

function join(memberId: string, extra: Partial<ConsumerGroupHeartbeatRequest> = {}): ConsumerGroupHeartbeatRequest {
  return {
    groupId: G,
    memberId,
    memberEpoch: 0,
    rebalanceTimeoutMs: 90_000,
    subscribedTopicNames: ['foo'],
    topicPartitions: [],
    ...extra,
  };
}

function owned(byTopic: Record<string, number[]>) {
  return Object.entries(byTopic).map(([topic, partitions]) => ({ topic, partitions }));
}

describe('consumer group timeouts (Kafka GroupMetadataManagerTest)', () => {
  it('arms the session on the first heartbeat, re-arms it on each, and stops it on leave (testSessionTimeoutLifecycle)', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
    expect(h.heartbeat(join('m1')).response.memberEpoch).toBe(1);
    expect(h.hasSessionTimeout(G, 'm1')).toBe(true);
    h.advance(5000);
    expect(h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 1 }).response.memberEpoch).toBe(1);
    h.advance(44_000);
    // 49 s after the join, 44 s after the last heartbeat: still a member.
    expect(h.manager.group(G)!.member('m1')).toBeDefined();
    expect(h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: -1 }).response.memberEpoch).toBe(-1);
    expect(h.hasSessionTimeout(G, 'm1')).toBe(false);
    expect(h.hasRebalanceTimeout(G, 'm1')).toBe(false);
  });

  it('fences a member whose session expires: tombstones and a group epoch bump (testSessionTimeoutExpiration)', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
    const joinedAt = h.clock.now();
    h.heartbeat(join('m1'));
    const fencedAt = h.clock.now() + 45_000;
    h.advance(45_001);
    const joined = { groupEpoch: 1, reason: 'member-joined', memberId: 'm1', startedAt: joinedAt, members: 1 } as const;
    const fenced = { groupEpoch: 2, reason: 'member-fenced', memberId: 'm1', startedAt: fencedAt, members: 0 } as const;
    const history = [
      { ...joined, completedAt: joinedAt },
      { ...fenced, completedAt: null },
    ];
    expect(h.timerWrites).toEqual([
      [
        ...memberTombstones(G, 'm1', fencedAt),
        consumerGroupEpochRecord(G, 2, 0, fencedAt, history),
        // Cohort: an Empty group has converged; its epoch history is closed at once.
        consumerGroupEpochRecord(G, 2, 0, fencedAt, [history[0], { ...fenced, completedAt: fencedAt }]),
      ],
    ]);
    expect(h.manager.group(G)!.member('m1')).toBeUndefined();
    expect(h.manager.group(G)!.state).toBe('Empty');
    expect(h.hasSessionTimeout(G, 'm1')).toBe(false);
  });

  it('fences a static member that left with -2 and did not come back within its session (testSessionTimeoutExpirationStaticMember)', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
    h.heartbeat(join('m1', { instanceId: 'pod-1' }));
    h.heartbeat({ groupId: G, memberId: 'm1', instanceId: 'pod-1', memberEpoch: -2 });
    expect(h.manager.group(G)!.member('m1')!.memberEpoch).toBe(-2);
    h.advance(45_001);
    expect(h.manager.group(G)!.member('m1')).toBeUndefined();
    expect(h.manager.group(G)!.staticMemberId('pod-1')).toBeUndefined();
  });

  it('arms the rebalance timeout while a member must revoke and stops it once it has (testRebalanceTimeoutLifecycle)', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
    h.heartbeat(join('m1', { rebalanceTimeoutMs: 12_000 }));
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2] }, m2: { foo: [3, 4, 5] } });
    h.heartbeat(join('m2', { rebalanceTimeoutMs: 12_000 }));

    const revoke = h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 1 });
    expect(revoke.response).toMatchObject({
      memberEpoch: 1,
      assignment: { topicPartitions: [{ topic: 'foo', partitions: [0, 1, 2] }] },
    });
    expect(h.manager.group(G)!.member('m1')!.state).toBe(MemberState.UNREVOKED_PARTITIONS);
    expect(h.hasRebalanceTimeout(G, 'm1')).toBe(true);

    h.advance(10_000);
    const revoked = h.heartbeat({
      groupId: G,
      memberId: 'm1',
      memberEpoch: 1,
      topicPartitions: owned({ foo: [0, 1, 2] }),
    });
    expect(revoked.response.memberEpoch).toBe(2);
    expect(h.hasRebalanceTimeout(G, 'm1')).toBe(false);
    h.advance(10_000);
    expect(h.manager.group(G)!.member('m1')!.memberEpoch).toBe(2);
    // m2 gets the released partitions on its next heartbeat.
    expect(h.heartbeat({ groupId: G, memberId: 'm2', memberEpoch: 2 }).response).toMatchObject({
      memberEpoch: 2,
      assignment: { topicPartitions: [{ topic: 'foo', partitions: [3, 4, 5] }] },
    });
    expect(h.manager.group(G)!.state).toBe('Stable');
  });

  it('fences a member that does not revoke within its rebalance timeout, and frees its partitions (testRebalanceTimeoutExpiration)', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
    h.heartbeat(join('m1', { rebalanceTimeoutMs: 12_000 }));
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2] }, m2: { foo: [3, 4, 5] } });
    h.heartbeat(join('m2', { rebalanceTimeoutMs: 12_000 }));
    h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 1 });

    // m1 keeps heartbeating (its session is fine) but keeps reporting the partitions it must give up.
    for (let i = 0; i < 2; i++) {
      h.advance(5000);
      expect(
        h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 1, topicPartitions: owned({ foo: [0, 1, 2, 3, 4, 5] }) })
          .response.errorCode,
      ).toBe(0);
    }
    assignor.prepareGroupAssignment({ m2: { foo: [0, 1, 2, 3, 4, 5] } });
    h.advance(2001);
    expect(h.manager.group(G)!.member('m1')).toBeUndefined();
    expect(h.timerWrites).toHaveLength(1);
    expect(h.manager.group(G)!.currentPartitionEpoch('foo', 3)).toBe(-1);
    // Its next heartbeat is fenced; m2 now gets everything.
    expect(h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 1 }).response.errorCode).toBe(25);
    expect(h.heartbeat({ groupId: G, memberId: 'm2', memberEpoch: 2 }).response).toMatchObject({
      memberEpoch: 3,
      assignment: { topicPartitions: [{ topic: 'foo', partitions: [0, 1, 2, 3, 4, 5] }] },
    });
  });

  it('restarts every member session when a partition is loaded (testOnLoaded)', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
    h.heartbeat(join('m1'));
    const reloaded = new ConsumerGroupHarness({ assignors: [assignor], topics: { foo: 6 } });
    reloaded.replay(h.log);
    reloaded.step(() => reloaded.manager.onLoaded());
    expect(reloaded.hasSessionTimeout(G, 'm1')).toBe(true);
    reloaded.advance(45_001);
    expect(reloaded.manager.group(G)!.member('m1')).toBeUndefined();
  });
});

describe('consumer group reconciliation over several heartbeats (Kafka testReconciliationProcess)', () => {
  it('moves partitions between members by revoking first, never owning one twice, until every member is stable at the new epoch', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5], bar: [0, 1, 2] } });
    h.heartbeat(join('m1', { subscribedTopicNames: ['foo', 'bar'] }));
    assignor.prepareGroupAssignment({
      m1: { foo: [0, 1], bar: [0] },
      m2: { foo: [2, 3], bar: [1] },
      m3: { foo: [4, 5], bar: [2] },
    });
    expect(h.heartbeat(join('m2', { subscribedTopicNames: ['foo', 'bar'] })).response.memberEpoch).toBe(2);
    expect(h.heartbeat(join('m3', { subscribedTopicNames: ['foo', 'bar'] })).response.memberEpoch).toBe(3);
    const group = h.manager.group(G)!;
    expect(group.member('m2')!.state).toBe(MemberState.UNRELEASED_PARTITIONS);

    // m1 is asked to give up what the others get, and stays at epoch 1 until it does.
    expect(h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 1 }).response).toMatchObject({
      memberEpoch: 1,
      assignment: {
        topicPartitions: [
          { topic: 'bar', partitions: [0] },
          { topic: 'foo', partitions: [0, 1] },
        ],
      },
    });
    // Nothing is released yet: m2 moves to the new epoch but waits for its partitions.
    expect(h.heartbeat({ groupId: G, memberId: 'm2', memberEpoch: 2 }).response).toMatchObject({
      memberEpoch: 3,
      assignment: null,
    });
    // Waiting costs nothing: once its previous epoch caught up (Kafka's updateMemberEpoch), a heartbeat
    // that changes nothing writes nothing.
    h.heartbeat({ groupId: G, memberId: 'm2', memberEpoch: 3 });
    expect(group.member('m2')!.previousMemberEpoch).toBe(3);
    const waiting = h.heartbeat({ groupId: G, memberId: 'm2', memberEpoch: 3 });
    expect(waiting.response).toMatchObject({ errorCode: 0, memberEpoch: 3, assignment: null });
    expect(waiting.records).toEqual([]);
    // m1 revokes: it reaches the target epoch; then m2 and m3 get their partitions.
    expect(
      h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 1, topicPartitions: owned({ foo: [0, 1], bar: [0] }) })
        .response,
    ).toMatchObject({ memberEpoch: 3, assignment: null });
    expect(h.heartbeat({ groupId: G, memberId: 'm2', memberEpoch: 3 }).response.assignment).toEqual({
      topicPartitions: [
        { topic: 'bar', partitions: [1] },
        { topic: 'foo', partitions: [2, 3] },
      ],
    });
    expect(h.heartbeat({ groupId: G, memberId: 'm3', memberEpoch: 3 }).response.assignment).toEqual({
      topicPartitions: [
        { topic: 'bar', partitions: [2] },
        { topic: 'foo', partitions: [4, 5] },
      ],
    });
    expect(group.state).toBe('Stable');
    for (const id of ['m1', 'm2', 'm3']) expect(group.member(id)!.memberEpoch).toBe(3);
  });
});

describe('consumer group writes', () => {
  it('takes back a heartbeat whose write fails, so the group is as it was and the member can retry', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
    h.heartbeat(join('m1'));
    const before = h.reloaded().get(G);
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2] }, m2: { foo: [3, 4, 5] } });
    h.failNextWrite = true;
    h.heartbeat(join('m2'));
    expect(h.manager.group(G)).toEqual(before);
    expect(h.manager.writes.size).toBe(0);
    // The retry goes through as if the failed attempt had never happened.
    expect(h.heartbeat(join('m2')).response.memberEpoch).toBe(2);
  });

  it('removes again a group whose creating write failed', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0] } });
    h.failNextWrite = true;
    h.heartbeat(join('m1'));
    expect(h.manager.group(G)).toBeUndefined();
  });

  it('leaves in the log exactly the state the live group is in, through joins, revocations, a static rejoin and a fencing', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
    h.heartbeat(join('m1', { instanceId: 'pod-1' }));
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2] }, m2: { foo: [3, 4, 5] } });
    h.heartbeat(join('m2'));
    h.heartbeat({ groupId: G, memberId: 'm1', instanceId: 'pod-1', memberEpoch: 1 });
    h.heartbeat({
      groupId: G,
      memberId: 'm1',
      instanceId: 'pod-1',
      memberEpoch: 1,
      topicPartitions: owned({ foo: [0, 1, 2] }),
    });
    h.heartbeat({ groupId: G, memberId: 'm1', instanceId: 'pod-1', memberEpoch: -2 });
    h.heartbeat(join('m1-reload', { instanceId: 'pod-1' }));
    h.advance(45_001);
    expect(h.reloaded().get(G)).toEqual(h.manager.group(G));
  });
});
