import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';
import { MemberState } from './member-state';
import { G, parts, member, setup } from '../../testing/consumer-heartbeat-fixtures';

// Kafka's GroupMetadataManagerConsumerGroupTest cases on a member that rejoins with epoch 0 under its
// own id, whatever state it was in (KIP-848: a client that lost its epoch starts over), and on a full
// heartbeat sent twice, on the virtual-clock harness.

/** One member on foo (3 partitions) in `state` at epoch 100, the group at `groupEpoch` with `target`. */
function oneMember(
  state: MemberState,
  groupEpoch: number,
  assigned: number[],
  target: number[],
  pendingRevocation: number[] = [],
) {
  const ctx = setup({ foo: 3 });
  const m = member('m1', {
    state,
    memberEpoch: 100,
    previousMemberEpoch: 99,
    rebalanceTimeoutMs: 5000,
    subscribedTopicNames: new Set(['foo']),
    assignedPartitions: parts({ foo: assigned }),
    partitionsPendingRevocation: pendingRevocation.length ? parts({ foo: pendingRevocation }) : new Map(),
  });
  ctx.h.withGroup(G, groupEpoch, [m], { m1: parts({ foo: target }) }, groupEpoch);
  expect(ctx.h.manager.group(G)!.member('m1')!.state).toBe(state);
  return ctx;
}

const rejoin: ConsumerGroupHeartbeatRequest = {
  groupId: G,
  memberId: 'm1',
  memberEpoch: 0,
  rebalanceTimeoutMs: 5000,
  subscribedTopicNames: ['foo'],
  topicPartitions: [],
};

const answer = (memberEpoch: number, partitions: number[]) => ({
  errorCode: 0,
  memberId: 'm1',
  memberEpoch,
  heartbeatIntervalMs: 5000,
  assignment: { topicPartitions: [{ topic: 'foo', partitions }] },
});

describe('a member rejoining with epoch 0 under its id (Kafka GroupMetadataManagerConsumerGroupTest)', () => {
  it('gives a stable member its epoch and assignment back without moving the group (testMemberCanRejoinWithEpochZeroInStableState)', () => {
    const { h } = oneMember(MemberState.STABLE, 100, [0, 1, 2], [0, 1, 2]);
    expect(h.heartbeat(rejoin).response).toEqual(answer(100, [0, 1, 2]));
    expect(h.manager.group(G)!.groupEpoch).toBe(100);
  });

  it('moves a member that was revoking to the group epoch with its target, having given everything up (testMemberCanRejoinWithEpochZeroInUnrevokedPartitionsState)', () => {
    const { h } = oneMember(MemberState.UNREVOKED_PARTITIONS, 101, [0, 1], [0, 1], [2]);
    expect(h.heartbeat(rejoin).response).toEqual(answer(101, [0, 1]));
    expect(h.manager.group(G)!.member('m1')).toMatchObject({ state: MemberState.STABLE, memberEpoch: 101 });
  });

  it('gives a member that waited for partitions its whole target once nobody holds them (testMemberCanRejoinWithEpochZeroInUnreleasedPartitionsState)', () => {
    const { h } = oneMember(MemberState.UNRELEASED_PARTITIONS, 100, [0], [0, 1, 2]);
    expect(h.heartbeat(rejoin).response).toEqual(answer(100, [0, 1, 2]));
    expect(h.manager.group(G)!.groupEpoch).toBe(100);
  });
});

describe('a full heartbeat sent twice (Kafka GroupMetadataManagerConsumerGroupTest)', () => {
  const full = (memberId: string, memberEpoch: number, owned: number[]): ConsumerGroupHeartbeatRequest => ({
    groupId: G,
    memberId,
    memberEpoch,
    rebalanceTimeoutMs: 5000,
    subscribedTopicNames: ['foo'],
    serverAssignor: 'range',
    topicPartitions: [{ topic: 'foo', partitions: owned }],
  });

  /** Sends `request` twice: the second answer is the first's, and it writes nothing. */
  function twice(h: ReturnType<typeof setup>['h'], request: ConsumerGroupHeartbeatRequest) {
    const first = h.heartbeat(request);
    const second = h.heartbeat(request);
    expect(second.response).toEqual(first.response);
    expect(second.records).toEqual([]);
    return first.response;
  }

  it('answers a stable member the same twice and writes nothing the second time (testDuplicateFullHeartbeatInStableState)', () => {
    const { h } = oneMember(MemberState.STABLE, 100, [0, 1, 2], [0, 1, 2]);
    expect(twice(h, full('m1', 100, [0, 1, 2]))).toEqual(answer(100, [0, 1, 2]));
    expect(h.manager.group(G)!.member('m1')!.state).toBe(MemberState.STABLE);
  });

  it('answers a member still owning what it must revoke the same twice, what it keeps (testDuplicateFullHeartbeatInUnrevokedPartitionsState)', () => {
    const { h } = oneMember(MemberState.UNREVOKED_PARTITIONS, 101, [0, 1], [0, 1], [2]);
    expect(twice(h, full('m1', 100, [0, 1, 2]))).toEqual(answer(100, [0, 1]));
    expect(h.manager.group(G)!.member('m1')!.state).toBe(MemberState.UNREVOKED_PARTITIONS);
  });

  it('answers a member waiting for partitions another still holds the same twice (testDuplicateFullHeartbeatInUnreleasedPartitionsState)', () => {
    const { h } = setup({ foo: 3 });
    const base = { rebalanceTimeoutMs: 5000, subscribedTopicNames: new Set(['foo']) };
    const m1 = member('m1', {
      ...base,
      state: MemberState.UNRELEASED_PARTITIONS,
      memberEpoch: 100,
      previousMemberEpoch: 99,
      assignedPartitions: parts({ foo: [0] }),
    });
    const m2 = member('m2', {
      ...base,
      state: MemberState.UNREVOKED_PARTITIONS,
      memberEpoch: 99,
      previousMemberEpoch: 98,
      partitionsPendingRevocation: parts({ foo: [1, 2] }),
    });
    h.withGroup(G, 100, [m1, m2], { m1: parts({ foo: [0, 1, 2] }), m2: new Map() }, 100);
    expect(twice(h, full('m1', 100, [0]))).toEqual(answer(100, [0]));
    expect(h.manager.group(G)!.member('m1')!.state).toBe(MemberState.UNRELEASED_PARTITIONS);
  });

  it('moves a member that acknowledges its revocation to stable once, and answers the same again (testDuplicateFullHeartbeatWithRevocationAck)', () => {
    const { h } = oneMember(MemberState.UNREVOKED_PARTITIONS, 101, [0, 1], [0, 1], [2]);
    expect(twice(h, full('m1', 100, [0, 1]))).toEqual(answer(101, [0, 1]));
    expect(h.manager.group(G)!.member('m1')).toMatchObject({ state: MemberState.STABLE, memberEpoch: 101 });
  });
});
