import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { CoordinatorHarness, track } from '@cohort/coordinator/testing';
import { HOLD_MAX_MS } from '../consumer/heartbeat-batch-holds';

/** Every partition a heartbeat answer assigns, as `topic-partition` strings. */
function owned(response: P.ConsumerGroupHeartbeatResponse | undefined): string[] {
  return (response?.assignment?.topicPartitions ?? []).flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`));
}

/** The heartbeat interval the members are told (GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS); an answer is held a fifth of it at most. */
const INTERVAL_MS = 5000;

/**
 * A joiner whose target is still owned by a member that must first revoke it has its answer held until
 * the partitions are released (for at most a fifth of the heartbeat interval), and is then answered
 * with them: no answer without its partitions, no push, no third heartbeat.
 */
describe('a consumer group joiner waiting for partitions another member revokes', () => {
  let h: CoordinatorHarness;
  const joining = { subscribedTopicNames: ['orders'], rebalanceTimeoutMs: 60_000, topicPartitions: [] };
  const on = (connectionId: string) => ({ clientId: 'client', clientHost: '/127.0.0.1', connectionId });
  const beat = (memberId: string, more: Partial<P.ConsumerGroupHeartbeatRequest>) =>
    h.coordinator.consumerGroupHeartbeat({ groupId: 'cg', memberId, memberEpoch: 0, ...more }, on(`conn-${memberId}`));
  const pushedTo = () => h.push.heartbeatNows.map((p) => p.connectionId);

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
      config: { consumerHoldsUnreleasedAnswers: true, groupConsumerHeartbeatIntervalMs: INTERVAL_MS },
    });
    await h.settle();
  });

  /** member-a holds the whole topic; member-b joins, its target held by member-a. */
  async function joinBehindA() {
    const a = await beat('a', joining);
    expect(owned(a)).toHaveLength(4);
    const b = track(beat('b', joining));
    await h.settle();
    return { a, b };
  }

  /** member-a heartbeats as told: it learns what to give up, then reports it gone. */
  async function aRevokes(a: P.ConsumerGroupHeartbeatResponse) {
    const revoking = await beat('a', { memberEpoch: a.memberEpoch, topicPartitions: a.assignment!.topicPartitions });
    expect(owned(revoking)).toHaveLength(2);
    const settled = await beat('a', {
      memberEpoch: revoking.memberEpoch,
      topicPartitions: revoking.assignment!.topicPartitions,
    });
    return { kept: owned(revoking), epoch: settled.memberEpoch };
  }

  it('is answered once the partitions are released, with them, and is not pushed', async () => {
    const { a, b } = await joinBehindA();
    expect(b.done).toBe(false);
    expect(pushedTo()).toEqual(['conn-a']);
    const { kept, epoch } = await aRevokes(a);
    await h.settle();
    expect(b.done).toBe(true);
    expect(b.value.errorCode).toBe(0);
    expect(b.value.memberEpoch).toBe(epoch);
    expect(owned(b.value)).toHaveLength(2);
    expect([...kept, ...owned(b.value)].sort()).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);
    // Its next heartbeat finds it stable: nothing more to take.
    const next = await beat('b', {
      memberEpoch: b.value.memberEpoch,
      topicPartitions: b.value.assignment!.topicPartitions,
    });
    expect(next.assignment).toBeNull();
    expect(pushedTo()).toEqual(['conn-a']);
  });

  it('is answered without them when they are not released within a fifth of the heartbeat interval, and pushed once they are', async () => {
    const { a, b } = await joinBehindA();
    await h.advance(INTERVAL_MS / 5 - 1);
    expect(b.done).toBe(false);
    await h.advance(1);
    expect(b.done).toBe(true);
    expect(b.value.errorCode).toBe(0);
    expect(owned(b.value)).toEqual([]);
    await aRevokes(a);
    await h.settle();
    expect(pushedTo()).toEqual(['conn-a', 'conn-b']);
    const taken = await beat('b', { memberEpoch: b.value.memberEpoch, topicPartitions: [] });
    expect(owned(taken)).toHaveLength(2);
  });

  it('is held no longer than a second when the heartbeat interval is long', async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
      config: {
        consumerHoldsUnreleasedAnswers: true,
        groupConsumerHeartbeatIntervalMs: 60_000,
      },
    });
    await h.settle();
    const { b } = await joinBehindA();
    await h.advance(HOLD_MAX_MS - 1);
    expect(b.done).toBe(false);
    await h.advance(1);
    expect(b.done).toBe(true);
    expect(b.value).toMatchObject({ errorCode: 0, heartbeatIntervalMs: 60_000 });
    expect(owned(b.value)).toEqual([]);
  });

  it("is answered before the member's next request runs, which then finds the group as that answer left it", async () => {
    const { b } = await joinBehindA();
    const left = track(beat('b', { memberEpoch: -1 }));
    await h.settle();
    expect(b.done).toBe(true);
    expect(owned(b.value)).toEqual([]);
    expect(left.done).toBe(true);
    expect(left.value).toMatchObject({ errorCode: 0, memberEpoch: -1 });
    const described = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    expect(described.groups[0].members.map((m) => m.memberId)).toEqual(['a']);
  });

  it('of a static member is answered before a request of another member claiming its instance runs', async () => {
    const a = await beat('a', joining);
    expect(owned(a)).toHaveLength(4);
    const b = track(beat('b', { ...joining, instanceId: 'instance-b' }));
    await h.settle();
    expect(b.done).toBe(false);
    const claim = track(beat('b2', { ...joining, instanceId: 'instance-b' }));
    await h.settle();
    expect(b.done).toBe(true);
    expect(b.value.errorCode).toBe(0);
    expect(owned(b.value)).toEqual([]);
    expect(claim.done).toBe(true);
    expect(claim.value.errorCode).not.toBe(0);
  });

  it('is answered when a ConsumerGroupDescribe arrives, which sees it answered', async () => {
    const { b } = await joinBehindA();
    const described = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    expect(b.done).toBe(true);
    const member = described.groups[0].members.find((m) => m.memberId === 'b');
    expect(member?.memberEpoch).toBe(b.value.memberEpoch);
  });

  it('gets its partitions at once when the member holding them leaves instead, and is told at once of the rest', async () => {
    const { b } = await joinBehindA();
    await beat('a', { memberEpoch: -1 });
    await h.settle();
    expect(b.done).toBe(true);
    expect(owned(b.value)).toHaveLength(2);
    // a's leave moved the group: its new target, computed without waiting for b's next heartbeat, gives
    // b all four partitions, and b is told to heartbeat now.
    expect(pushedTo()).toEqual(['conn-a', 'conn-b']);
    const next = await beat('b', {
      memberEpoch: b.value.memberEpoch,
      topicPartitions: b.value.assignment!.topicPartitions,
    });
    expect(owned(next)).toHaveLength(4);
  });
});
