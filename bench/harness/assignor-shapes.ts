/**
 * The shapes of the `assignors` bench section (assignors.bench.ts): Kafka's scale-test inputs, each
 * with Kafka's own figure for the same call (and for two, Kafka's own class to time in the same run),
 * and the reassignment input Kafka's scale tests use.
 */
import { resolve } from 'node:path';
import type { MemberAssignment } from '@cohort/protocol';
import type { ClusterView, MemberSubscription, PartitionAssignor } from '@cohort/assignors';
import type { ClassicKafkaAssignor } from './kafka-java/kafka-classic-assignor';

type AssignorsModule = typeof import('@cohort/assignors');
/** This checkout's assignors, or BENCH_DIST's (the same sources of another checkout, for an A/B). */
// Chosen at run time, from another checkout for an A/B, hence require().
/* eslint-disable @typescript-eslint/no-require-imports */
const assignors: AssignorsModule = process.env.BENCH_DIST
  ? require(resolve(process.env.BENCH_DIST, 'libs', 'assignors', 'src'))
  : require('@cohort/assignors');
/* eslint-enable @typescript-eslint/no-require-imports */
const {
  AssignorRegistry,
  createCooperativeStickyAssignor,
  createRangeAssignor,
  createRoundRobinAssignor,
  createStickyAssignor,
} = assignors;

export type Call = 'fresh' | 'reassignment';

export interface Shape {
  name: string;
  description: string;
  assignor: () => PartitionAssignor;
  build: () => { cluster: ClusterView; members: MemberSubscription[] };
  /** Kafka's time for the call (ms) taken once on another machine: compared with when `kafkaClass` is not timed. */
  kafka: Partial<Record<Call, number>>;
  /**
   * Kafka's own class of the same assignor, timed on the same inputs in a fresh JVM of the same run
   * (harness/kafka-java), its figures the ones compared with; `kafka` is then a reference line only.
   */
  kafkaClass?: ClassicKafkaAssignor;
  /** Kafka's time multiplied by this is the target (1 = at most Kafka's time). */
  target: number;
  /**
   * Also time the reassignment as the first call of a fresh process, its input read from JSON as a
   * node reads it off the wire (a node's first rebalance after a failover is such a call).
   */
  cold?: boolean;
}

const pad = (n: number, width: number): string => String(n).padStart(width, '0');

function manyTopics(topics: number, partitions: number): Record<string, number> {
  return Object.fromEntries(Array.from({ length: topics }, (_, t) => [`t${pad(t, 3)}`, partitions]));
}

/** topics × partitions, every member subscribing to all; `oddOne`: the last subscribes to the first topic only. */
function group(
  topics: number,
  partitions: number,
  memberCount: number,
  oddOne: boolean,
): () => { cluster: ClusterView; members: MemberSubscription[] } {
  return () => {
    const partitionsPerTopic = manyTopics(topics, partitions);
    const all = Object.keys(partitionsPerTopic);
    const members = Array.from({ length: memberCount }, (_, m) => ({
      memberId: `c${pad(m, 4)}`,
      subscription: { topics: oddOne && m === memberCount - 1 ? all.slice(0, 1) : all },
    }));
    return { cluster: { partitionsPerTopic }, members };
  };
}

/** 500 × 2,000 partitions, 2,000 members (Kafka's scale tests). */
const millionPartitions = (oddOne: boolean) => group(500, 2000, 2000, oddOne);

/** 100 topics × 100 partitions, 1,000 members each subscribing to a random third of the topics (seeded). */
function mixed10k(): { cluster: ClusterView; members: MemberSubscription[] } {
  const partitionsPerTopic = manyTopics(100, 100);
  const all = Object.keys(partitionsPerTopic);
  let state = 12345;
  const next = (): number => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 4294967296;
  };
  const members = Array.from({ length: 1000 }, (_, m) => ({
    memberId: `c${pad(m, 4)}`,
    subscription: { topics: all.filter(() => next() < 1 / 3) },
  }));
  return { cluster: { partitionsPerTopic }, members };
}

/** Server-side assignment goes through the registry's runner, which validates input and result. */
function servedCooperativeSticky(): PartitionAssignor {
  const registry = new AssignorRegistry();
  return {
    name: 'cooperative-sticky',
    assign: (cluster, members) => registry.run('cooperative-sticky', cluster, members),
  };
}

