// The uniform assignor patches the model of the group it last assigned instead of reading it again
// (kept-uniform-group.ts). A stale kept model would hand out a wrong assignment, so these run random
// multi-step histories of groups — members joining and leaving, targets applied as the coordinator
// applies them (frozen lists, shared until a member's target changes), topics growing, shrinking,
// deleted and created, subscriptions changing, another group sharing lists and member ids, lists that
// are not frozen, impossible inputs — and compare every call with the same input read afresh.
import type { TopicPartitions } from '@cohort/protocol';
import { seededRandom, type RandomInt } from '../common/seeded-random';
import type { ConsumerGroupAssignment, ConsumerGroupMemberSpec } from './consumer-group-assignor';
import { KeptUniformGroup } from './kept-uniform-group';
import { uniformAssign } from './uniform-assignor';

/** A target as the coordinator lists it: topics and partitions ascending, frozen throughout. */
function frozenList(entries: readonly TopicPartitions[]): readonly TopicPartitions[] {
  const byTopic = new Map<string, number[]>();
  for (const { topic, partitions } of entries) {
    if (partitions.length === 0) continue;
    byTopic.set(topic, [...(byTopic.get(topic) ?? []), ...partitions]);
  }
  // Frozen partition arrays are readonly to the compiler; the assignor only reads them.
  return Object.freeze(
    [...byTopic.keys()]
      .sort()
      .map((topic) =>
        Object.freeze({ topic, partitions: Object.freeze([...byTopic.get(topic)!].sort((a, b) => a - b)) }),
      ),
  ) as unknown as readonly TopicPartitions[];
}

const NOTHING = frozenList([]);

function unfrozen(members: readonly ConsumerGroupMemberSpec[]): ConsumerGroupMemberSpec[] {
  return members.map((member) => ({
    ...member,
    subscribedTopics: [...member.subscribedTopics],
    assignment: member.assignment.map(({ topic, partitions }) => ({ topic, partitions: [...partitions] })),
  }));
}

type Outcome = { assignment: ConsumerGroupAssignment } | { error: string };

