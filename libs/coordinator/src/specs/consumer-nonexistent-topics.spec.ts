import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/**
 * A member may subscribe to names no topic has yet, as Kafka's do: the names are its subscription
 * (recorded, described, kept across a restart) though nothing of them is assigned, and a topic created
 * under one of them is assigned to the group without any member asking.
 */
describe('consumer group subscriptions naming topics that do not exist', () => {
  const ctx = { clientId: 'client', clientHost: '/127.0.0.1' };
  const missing = Array.from({ length: 5000 }, (_, i) => `missing-${String(i).padStart(4, '0')}`);
  let h: CoordinatorHarness;

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 2 }],
      consumerAssignors: [createUniformAssignor()],
    });
    await h.settle();
  });

  const heartbeat = (request: Partial<P.ConsumerGroupHeartbeatRequest> & { memberEpoch: number }) =>
    h.coordinator.consumerGroupHeartbeat({ groupId: 'cg', memberId: 'm', ...request }, ctx);

  const assigned = (answer: P.ConsumerGroupHeartbeatResponse) =>
    Object.fromEntries((answer.assignment?.topicPartitions ?? []).map((tp) => [tp.topic, [...tp.partitions].sort()]));

  async function describedNames(): Promise<string[]> {
    const described = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    return described.groups[0].members[0].subscribedTopicNames;
  }

  it('keeps and shows every name, assigns what exists, and assigns a topic created later under one of them', async () => {
    const names = ['orders', ...missing, 'later'];
    const joined = await heartbeat({
      memberEpoch: 0,
      subscribedTopicNames: names,
      rebalanceTimeoutMs: 60_000,
      topicPartitions: [],
    });
    expect(joined.errorCode).toBe(0);
    expect(assigned(joined)).toEqual({ orders: [0, 1] });
    expect(await describedNames()).toEqual([...names].sort());

    // Created: the group's target moves without a heartbeat, and the member is given the topic at its next one.
    await h.topics.create('later', 3);
    await h.settle();
    const next = await heartbeat({
      memberEpoch: joined.memberEpoch,
      topicPartitions: joined.assignment!.topicPartitions,
    });
    expect(next.errorCode).toBe(0);
    expect(next.memberEpoch).toBeGreaterThan(joined.memberEpoch);
    expect(assigned(next)).toEqual({ later: [0, 1, 2], orders: [0, 1] });

    // A restart reads the subscription back from the log, names of no topic included.
    await h.restart();
    expect(await describedNames()).toEqual([...names].sort());
  });

  it('assigns a topic created under a name of a subscription that changed since the group last looked', async () => {
    const joined = await heartbeat({
      memberEpoch: 0,
      subscribedTopicNames: ['orders', ...missing],
      rebalanceTimeoutMs: 60_000,
      topicPartitions: [],
    });
    const owned = joined.assignment!.topicPartitions;
    // The subscription changes (one name more), then that name becomes a topic.
    const changed = await heartbeat({
      memberEpoch: joined.memberEpoch,
      subscribedTopicNames: ['orders', ...missing, 'later'],
      topicPartitions: owned,
    });
    expect(changed.errorCode).toBe(0);
    await h.topics.create('later', 1);
    await h.settle();
    const next = await heartbeat({ memberEpoch: changed.memberEpoch, topicPartitions: owned });
    expect(assigned(next)).toEqual({ later: [0], orders: [0, 1] });
  });
});
