// Kafka's SimpleAssignorTest (group-coordinator module), its cases that do not depend on partitions
// held back as uninitialized (Cohort has none), with Kafka's checks, plus the sharing rule of KIP-932.
// Kafka builds these groups with random topic ids; kafkaTestOptions fixes them, and the checks hold
// for any ids.
import type { TopicPartitions } from '@cohort/protocol';
import { asSets, groupMember, kafkaTestOptions } from '@cohort/assignors/testing';
import type { ConsumerGroupMemberSpec } from './consumer-group-assignor';
import type { GroupModelOptions } from './group-model';
import { type ShareGroupAssignment, simpleShareAssign } from './share-assignor';

function run(
  partitionsPerTopic: Record<string, number>,
  members: ConsumerGroupMemberSpec[],
  options: GroupModelOptions = {},
): ShareGroupAssignment {
  return simpleShareAssign({ members }, { partitionsPerTopic }, kafkaTestOptions(options));
}

/** Kafka's assertEveryPartitionGetsAssignment: the distinct topic-partitions assigned to anyone. */
function distinctAssigned(result: ShareGroupAssignment): number {
  const seen = new Set<string>();
  for (const entries of Object.values(result))
    for (const { topic, partitions } of entries) for (const p of partitions) seen.add(`${topic}-${p}`);
  return seen.size;
}

function sizes(result: ShareGroupAssignment): number[] {
  return Object.values(result).map((entries) => entries.reduce((n, e) => n + e.partitions.length, 0));
}

/** How many members work each partition. */
function sharing(result: ShareGroupAssignment): Map<string, number> {
  const counts = new Map<string, number>();
  for (const entries of Object.values(result))
    for (const { topic, partitions } of entries)
      for (const p of partitions) counts.set(`${topic}-${p}`, (counts.get(`${topic}-${p}`) ?? 0) + 1);
  return counts;
}

const withAssignment = (member: ConsumerGroupMemberSpec, assignment: TopicPartitions[]): ConsumerGroupMemberSpec => ({
  ...member,
  assignment,
});

