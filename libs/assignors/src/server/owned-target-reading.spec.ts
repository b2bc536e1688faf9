// The uniform assignor keeps its reading of a member's target with a list frozen throughout (as the
// coordinator passes targets) for the next call; these prove a kept reading is never served for a
// target, a cluster or a group it does not fit, by comparing with the same input given as unfrozen
// copies, which are always read afresh.
import type { TopicPartitions } from '@cohort/protocol';
import type { ConsumerGroupMemberSpec } from './consumer-group-assignor';
import { createUniformAssignor } from './uniform-assignor';

/** A target as the coordinator lists it: topics and partitions ascending, frozen throughout. */
function frozenList(target: Record<string, number[]>): readonly TopicPartitions[] {
  // Frozen partition arrays are readonly to the compiler; the assignor only reads them.
  return Object.freeze(
    Object.keys(target)
      .sort()
      .map((topic) => Object.freeze({ topic, partitions: Object.freeze([...target[topic]].sort((a, b) => a - b)) })),
  ) as unknown as readonly TopicPartitions[];
}

function unfrozen(members: readonly ConsumerGroupMemberSpec[]): ConsumerGroupMemberSpec[] {
  return members.map((member) => ({
    ...member,
    subscribedTopics: [...member.subscribedTopics],
    assignment: member.assignment.map(({ topic, partitions }) => ({ topic, partitions: [...partitions] })),
  }));
}

/** The assignment of `members` by an assignor that has read nothing before, from unfrozen copies. */
function readAfresh(members: readonly ConsumerGroupMemberSpec[], partitionsPerTopic: Record<string, number>) {
  return createUniformAssignor().assign({ members: unfrozen(members) }, { partitionsPerTopic });
}

const range = (from: number, to: number): number[] => Array.from({ length: to - from }, (_, i) => from + i);

/**
 * 60 partitions, 20 held by each of three members (stable: nothing moves). Partitions 32 and up sit in
 * buckets below 15's in the 32-bucket HashSet of 20: Java's order is not the list's.
 */
function stableGroup(subscribed: string[]): ConsumerGroupMemberSpec[] {
  return [
    { memberId: 'm1', subscribedTopics: subscribed, assignment: frozenList({ a: range(15, 35) }) },
    {
      memberId: 'm2',
      subscribedTopics: subscribed,
      assignment: frozenList({ a: [...range(0, 15), ...range(35, 40)] }),
    },
    { memberId: 'm3', subscribedTopics: subscribed, assignment: frozenList({ b: range(0, 20) }) },
  ];
}

describe('uniform assignor, targets kept from an earlier call', () => {
  const partitionsPerTopic = { a: 40, b: 20 };

  it("hands a stable member's frozen target back in Java's order, the same array on the next call", () => {
    const assignor = createUniformAssignor();
    const members = stableGroup(['a', 'b']);
    const first = assignor.assign({ members }, { partitionsPerTopic });
    const second = assignor.assign({ members }, { partitionsPerTopic });
    expect(first).toEqual(readAfresh(members, partitionsPerTopic));
    expect(first.m1).toEqual([{ topic: 'a', partitions: [32, 33, 34, ...range(15, 32)] }]);
    expect(second.m1).toBe(first.m1);
    expect(Object.isFrozen(second.m1)).toBe(true);
  });

  it('reads targets changed in place since the last call as they are now (a list not frozen is never kept)', () => {
    const assignor = createUniformAssignor();
    const members = unfrozen(stableGroup(['a', 'b']));
    assignor.assign({ members }, { partitionsPerTopic });
    // m1 hands four partitions to m2, which now holds more than its share.
    (members[0].assignment[0].partitions as number[]).splice(0, 4);
    (members[1].assignment[0].partitions as number[]).push(15, 16, 17, 18);
    const now = assignor.assign({ members }, { partitionsPerTopic });
    expect(now).toEqual(readAfresh(members, partitionsPerTopic));
    expect(now.m1[0].partitions).not.toContain(15);
  });

  it('reads frozen lists whose partition arrays are not frozen afresh after those change', () => {
    const assignor = createUniformAssignor();
    const members = stableGroup(['a', 'b']);
    const held = [range(15, 35), [...range(0, 15), ...range(35, 40)]];
    for (let m = 0; m < 2; m++)
      members[m] = {
        ...members[m],
        assignment: Object.freeze([Object.freeze({ topic: 'a', partitions: held[m] })]),
      };
    assignor.assign({ members }, { partitionsPerTopic });
    held[0].splice(0, 4);
    held[1].push(15, 16, 17, 18);
    const now = assignor.assign({ members }, { partitionsPerTopic });
    expect(now).toEqual(readAfresh(members, partitionsPerTopic));
    expect(now.m1[0].partitions).not.toContain(15);
  });

  it('drops the partitions beyond a topic that shrank, and the topic that is gone, from a kept target', () => {
    const assignor = createUniformAssignor();
    const members = stableGroup(['a', 'b']);
    assignor.assign({ members }, { partitionsPerTopic });
    const shrunk = { a: 20, b: 20 };
    const afterShrink = assignor.assign({ members }, { partitionsPerTopic: shrunk });
    expect(afterShrink).toEqual(readAfresh(members, shrunk));
    expect(afterShrink.m1.flatMap((entry) => (entry.topic === 'a' ? entry.partitions : []))).not.toContain(31);
    const gone = { a: 40 };
    expect(assignor.assign({ members }, { partitionsPerTopic: gone })).toEqual(readAfresh(members, gone));
  });

  it('reads the same frozen targets in another group, whose topics are numbered in another order, for that group', () => {
    const assignor = createUniformAssignor();
    const first = stableGroup(['a', 'b']);
    assignor.assign({ members: first }, { partitionsPerTopic });
    // The other group names b first (so numbers it first), gives m1's list to another member, and has one more.
    const other: ConsumerGroupMemberSpec[] = [
      { memberId: 'x1', subscribedTopics: ['b', 'a'], assignment: first[1].assignment },
      { memberId: 'x2', subscribedTopics: ['b', 'a'], assignment: first[0].assignment },
      { memberId: 'x3', subscribedTopics: ['b', 'a'], assignment: frozenList({}) },
      { memberId: 'x4', subscribedTopics: ['b'], assignment: first[2].assignment },
    ];
    const sizes = { a: 40, b: 25 };
    expect(assignor.assign({ members: other }, { partitionsPerTopic: sizes })).toEqual(readAfresh(other, sizes));
    expect(assignor.assign({ members: first }, { partitionsPerTopic })).toEqual(readAfresh(first, partitionsPerTopic));
  });
});
