// The uniform assignor answers the coordinator with each member's target at its index in the spec
// (assignTargets) instead of a record keyed by member id (assign). Both must be the same assignment,
// whichever path computed it: a fresh homogeneous deal, the general homogeneous builder, the
// heterogeneous one, a kept group patched for a join, and member ids that name prototype keys.
import type { TopicPartitions } from '@cohort/protocol';
import type { ConsumerGroupAssignment, ConsumerGroupMemberSpec } from './consumer-group-assignor';
import { createUniformAssignor } from './uniform-assignor';

function member(
  memberId: string,
  subscribedTopics: string[],
  assignment: TopicPartitions[] = [],
): ConsumerGroupMemberSpec {
  return { memberId, subscribedTopics, assignment };
}

/** Both answers for each call of a history, from two assignors given the same calls. */
function bothAnswers(history: ConsumerGroupMemberSpec[][], partitionsPerTopic: Record<string, number>) {
  const byRecord = createUniformAssignor();
  const byTargets = createUniformAssignor();
  return history.map((members) => ({
    members,
    record: byRecord.assign({ members }, { partitionsPerTopic }),
    targets: (byTargets.assignTargets as NonNullable<typeof byTargets.assignTargets>)(
      { members },
      { partitionsPerTopic },
    ),
  }));
}

/** The record's entries in the spec's order (own properties only: `__proto__` is a member id here). */
function inSpecOrder(record: ConsumerGroupAssignment, members: readonly ConsumerGroupMemberSpec[]) {
  return members.map(({ memberId }) => Object.getOwnPropertyDescriptor(record, memberId)?.value);
}

/** Ids in an order unlike Java's member map order, so spec index and member index differ. */
const ids = (n: number): string[] => Array.from({ length: n }, (_, m) => `member-${(m * 37) % n}-${m}`);

describe('uniform assignor: targets in the spec order', () => {
  it('gives a fresh homogeneous group the record’s targets, member by member', () => {
    const members = ids(300).map((id) => member(id, ['a', 'b', 'c']));
    const [call] = bothAnswers([members], { a: 1000, b: 7, c: 333 });
    expect(call.targets).toHaveLength(300);
    expect(call.targets).toEqual(inSpecOrder(call.record, members));
  });

  it('gives a heterogeneous group the record’s targets, member by member', () => {
    const topics = ['a', 'b', 'c', 'd'];
    const members = ids(120).map((id, m) => member(id, [topics[m % 4], topics[(m + 1) % 4]]));
    const [call] = bothAnswers([members], { a: 50, b: 60, c: 70, d: 80 });
    expect(call.targets).toEqual(inSpecOrder(call.record, members));
    // Each target at its own member's index: only topics that member subscribes to.
    call.targets.forEach((target, m) => {
      for (const { topic } of target) expect(members[m].subscribedTopics).toContain(topic);
    });
  });

  it('gives the same targets when a member joins a stable group kept between calls', () => {
    const partitionsPerTopic = { a: 640, b: 64 };
    const first = ids(100).map((id) => member(id, ['a', 'b']));
    const [fresh] = bothAnswers([first], partitionsPerTopic);
    // The group as the coordinator holds it: every member with its frozen target.
    const stable = first.map((spec) => ({
      ...spec,
      assignment: Object.freeze(
        fresh.record[spec.memberId].map((entry) =>
          Object.freeze({
            topic: entry.topic,
            partitions: Object.freeze([...entry.partitions]) as unknown as number[],
          }),
        ),
      ) as unknown as TopicPartitions[],
    }));
    const joined = [...stable, member('late-joiner', ['a', 'b'])];
    const calls = bothAnswers([first, stable, joined], partitionsPerTopic);
    for (const call of calls) expect(call.targets).toEqual(inSpecOrder(call.record, call.members));
    expect(calls[2].targets[100].length).toBeGreaterThan(0);
  });

  it('gives members named as prototype keys their own targets', () => {
    const members = ['__proto__', 'constructor', 'toString', 'x'].map((id) => member(id, ['a']));
    const [call] = bothAnswers([members], { a: 8 });
    expect(call.targets).toEqual(inSpecOrder(call.record, members));
    expect(call.targets.map((target) => target[0].partitions.length)).toEqual([2, 2, 2, 2]);
  });
});
