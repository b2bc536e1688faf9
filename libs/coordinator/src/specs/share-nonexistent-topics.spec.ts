import type * as P from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

/**
 * A share group member may subscribe to names no topic has yet: they are its subscription (described,
 * kept across a restart) though nothing of them is assigned, a topic created under one of them is
 * assigned, and the member's steady heartbeats cost lookups of the topics that exist, not of every name.
 */
describe('share group subscriptions naming topics that do not exist', () => {
  const missing = Array.from({ length: 10_000 }, (_, i) => `missing-${String(i).padStart(5, '0')}`);
  const names = ['jobs', ...missing, 'later'];
  let h: CoordinatorHarness;

  beforeEach(async () => {
    h = new CoordinatorHarness({ topics: [{ name: 'jobs', partitions: 2 }], autoCommit: true });
    await h.settle();
  });

  const heartbeat = (request: Partial<P.ShareGroupHeartbeatRequest> & { memberEpoch: number }) =>
    h.coordinator.shareGroupHeartbeat({ groupId: 'sg', memberId: 'm', ...request }, h.context('conn-m'));

  const assigned = (answer: P.ShareGroupHeartbeatResponse) =>
    Object.fromEntries((answer.assignment?.topicPartitions ?? []).map((tp) => [tp.topic, [...tp.partitions].sort()]));

  async function describedNames(): Promise<string[]> {
    return (await h.coordinator.shareGroupDescribe({ groupIds: ['sg'] })).groups[0].members[0].subscribedTopicNames;
  }

  it('keeps and shows every name, assigns what exists, and assigns a topic created later under one of them', async () => {
    const joined = await heartbeat({ memberEpoch: 0, subscribedTopicNames: names });
    expect(joined.errorCode).toBe(0);
    expect(assigned(joined)).toEqual({ jobs: [0, 1] });
    expect(await describedNames()).toEqual([...names].sort());

    await h.topics.create('later', 2);
    await h.settle();
    const next = await heartbeat({ memberEpoch: joined.memberEpoch });
    expect(next.errorCode).toBe(0);
    expect(assigned(next)).toEqual({ jobs: [0, 1], later: [0, 1] });

    await h.restart();
    expect(await describedNames()).toEqual([...names].sort());
  });

  it('looks up only the subscribed topics that exist at a steady heartbeat', async () => {
    let answer = await heartbeat({ memberEpoch: 0, subscribedTopicNames: names });
    answer = await heartbeat({ memberEpoch: answer.memberEpoch });
    const lookups = jest.spyOn(h.topics, 'partitionCount');
    for (let i = 0; i < 10; i++) {
      answer = await heartbeat({ memberEpoch: answer.memberEpoch });
      expect(answer.errorCode).toBe(0);
    }
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(10 * 2);
  });
});