export const SHAPES: Shape[] = [
  {
    name: 'range',
    description: 'range, 1M partitions, 2,000 members',
    assignor: createRangeAssignor,
    build: millionPartitions(false),
    kafka: { fresh: 2273 },
    target: 1,
  },
  {
    name: 'roundrobin',
    description: 'roundrobin, 1M partitions, 2,000 members',
    assignor: createRoundRobinAssignor,
    build: millionPartitions(false),
    kafka: { fresh: 822 },
    target: 1,
  },
  {
    name: 'sticky',
    description: 'sticky, 1M partitions, 2,000 members, identical subscriptions',
    assignor: createStickyAssignor,
    build: millionPartitions(false),
    kafka: { fresh: 241, reassignment: 3124 },
    kafkaClass: 'sticky',
    target: 1,
  },
  {
    name: 'coop',
    description: 'cooperative-sticky, 1M partitions, 2,000 members, identical subscriptions',
    assignor: createCooperativeStickyAssignor,
    build: millionPartitions(false),
    kafka: { fresh: 74, reassignment: 1544 },
    kafkaClass: 'cooperative-sticky',
    target: 1,
  },
  {
    name: 'coop-mixed',
    description: 'cooperative-sticky, 1M partitions, 2,000 members, one subscribing to one topic only',
    assignor: createCooperativeStickyAssignor,
    build: millionPartitions(true),
    kafka: { fresh: 7588, reassignment: 6323 },
    target: 0.25,
  },
  {
    name: 'sticky-mixed',
    description: 'sticky, same mixed shape (Kafka: no single-call figure)',
    assignor: createStickyAssignor,
    build: millionPartitions(true),
    kafka: {},
    target: 1,
  },
  {
    name: 'coop-served',
    description:
      'cooperative-sticky as the service runs it (AssignorRegistry.run: input and result validated), 1M partitions, 2,000 members',
    assignor: servedCooperativeSticky,
    build: millionPartitions(false),
    kafka: {},
    target: 1,
  },
  // The smaller shapes of Kafka's timings, cooperative-sticky only, as Kafka timed them.
  {
    name: 'coop-50x800',
    description: 'cooperative-sticky, 50 × 800 partitions, 800 members, identical subscriptions',
    assignor: createCooperativeStickyAssignor,
    build: group(50, 800, 800, false),
    kafka: { fresh: 35, reassignment: 35 },
    target: 1,
    cold: true,
  },
  {
    name: 'coop-50x800-mixed',
    description: 'cooperative-sticky, 50 × 800 partitions, 800 members, one subscribing to one topic only',
    assignor: createCooperativeStickyAssignor,
    build: group(50, 800, 800, true),
    kafka: { fresh: 119, reassignment: 169 },
    target: 1,
    cold: true,
  },
  {
    name: 'coop-10x1000',
    description: 'cooperative-sticky, 10 × 1,000 partitions, 100 members, identical subscriptions',
    assignor: createCooperativeStickyAssignor,
    build: group(10, 1000, 100, false),
    kafka: { fresh: 6, reassignment: 30 },
    target: 1,
    cold: true,
  },
  {
    name: 'coop-10x1000-mixed',
    description: 'cooperative-sticky, 10 × 1,000 partitions, 100 members, one subscribing to one topic only',
    assignor: createCooperativeStickyAssignor,
    build: group(10, 1000, 100, true),
    kafka: { fresh: 28, reassignment: 39 },
    target: 1,
    cold: true,
  },
  {
    name: 'coop-1x2100',
    description: 'cooperative-sticky, 1 × 2,100 partitions, 2,100 members (the "2.5 minutes" case)',
    assignor: createCooperativeStickyAssignor,
    build: group(1, 2100, 2100, false),
    kafka: { fresh: 23, reassignment: 21 },
    target: 1,
    cold: true,
  },
  {
    name: 'coop-10k',
    description: 'cooperative-sticky, 10,000 partitions, 1,000 members, mixed subscriptions',
    assignor: createCooperativeStickyAssignor,
    build: mixed10k,
    kafka: {},
    target: 1,
  },
  {
    name: 'sticky-10k',
    description: 'sticky, 10,000 partitions, 1,000 members, mixed subscriptions',
    assignor: createStickyAssignor,
    build: mixed10k,
    kafka: {},
    target: 1,
  },
];

/** Members 1..n-1 come back owning what they were given; member 0 owns nothing (Kafka's scale tests). */
export function reassignmentInput(
  assignorName: string,
  members: MemberSubscription[],
  fresh: Record<string, MemberAssignment>,
): MemberSubscription[] {
  return members.map((member, m) => {
    if (m === 0) return member;
    const owned = fresh[member.memberId].partitions;
    const userData = assignorName === 'sticky' ? { previousAssignment: owned, generation: 1 } : undefined;
    return { ...member, subscription: { ...member.subscription, ownedPartitions: owned, generationId: 1, userData } };
  });
}
