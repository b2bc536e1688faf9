import { createUniformAssignor } from '@cohort/assignors';
import { ConsumerGroupHarness, DEFAULT_CLIENT_HOST, DEFAULT_CLIENT_ID } from '@cohort/coordinator/testing';
import { steadyHeartbeat } from './steady-heartbeat';

/**
 * A steady member's heartbeat keeps its group's subscribed topics that exist, and their hash, between
 * heartbeats: a topic that grows, appears or is deleted between two of them, with no notice to the
 * coordinator, must still move the group epoch at the next one.
 */
describe('the kept metadata hash of a steady heartbeat', () => {
  const ctx = { clientId: DEFAULT_CLIENT_ID, clientHost: DEFAULT_CLIENT_HOST };
  let h: ConsumerGroupHarness;
  let epoch: number;

  beforeEach(() => {
    h = new ConsumerGroupHarness({ assignors: [createUniformAssignor()], topics: { orders: 2 } });
    const joined = h.heartbeat({
      groupId: 'cg',
      memberId: 'm',
      memberEpoch: 0,
      subscribedTopicNames: ['orders', 'later'],
      rebalanceTimeoutMs: 1000,
      topicPartitions: [],
    }).response;
    epoch = h.heartbeat({
      groupId: 'cg',
      memberId: 'm',
      memberEpoch: joined.memberEpoch,
      topicPartitions: joined.assignment!.topicPartitions,
    }).response.memberEpoch;
    // Two steady heartbeats: the second is answered from what the first kept.
    for (let i = 0; i < 2; i++) expect(steadyHeartbeat(h.manager, beat(), ctx)).toMatchObject({ errorCode: 0 });
  });

  const beat = () => ({ groupId: 'cg', memberId: 'm', memberEpoch: epoch });

  /**
   * The next heartbeat: not steady, and the full path bumps the group epoch and gives the new target
   * (null: the member's assignment stays, and its answer carries none).
   */
  function expectBumpAfter(change: () => void, partitions: Record<string, number[]> | null): void {
    const groupEpoch = h.manager.group('cg')!.groupEpoch;
    change();
    expect(steadyHeartbeat(h.manager, beat(), ctx)).toBeNull();
    const answer = h.heartbeat(beat()).response;
    expect(h.manager.group('cg')!.groupEpoch).toBe(groupEpoch + 1);
    if (partitions === null) {
      expect(answer.assignment).toBeNull();
      return;
    }
    const given = Object.fromEntries(answer.assignment!.topicPartitions.map((tp) => [tp.topic, [...tp.partitions]]));
    expect(given).toEqual(partitions);
  }

  it('gives up the kept hash when a subscribed topic grows', () => {
    expectBumpAfter(() => (h.topics.orders = 3), { orders: [0, 1, 2] });
  });

  it('gives up the kept hash when a subscribed topic is created', () => {
    expectBumpAfter(() => (h.topics.later = 1), { orders: [0, 1], later: [0] });
  });

  it('gives up the kept hash when a subscribed topic is deleted', () => {
    expectBumpAfter(() => delete h.topics.orders, {});
  });

  it('gives up the kept hash when the subscriptions change, so a topic only the new one names counts', () => {
    const other = h.heartbeat({
      groupId: 'cg',
      memberId: 'n',
      memberEpoch: 0,
      subscribedTopicNames: ['audit'],
      rebalanceTimeoutMs: 1000,
      topicPartitions: [],
    }).response;
    expect(other.memberEpoch).toBe(epoch + 1);
    // m moves to the new epoch (its target is the same), then heartbeats steadily again.
    epoch = h.heartbeat(beat()).response.memberEpoch;
    expect(epoch).toBe(other.memberEpoch);
    expect(steadyHeartbeat(h.manager, beat(), ctx)).toMatchObject({ errorCode: 0 });
    // The group now subscribes to audit too: its creation moves the epoch at m's next heartbeat (n gets it).
    expectBumpAfter(() => (h.topics.audit = 1), null);
  });
});

describe('the topics a steady heartbeat looks up', () => {
  const ctx = { clientId: DEFAULT_CLIENT_ID, clientHost: DEFAULT_CLIENT_HOST };

  it('are the subscribed topics that exist, however many names the group subscribes to', () => {
    const h = new ConsumerGroupHarness({ assignors: [createUniformAssignor()], topics: { orders: 2, audit: 1 } });
    const names = ['orders', 'audit', ...Array.from({ length: 10_000 }, (_, i) => `missing-${i}`)];
    const joined = h.heartbeat({
      groupId: 'cg',
      memberId: 'm',
      memberEpoch: 0,
      subscribedTopicNames: names,
      rebalanceTimeoutMs: 1000,
      topicPartitions: [],
    }).response;
    const epoch = h.heartbeat({
      groupId: 'cg',
      memberId: 'm',
      memberEpoch: joined.memberEpoch,
      topicPartitions: joined.assignment!.topicPartitions,
    }).response.memberEpoch;
    const beat = { groupId: 'cg', memberId: 'm', memberEpoch: epoch };
    expect(steadyHeartbeat(h.manager, beat, ctx)).toMatchObject({ errorCode: 0 });
    // Every partition count the coordinator asks the registry for from here on.
    let lookups = 0;
    const topics = h.topics;
    Object.defineProperty(h, 'topics', {
      value: new Proxy(topics, {
        get: (target, name) => {
          lookups++;
          return Reflect.get(target, name);
        },
      }),
    });
    for (let i = 0; i < 10; i++) expect(steadyHeartbeat(h.manager, beat, ctx)).toMatchObject({ errorCode: 0 });
    expect(lookups).toBeLessThanOrEqual(10 * 2);
  });
});
