// Kafka's UniformHomogeneousAssignmentBuilderTest (group-coordinator module; OptimizedUniformAssignment-
// BuilderTest before its rename), every case, with Kafka's expected assignments. Kafka builds these
// groups with fixed topic ids and a TreeMap of members; kafkaTestOptions reads them the same way, and
// targets written with Kafka's mkOrderedAssignment (insertion order) are read in the given order.
import { asSets, groupMember, kafkaTestOptions, validityAndBalanceProblems } from '@cohort/assignors/testing';
import type { ConsumerGroupMemberSpec } from './consumer-group-assignor';
import type { GroupModelOptions } from './group-model';
import { uniformAssign } from './uniform-assignor';

function run(
  partitionsPerTopic: Record<string, number>,
  members: ConsumerGroupMemberSpec[],
  options: GroupModelOptions = {},
) {
  const result = uniformAssign(
    { members },
    { partitionsPerTopic },
    kafkaTestOptions({ subscriptionType: 'homogeneous', ...options }),
  );
  return { sets: asSets(result), problems: validityAndBalanceProblems(members, result) };
}

const ordered: GroupModelOptions = { targetOrder: 'given' };

describe('uniform assignor, homogeneous subscriptions (Kafka UniformHomogeneousAssignmentBuilderTest)', () => {
  it('gives a member subscribed to no topic nothing', () => {
    expect(run({ topic1: 3 }, [groupMember('A', [])]).sets).toEqual({ A: {} });
  });

  it('gives a member subscribed only to a topic that does not exist nothing (Kafka throws; its coordinator never passes such a topic)', () => {
    expect(run({ topic1: 3 }, [groupMember('A', ['topic2'])]).sets).toEqual({ A: {} });
  });

  it('deals the partitions of two topics to two members in the order of the topic id set', () => {
    const { sets, problems } = run({ topic1: 3, topic3: 2 }, [
      groupMember('A', ['topic1', 'topic3']),
      groupMember('B', ['topic1', 'topic3']),
    ]);
    expect(sets).toEqual({ A: { topic1: [0], topic3: [0, 1] }, B: { topic1: [1, 2] } });
    expect(problems).toEqual([]);
  });

  it('leaves one of three members without a partition of a two-partition topic', () => {
    const { sets, problems } = run(
      { topic3: 2 },
      ['A', 'B', 'C'].map((id) => groupMember(id, ['topic3'])),
    );
    expect(sets).toEqual({ A: { topic3: [0] }, B: { topic3: [1] }, C: {} });
    expect(problems).toEqual([]);
  });

  it('gives a valid and balanced assignment of 99 topics of 3 partitions to 49 members', () => {
    const partitionsPerTopic: Record<string, number> = {};
    for (let i = 1; i < 100; i++) partitionsPerTopic[`topic-${i}`] = 3;
    const topics = Object.keys(partitionsPerTopic);
    const members = Array.from({ length: 49 }, (_, i) => groupMember(`member${i + 1}`, topics)).sort((a, b) =>
      a.memberId < b.memberId ? -1 : 1,
    );
    expect(run(partitionsPerTopic, members).problems).toEqual([]);
  });

  it('takes a partition from a member above its quota and gives it to the other', () => {
    const { sets, problems } = run(
      { topic1: 3, topic2: 3 },
      [
        groupMember('A', ['topic1', 'topic2'], { topic1: [0, 1], topic2: [0, 1] }),
        groupMember('B', ['topic1', 'topic2'], { topic1: [2], topic2: [2] }),
      ],
      ordered,
    );
    expect(sets).toEqual({ A: { topic1: [0, 1], topic2: [0] }, B: { topic1: [2], topic2: [1, 2] } });
    expect(problems).toEqual([]);
  });

  it('deals added partitions of two topics to the members that own the rest', () => {
    const { sets, problems } = run(
      { topic1: 6, topic2: 5 },
      [
        groupMember('A', ['topic1', 'topic2'], { topic1: [0, 2], topic2: [0] }),
        groupMember('B', ['topic1', 'topic2'], { topic1: [1], topic2: [1, 2] }),
      ],
      ordered,
    );
    expect(sets).toEqual({ A: { topic1: [0, 2, 3], topic2: [0, 3, 4] }, B: { topic1: [1, 4, 5], topic2: [1, 2] } });
    expect(problems).toEqual([]);
  });

  it('gives a joining member the partitions the others hold beyond their quota', () => {
    const { sets, problems } = run(
      { topic1: 3, topic2: 3 },
      [
        groupMember('A', ['topic1', 'topic2'], { topic1: [0, 2], topic2: [0] }),
        groupMember('B', ['topic1', 'topic2'], { topic1: [1], topic2: [1, 2] }),
        groupMember('C', ['topic1', 'topic2']),
      ],
      ordered,
    );
    expect(sets).toEqual({ A: { topic1: [0, 2] }, B: { topic1: [1], topic2: [1] }, C: { topic2: [0, 2] } });
    expect(problems).toEqual([]);
  });

  it('shares the partitions of a member that left between the two that stay', () => {
    const { sets, problems } = run({ topic1: 3, topic2: 3 }, [
      groupMember('A', ['topic1', 'topic2'], { topic1: [0], topic2: [0] }),
      groupMember('B', ['topic1', 'topic2'], { topic1: [1], topic2: [1] }),
    ]);
    expect(sets).toEqual({ A: { topic1: [0], topic2: [0, 2] }, B: { topic1: [1, 2], topic2: [1] } });
    expect(problems).toEqual([]);
  });

  it('drops a topic both members unsubscribed from and keeps the rest where it was', () => {
    const { sets, problems } = run({ topic1: 2, topic2: 2 }, [
      groupMember('A', ['topic2'], { topic1: [0], topic2: [0] }),
      groupMember('B', ['topic2'], { topic1: [1], topic2: [1] }),
    ]);
    expect(sets).toEqual({ A: { topic2: [0] }, B: { topic2: [1] } });
    expect(problems).toEqual([]);
  });
});
