// Kafka's UniformHeterogeneousAssignmentBuilderTest (group-coordinator module), every case, with Kafka's
// expected assignments. Kafka's test sorts the members (TestGroupSpecImpl) and fixes the topic ids;
// kafkaTestOptions reads the groups the same way.
import { asSets, groupMember } from '@cohort/assignors/testing';
import { kafkaTestOptions } from '@cohort/assignors/testing';
import type { ConsumerGroupMemberSpec } from './consumer-group-assignor';
import { uniformAssign } from './uniform-assignor';

function run(partitionsPerTopic: Record<string, number>, members: ConsumerGroupMemberSpec[]) {
  return asSets(
    uniformAssign({ members }, { partitionsPerTopic }, kafkaTestOptions({ subscriptionType: 'heterogeneous' })),
  );
}

describe('uniform assignor, heterogeneous subscriptions (Kafka UniformHeterogeneousAssignmentBuilderTest)', () => {
  it('gives two members subscribed to no topic nothing', () => {
    expect(run({ topic1: 3 }, [groupMember('A', []), groupMember('B', [])])).toEqual({ A: {}, B: {} });
  });

  it('gives members subscribed only to topics that do not exist nothing (Kafka throws; its coordinator never passes such topics)', () => {
    expect(run({ topic1: 3 }, [groupMember('A', ['topic3']), groupMember('B', ['topic2'])])).toEqual({ A: {}, B: {} });
  });

  it('balances two members of whom one subscribes to a topic more', () => {
    expect(
      run({ topic1: 3, topic3: 6 }, [groupMember('A', ['topic1', 'topic3']), groupMember('B', ['topic3'])]),
    ).toEqual({
      A: { topic1: [0, 1, 2], topic3: [4] },
      B: { topic3: [0, 1, 2, 3, 5] },
    });
  });

  it('leaves a member without a partition when its topic has fewer partitions than subscribers', () => {
    expect(
      run({ topic3: 1, topic1: 2 }, [
        groupMember('A', ['topic3']),
        groupMember('B', ['topic3']),
        groupMember('C', ['topic1']),
      ]),
    ).toEqual({ A: { topic3: [0] }, B: {}, C: { topic1: [0, 1] } });
  });

  it('rebalances an unbalanced target of three members over three topics', () => {
    const members = [
      groupMember('A', ['topic1'], { topic1: [0, 1, 2] }),
      groupMember('B', ['topic1', 'topic2'], { topic1: [3], topic2: [0] }),
      groupMember('C', ['topic1', 'topic2', 'topic3'], { topic1: [4, 5], topic2: [1, 2, 3], topic3: [0, 1, 2, 3] }),
    ];
    expect(run({ topic1: 6, topic2: 4, topic3: 4 }, members)).toEqual({
      A: { topic1: [0, 1, 2, 5] },
      B: { topic1: [3], topic2: [0, 1, 2, 3] },
      C: { topic1: [4], topic3: [0, 1, 2, 3] },
    });
  });

  it('deals added partitions of four topics to their subscribers', () => {
    const members = [
      groupMember('A', ['topic1', 'topic3'], { topic1: [0, 1, 2, 3], topic3: [0, 1] }),
      groupMember('B', ['topic1', 'topic2', 'topic3', 'topic4'], { topic2: [0, 1, 2], topic4: [0, 1, 2] }),
    ];
    expect(run({ topic1: 6, topic2: 5, topic3: 3, topic4: 3 }, members)).toEqual({
      A: { topic1: [0, 1, 2, 3, 4, 5], topic3: [0, 1, 2] },
      B: { topic2: [0, 1, 2, 3, 4], topic4: [0, 1, 2] },
    });
  });

  it('balances a joining member against members whose topics grew', () => {
    const members = [
      groupMember('A', ['topic1'], { topic1: [0, 2], topic2: [0] }),
      groupMember('B', ['topic1', 'topic2'], { topic1: [1], topic2: [1, 2] }),
      groupMember('C', ['topic1', 'topic2']),
    ];
    expect(run({ topic1: 6, topic2: 7 }, members)).toEqual({
      A: { topic1: [0, 2, 3, 4, 5] },
      B: { topic1: [1], topic2: [1, 2, 6] },
      C: { topic2: [0, 3, 4, 5] },
    });
  });

  it('gives the partitions of a member that left to the subscribers of its topics', () => {
    const members = [
      groupMember('A', ['topic1', 'topic3'], { topic1: [0, 1, 2], topic3: [0, 1] }),
      groupMember('B', ['topic2'], { topic2: [3, 4, 5, 6] }),
    ];
    expect(run({ topic1: 3, topic2: 8, topic3: 3 }, members)).toEqual({
      A: { topic1: [0, 1, 2], topic3: [0, 1, 2] },
      B: { topic2: [0, 1, 2, 3, 4, 5, 6, 7] },
    });
  });

  it('moves the partitions of a topic a member unsubscribed from to its other subscriber', () => {
    const members = [
      groupMember('A', ['topic1'], { topic1: [0, 2], topic2: [1, 3] }),
      groupMember('B', ['topic1', 'topic2'], { topic1: [1], topic2: [0, 2, 4] }),
    ];
    expect(run({ topic1: 3, topic2: 5 }, members)).toEqual({
      A: { topic1: [0, 1, 2] },
      B: { topic2: [0, 1, 2, 3, 4] },
    });
  });

  it('stops moving partitions of a topic when its most loaded subscriber has none left to give', () => {
    const all = ['topic1', 'topic2', 'topic3'];
    const members = [groupMember('A', all, { topic1: [0, 1], topic2: [0, 1], topic3: [0, 1] }), groupMember('B', all)];
    expect(run({ topic1: 2, topic2: 2, topic3: 2 }, members)).toEqual({
      A: { topic2: [0], topic3: [0, 1] },
      B: { topic1: [0, 1], topic2: [1] },
    });
  });

  it('gives every partition to the one member that subscribes when the other subscribes to nothing', () => {
    expect(run({ topic1: 3 }, [groupMember('A', ['topic1']), groupMember('B', [])])).toEqual({
      A: { topic1: [0, 1, 2] },
      B: {},
    });
  });
});