describe('share assignor "simple" (Kafka SimpleAssignorTest)', () => {
  it('assigns nothing to a group without members', () => {
    expect(run({ topic1: 3 }, [])).toEqual({});
  });

  it('gives a member subscribed to no topic an empty assignment', () => {
    expect(asSets(run({ topic1: 3 }, [groupMember('A', [])]))).toEqual({ A: {} });
  });

  it('gives nothing for a subscribed topic that does not exist (Kafka throws; its coordinator never passes one)', () => {
    expect(asSets(run({ topic1: 3 }, [groupMember('A', ['topic2'])]))).toEqual({ A: {} });
  });

  it('assigns all 5 partitions of two topics between two members, balanced', () => {
    const result = run({ topic1: 3, topic3: 2 }, [
      groupMember('A', ['topic1', 'topic3']),
      groupMember('B', ['topic1', 'topic3']),
    ]);
    expect(distinctAssigned(result)).toBe(5);
    expect(sizes(result).sort()).toEqual([2, 3]);
    expect([...sharing(result).values()].every((n) => n === 1)).toBe(true);
  });

  it('assigns all 8 partitions of three topics among three members subscribed differently', () => {
    const result = run({ topic1: 3, topic2: 3, topic3: 2 }, [
      groupMember('A', ['topic1', 'topic2']),
      groupMember('B', ['topic3']),
      groupMember('C', ['topic2', 'topic3']),
    ]);
    expect(distinctAssigned(result)).toBe(8);
    // topic1 has A alone; topic2 is split between A and C; topic3 between B and C.
    const sets = asSets(result);
    expect(sets.A.topic1).toEqual([0, 1, 2]);
    expect(sets.B.topic3).toHaveLength(1);
    expect([...(sets.A.topic2 ?? []), ...(sets.C.topic2 ?? [])].sort()).toEqual([0, 1, 2]);
  });

  it('gives a member subscribed to nothing nothing and the other member everything (testAssignWithOneMemberNoAssignedTopicHeterogeneous)', () => {
    const result = run({ topic1: 3, topic2: 2 }, [groupMember('A', ['topic1', 'topic2']), groupMember('B', [])]);
    expect(asSets(result)).toEqual({ A: { topic1: [0, 1, 2], topic2: [0, 1] }, B: {} });
  });

  // Kafka's assignRemainingPartitions accepts a partition one member short when every unfilled member
  // already works it (its comment calls the imbalance harmless): sharing is at most ceil(M/P), never 0.
  it('keeps every partition assigned while members join one at a time up to 101 on 24 partitions, each by at most ceil(M/P)', () => {
    let members: ConsumerGroupMemberSpec[] = [];
    for (let m = 0; m < 101; m++) {
      members.push(groupMember(`M${m}`, ['topic1']));
      const result = run({ topic1: 24 }, members, { memberOrder: 'hash-map' });
      expect(distinctAssigned(result)).toBe(24);
      const desired = Math.ceil(members.length / 24);
      expect([...sharing(result).values()].every((n) => n >= 1 && n <= desired)).toBe(true);
      const s = sizes(result);
      expect(Math.max(...s) - Math.min(...s)).toBeLessThanOrEqual(1);
      members = members.map((member) => withAssignment(member, result[member.memberId]));
    }
  });

  it('keeps every partition assigned while 101 members leave one at a time down to one', () => {
    let members = Array.from({ length: 101 }, (_, m) => groupMember(`M${m}`, ['topic1']));
    let result = run({ topic1: 24 }, members, { memberOrder: 'hash-map' });
    for (let m = 100; m > 0; m--) {
      members = members.map((member) => withAssignment(member, result[member.memberId]));
      members = members.filter((member) => member.memberId !== `M${m}`);
      result = run({ topic1: 24 }, members, { memberOrder: 'hash-map' });
      expect(distinctAssigned(result)).toBe(24);
    }
    expect(asSets(result)).toEqual({ M0: { topic1: Array.from({ length: 24 }, (_, p) => p) } });
  });

  it('keeps every partition assigned when the subscriptions and topics change under a current assignment (testAssignWithCurrentAssignmentHeterogeneous)', () => {
    const first = run({ topic1: 3, topic2: 3, topic3: 2 }, [
      groupMember('A', ['topic1', 'topic2']),
      groupMember('B', ['topic3']),
      groupMember('C', ['topic2', 'topic3']),
    ]);
    expect(distinctAssigned(first)).toBe(8);
    const second = run({ topic1: 3, topic2: 3, topic3: 2, topic4: 1 }, [
      groupMember('A', ['topic1', 'topic2', 'topic3'], { topic1: [0, 1, 2], topic2: [0, 2] }),
      groupMember('B', ['topic3', 'topic4'], { topic3: [0, 1] }),
    ]);
    expect(distinctAssigned(second)).toBe(9);
  });

  it('is sticky: a third member on three partitions takes one partition and the others keep the rest', () => {
    const two = run({ topic1: 3 }, [groupMember('A', ['topic1']), groupMember('B', ['topic1'])]);
    const three = run({ topic1: 3 }, [
      groupMember('A', ['topic1'], { topic1: two.A[0].partitions }),
      groupMember('B', ['topic1'], { topic1: two.B[0].partitions }),
      groupMember('C', ['topic1']),
    ]);
    expect(sizes(three)).toEqual([1, 1, 1]);
    for (const id of ['A', 'B']) expect(two[id][0].partitions).toEqual(expect.arrayContaining(three[id][0].partitions));
  });

  it('shares a partition when members outnumber partitions: 4 members on 3 partitions, each partition twice', () => {
    const result = run(
      { topic1: 3 },
      ['A', 'B', 'C', 'D'].map((id) => groupMember(id, ['topic1'])),
    );
    expect([...sharing(result).values()]).toEqual([2, 2, 2]);
    expect(sizes(result)).toEqual([2, 1, 2, 1]);
  });

  // testIncrementalAssignment{Increasing,Decreasing}MembersHeterogeneous: four subscriptions over topics of 12, 8
  // and 4 partitions. Kafka's increasing test hands each round's targets back to the members before the newest
  // one only (the newest stays without a target for the next round), so does this port.
  const patterns = [['topic1', 'topic2', 'topic3'], ['topic2'], ['topic3'], ['topic1', 'topic2']];
  const threeTopics = { topic1: 12, topic2: 8, topic3: 4 };
  const heterogeneousMember = (m: number, assignment: TopicPartitions[] = []): ConsumerGroupMemberSpec =>
    withAssignment(groupMember(`M${m}`, patterns[m % 4]), assignment);

  it('keeps all 24 partitions assigned while members of four subscriptions join one at a time up to 101 (testIncrementalAssignmentIncreasingMembersHeterogeneous)', () => {
    let members: ConsumerGroupMemberSpec[] = [];
    for (let member = 0; member < 101; member++) {
      members.push(heterogeneousMember(member));
      const result = run(threeTopics, members, { memberOrder: 'hash-map' });
      expect(distinctAssigned(result)).toBe(24);
      members = members.map((spec, m) => (m < member ? heterogeneousMember(m, result[spec.memberId]) : spec));
    }
  });

  it('keeps all 24 partitions assigned while 101 members of four subscriptions leave one at a time (testIncrementalAssignmentDecreasingMembersHeterogeneous)', () => {
    let members = Array.from({ length: 101 }, (_, m) => heterogeneousMember(m));
    let result = run(threeTopics, members, { memberOrder: 'hash-map' });
    expect(distinctAssigned(result)).toBe(24);
    for (let member = 100; member > 0; member--) {
      members = members.slice(0, member).map((spec, m) => heterogeneousMember(m, result[spec.memberId]));
      result = run(threeTopics, members, { memberOrder: 'hash-map' });
      expect(distinctAssigned(result)).toBe(24);
    }
    expect(asSets(result)).toEqual({
      M0: {
        topic1: Array.from({ length: 12 }, (_, p) => p),
        topic2: Array.from({ length: 8 }, (_, p) => p),
        topic3: [0, 1, 2, 3],
      },
    });
  });

  it('drops a topic no longer subscribed from a homogeneous group', () => {
    const result = run({ topic1: 2, topic2: 2 }, [
      groupMember('A', ['topic2'], { topic1: [0, 1], topic2: [0] }),
      groupMember('B', ['topic2'], { topic2: [1] }),
    ]);
    expect(asSets(result)).toEqual({ A: { topic2: [0] }, B: { topic2: [1] } });
  });
});