function outcome(assign: () => ConsumerGroupAssignment): Outcome {
  try {
    return { assignment: assign() };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** The same call answered by the kept assignor and read afresh from unfrozen copies: equal, keys in order. */
function check(kept: KeptUniformGroup, members: ConsumerGroupMemberSpec[], partitionsPerTopic: Record<string, number>) {
  // Fresh objects per call, as the coordinator builds its spec; the lists are the members' own.
  const spec = members.map((member) => ({ ...member, subscribedTopics: [...member.subscribedTopics] }));
  const got = outcome(() => kept.assign({ members: spec }, { partitionsPerTopic: { ...partitionsPerTopic } }));
  const want = outcome(() => uniformAssign({ members: unfrozen(members) }, { partitionsPerTopic }));
  expect(got).toEqual(want);
  if ('assignment' in got && 'assignment' in want)
    expect(Object.keys(got.assignment)).toEqual(Object.keys(want.assignment));
  return 'assignment' in got ? got.assignment : null;
}

interface History {
  members: ConsumerGroupMemberSpec[];
  topics: Record<string, number>;
  names: string[];
}

/** The coordinator's records applied: a member whose target changed gets a new frozen list. */
function apply(history: History, assignment: ConsumerGroupAssignment): void {
  history.members = history.members.map((member) => {
    const next = frozenList(assignment[member.memberId]);
    return JSON.stringify(next) === JSON.stringify(member.assignment) ? member : { ...member, assignment: next };
  });
}

function step(random: RandomInt, history: History, nextId: () => string): void {
  const { members } = history;
  const pick = () => random(members.length);
  switch (random(12)) {
    case 0:
    case 1:
      members.push({ memberId: nextId(), subscribedTopics: history.names, assignment: NOTHING });
      break;
    case 2:
      if (members.length > 1) members.splice(pick(), 1);
      break;
    case 3:
      // A member inserted mid-list (its place in the member map differs from the end).
      members.splice(pick(), 0, { memberId: nextId(), subscribedTopics: history.names, assignment: NOTHING });
      break;
    case 4: {
      const topic = `t${random(6)}`;
      if (random(3) === 0) delete history.topics[topic];
      else history.topics[topic] = 1 + random(40);
      break;
    }
    case 5: {
      const names = [...history.names];
      if (random(2) === 0 && names.length > 1) names.splice(random(names.length), 1);
      else names.push(`t${random(7)}`);
      history.names = names;
      history.members = members.map((member) => ({ ...member, subscribedTopics: names }));
      break;
    }
    case 6:
      if (members.length > 0) {
        // One member subscribes differently (heterogeneous), or names the same topics in another order.
        const m = pick();
        const names = random(2) === 0 ? [...history.names].reverse() : [...history.names, 'tx'];
        members[m] = { ...members[m], subscribedTopics: names };
      }
      break;
    case 7:
      if (members.length > 0) {
        const m = pick();
        members[m] = { ...members[m], assignment: unfrozen([members[m]])[0].assignment };
      }
      break;
    case 8:
      if (members.length > 1) {
        // A target taken over from another member (a static member's), or shared with it (impossible).
        const m = pick();
        const other = pick();
        members[m] = { ...members[m], assignment: members[other].assignment };
      }
      break;
    case 9:
      if (members.length > 0) {
        // A target naming partitions of a topic the member does not subscribe to, or beyond its size.
        const m = pick();
        members[m] = {
          ...members[m],
          assignment: frozenList([...members[m].assignment, { topic: `t${random(7)}`, partitions: [50 + random(9)] }]),
        };
      }
      break;
    case 10:
      if (members.length > 1 && random(4) === 0) members.push({ ...members[pick()] });
      break;
    default:
      break;
  }
}

describe('uniform assignor, a group model kept between calls', () => {
  it('gives the same assignments as reading the group afresh, over random histories of many calls', () => {
    let calls = 0;
    let patched = 0;
    for (let seed = 1; seed <= 120; seed++) {
      const random = seededRandom(seed);
      const kept = new KeptUniformGroup({ minMembers: 1, maxGroups: 2 });
      let counter = 0;
      const nextId = () => `m${random(3) === 0 ? counter++ : random(200) * 7 + 1000}-${counter++}`;
      const names = ['t0', 't1', 't2'].slice(0, 1 + random(3));
      const topics: Record<string, number> = {};
      for (let t = 0; t < 4; t++) topics[`t${t}`] = 1 + random(30);
      const history: History = { members: [], topics, names };
      const size = 1 + random(40);
      for (let m = 0; m < size; m++)
        history.members.push({ memberId: nextId(), subscribedTopics: names, assignment: NOTHING });
      for (let call = 0; call < 30; call++) {
        const assignment = check(kept, history.members, history.topics);
        calls++;
        if (assignment !== null && random(5) !== 0) apply(history, assignment);
        else if (assignment === null) history.members = history.members.map((m) => ({ ...m, assignment: NOTHING }));
        if (random(6) === 0) {
          // Another group on the same assignor: some of these members, the same lists, its own changes.
          const other: History = { ...history, members: history.members.filter(() => random(2) === 0) };
          step(random, other, nextId);
          check(kept, other.members, other.topics);
        }
        const steps = random(3);
        for (let s = 0; s < steps; s++) step(random, history, nextId);
        // Duplicated members (case 10) stay for one call only.
        const seen = new Set<string>();
        if (random(2) === 0)
          history.members = history.members.filter((m) => !seen.has(m.memberId) && seen.add(m.memberId));
      }
      patched += kept.patchedCalls;
    }
    expect(calls).toBe(120 * 30);
    // Many calls were answered from a kept model, not read afresh.
    expect(patched).toBeGreaterThan(calls / 5);
  });

  it('keeps a large stable group and answers each member joining and leaving as a fresh read does', () => {
    const kept = new KeptUniformGroup();
    const topics = { a: 700, b: 300 };
    const names = ['a', 'b'];
    const history: History = { members: [], topics, names };
    for (let m = 0; m < 200; m++)
      history.members.push({ memberId: `member-${m}`, subscribedTopics: names, assignment: NOTHING });
    apply(history, check(kept, history.members, topics)!);
    for (let round = 0; round < 20; round++) {
      history.members.push({ memberId: `joining-${round}`, subscribedTopics: names, assignment: NOTHING });
      apply(history, check(kept, history.members, topics)!);
      history.members.splice(1 + round * 7, 1);
      apply(history, check(kept, history.members, topics)!);
    }
    // Every join and leave, the first join too: every member's list is new then (its first target), but
    // each lists the target the call before gave it, which the kept model reads it as holding.
    expect(kept.patchedCalls).toBe(40);
  });

  it('reads a first target listed otherwise than the coordinator lists it as a changed one, as a fresh read does', () => {
    const kept = new KeptUniformGroup();
    const topics = { a: 300, b: 100 };
    const names = ['a', 'b'];
    const history: History = { members: [], topics, names };
    for (let m = 0; m < 150; m++)
      history.members.push({ memberId: `member-${m}`, subscribedTopics: names, assignment: NOTHING });
    const first = check(kept, history.members, topics)!;
    // Every member's first target, frozen but listed topics descending and partitions descending.
    history.members = history.members.map((member) => {
      const listed = frozenList(first[member.memberId]);
      const reversed = listed.map(({ topic, partitions }) =>
        Object.freeze({ topic, partitions: Object.freeze([...partitions].reverse()) }),
      );
      return { ...member, assignment: Object.freeze(reversed.reverse()) as unknown as readonly TopicPartitions[] };
    });
    history.members.push({ memberId: 'joining', subscribedTopics: names, assignment: NOTHING });
    apply(history, check(kept, history.members, topics)!);
    // Not known as the targets just given: every list is new, and the group was read afresh.
    expect(kept.patchedCalls).toBe(0);
  });

  it('patches the join that follows a batch of joins, which moved partitions away from many members', () => {
    const kept = new KeptUniformGroup();
    const topics = { a: 400 };
    const names = ['a'];
    const history: History = { members: [], topics, names };
    for (let m = 0; m < 200; m++)
      history.members.push({ memberId: `member-${m}`, subscribedTopics: names, assignment: NOTHING });
    apply(history, check(kept, history.members, topics)!);
    apply(history, check(kept, history.members, topics)!);
    // Twenty join at once (a turn's batch): each old member had 2 partitions, some give one away.
    for (let m = 0; m < 20; m++)
      history.members.push({ memberId: `batch-${m}`, subscribedTopics: names, assignment: NOTHING });
    const before = history.members.map((member) => member.assignment);
    apply(history, check(kept, history.members, topics)!);
    const moved = history.members.filter((member, m) => member.assignment !== before[m]).length;
    // More than an eighth of the group got a new list, and the next join is still answered from the
    // kept model (as a fresh read answers it: check compares every call).
    expect(moved).toBeGreaterThan(220 / 8);
    const patched = kept.patchedCalls;
    history.members.push({ memberId: 'joining', subscribedTopics: names, assignment: NOTHING });
    apply(history, check(kept, history.members, topics)!);
    expect(kept.patchedCalls).toBe(patched + 1);
  });
});
