/**
 * The groups the conformance kit puts an assignor through. Each scenario starts from a generated
 * group and applies changes one rebalance at a time; between rebalances every member reports the
 * partitions it was given as owned (with the new generation), as a real consumer would.
 */
import type { ClusterView, MemberSubscription } from '../api/partition-assignor';
import { seededRandom, type RandomInt } from '../common/seeded-random';

export interface Group {
  cluster: ClusterView;
  members: MemberSubscription[];
}

export type Change = (group: Group) => Group;

export interface Scenario {
  name: string;
  /** All members subscribe to the same topics (Kafka's constrained case). */
  uniform: boolean;
  initial: Group;
  changes: { name: string; apply: Change }[];
}

interface Shape {
  label: string;
  topics: number;
  maxPartitions: number;
  members: number;
}

const SHAPES: Shape[] = [
  { label: 'small', topics: 3, maxPartitions: 8, members: 4 },
  { label: 'medium', topics: 10, maxPartitions: 24, members: 25 },
  { label: 'large', topics: 20, maxPartitions: 100, members: 100 },
];

function topicNames(count: number): string[] {
  return Array.from({ length: count }, (_, t) => `topic-${String(t).padStart(2, '0')}`);
}

function buildGroup(random: RandomInt, shape: Shape, uniform: boolean, statics: boolean): Group {
  const topics = topicNames(shape.topics);
  const partitionsPerTopic = Object.fromEntries(topics.map((t) => [t, 1 + random(shape.maxPartitions)]));
  const members = Array.from({ length: shape.members }, (_, m) => {
    const subscribed = uniform ? topics : topics.filter(() => random(2) === 0);
    return {
      memberId: `member-${String(m).padStart(3, '0')}-${random(1000)}`,
      groupInstanceId: statics ? `instance-${m}` : null,
      subscription: { topics: subscribed.length > 0 ? subscribed : [topics[random(topics.length)]] },
    };
  });
  return { cluster: { partitionsPerTopic }, members };
}

const join =
  (count: number, random: RandomInt): Change =>
  (group) => {
    const template = group.members[random(group.members.length)].subscription.topics;
    const joiners = Array.from({ length: count }, (_, i) => ({
      memberId: `joiner-${i}-${random(1000)}`,
      subscription: { topics: [...template] },
    }));
    return { cluster: group.cluster, members: [...group.members, ...joiners] };
  };

const leave =
  (count: number, random: RandomInt): Change =>
  (group) => {
    const members = [...group.members];
    for (let i = 0; i < count && members.length > 1; i++) members.splice(random(members.length), 1);
    return { cluster: group.cluster, members };
  };

const grow =
  (random: RandomInt): Change =>
  (group) => {
    const partitionsPerTopic = { ...group.cluster.partitionsPerTopic };
    const topics = Object.keys(partitionsPerTopic);
    for (let i = 0; i < Math.max(1, topics.length >> 2); i++)
      partitionsPerTopic[topics[random(topics.length)]] += 1 + random(4);
    return { cluster: { partitionsPerTopic }, members: group.members };
  };

const resubscribe =
  (random: RandomInt): Change =>
  (group) => {
    const topics = Object.keys(group.cluster.partitionsPerTopic);
    const members = group.members.map((m) =>
      random(4) === 0
        ? { ...m, subscription: { ...m.subscription, topics: topics.filter(() => random(2) === 0).concat(topics[0]) } }
        : m,
    );
    return { cluster: group.cluster, members };
  };

/** Static members restart: same instance ids, new member ids, in a different arrival order. */
const restartStatics =
  (random: RandomInt): Change =>
  (group) => {
    const members = group.members.map((m) => ({ ...m, memberId: `${m.memberId}-restarted-${random(1000)}` }));
    for (let i = members.length - 1; i > 0; i--) {
      const j = random(i + 1);
      [members[i], members[j]] = [members[j], members[i]];
    }
    return { cluster: group.cluster, members };
  };

const subscribeToMissingTopic: Change = (group) => ({
  cluster: { partitionsPerTopic: { ...group.cluster.partitionsPerTopic, 'empty-topic': 0 } },
  members: group.members.map((m, i) =>
    i % 2 === 0
      ? {
          ...m,
          subscription: { ...m.subscription, topics: [...m.subscription.topics, 'missing-topic', 'empty-topic'] },
        }
      : m,
  ),
});

export function generateScenarios(seed: number): Scenario[] {
  const random = seededRandom(seed);
  const scenarios: Scenario[] = [];
  for (const shape of SHAPES) {
    for (const uniform of [true, false]) {
      const kind = uniform ? 'uniform' : 'mixed';
      scenarios.push({
        name: `${kind}/${shape.label}: members join, leave, partitions grow`,
        uniform,
        initial: buildGroup(random, shape, uniform, false),
        changes: [
          { name: 'rebalance with nothing changed', apply: (g) => g },
          { name: 'two members join', apply: join(2, random) },
          { name: 'three members leave', apply: leave(3, random) },
          { name: 'partitions added', apply: grow(random) },
          { name: 'one member joins, one leaves', apply: (g) => leave(1, random)(join(1, random)(g)) },
        ],
      });
    }
    scenarios.push({
      name: `static/${shape.label}: static members restart with new member ids`,
      uniform: true,
      initial: buildGroup(random, shape, true, true),
      changes: [{ name: 'restart', apply: restartStatics(random) }],
    });
  }
  scenarios.push({
    name: 'mixed/medium: subscriptions change',
    uniform: false,
    initial: buildGroup(random, SHAPES[1], false, false),
    changes: [
      { name: 'a quarter of the members resubscribe', apply: resubscribe(random) },
      { name: 'members subscribe to a missing and an empty topic', apply: subscribeToMissingTopic },
    ],
  });
  return scenarios;
}
