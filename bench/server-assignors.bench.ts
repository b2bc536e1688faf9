/**
 * Section `server-assignors` of `npm run bench` (`npm run bench -- server-assignors [shape ...] [--runs N]`):
 * Kafka's uniform server assignor (libs/assignors/src/server) on the three shapes of issue #27's target —
 * 10,000 members × 10 partitions each with identical subscriptions (10 topics of 10,000 partitions),
 * 10,000 members each subscribing to 3 of 50 topics (2,000 partitions each) chosen at random (seeded),
 * and one member joining the first shape's group once it is stable (every member holding its target).
 * Each shape runs in a process of its own: the first call of that process (input built, heap collected)
 * and the median of N warm calls on the same input are printed, in wall time and in process CPU time
 * (the steadier of the two on a shared machine), beside the target (half of Kafka's own classes timed
 * on this kind of machine) and a fixed-work baseline measured in the same run.
 */
import { spawnSync } from 'node:child_process';
import { cpus, loadavg } from 'node:os';
import type { ConsumerGroupMemberSpec, ConsumerGroupSpec } from '@cohort/assignors';
import { createUniformAssignor } from '@cohort/assignors';
import type { BenchSection } from './harness/section';
import { BENCH_SCALE } from './harness/scale';

interface Shape {
  name: string;
  description: string;
  /** The group the timed calls assign, and the partition counts. */
  build: () => { group: ConsumerGroupSpec; partitionsPerTopic: Record<string, number> };
  /** Kafka's figures on this kind of machine (issue #27): warm and first call of a process, ms. */
  kafka: { warm: number; first?: number };
}

const MEMBERS = Math.max(100, Math.round(10_000 * BENCH_SCALE));

function seeded(seed: number): (n: number) => number {
  let state = seed >>> 0;
  return (n) => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state % n;
  };
}

function memberId(m: number): string {
  return `member-${String(m).padStart(5, '0')}`;
}

function homogeneous(): { group: ConsumerGroupSpec; partitionsPerTopic: Record<string, number> } {
  const partitionsPerTopic: Record<string, number> = {};
  for (let t = 0; t < 10; t++) partitionsPerTopic[`topic-${t}`] = MEMBERS;
  const topics = Object.keys(partitionsPerTopic);
  const members: ConsumerGroupMemberSpec[] = [];
  for (let m = 0; m < MEMBERS; m++) members.push({ memberId: memberId(m), subscribedTopics: topics, assignment: [] });
  return { group: { members }, partitionsPerTopic };
}

function heterogeneous(): { group: ConsumerGroupSpec; partitionsPerTopic: Record<string, number> } {
  const partitionsPerTopic: Record<string, number> = {};
  for (let t = 0; t < 50; t++) partitionsPerTopic[`topic-${t}`] = Math.round((MEMBERS * 10) / 50);
  const random = seeded(27);
  const members: ConsumerGroupMemberSpec[] = [];
  for (let m = 0; m < MEMBERS; m++) {
    const chosen = new Set<string>();
    while (chosen.size < 3) chosen.add(`topic-${random(50)}`);
    members.push({ memberId: memberId(m), subscribedTopics: [...chosen], assignment: [] });
  }
  return { group: { members }, partitionsPerTopic };
}

/** The homogeneous group once stable (each member's target is the fresh assignment), and one member joins. */
function join(): { group: ConsumerGroupSpec; partitionsPerTopic: Record<string, number> } {
  const { group, partitionsPerTopic } = homogeneous();
  const targets = createUniformAssignor().assign(group, { partitionsPerTopic });
  const topics = Object.keys(partitionsPerTopic);
  const members = group.members.map((member) => ({ ...member, assignment: targets[member.memberId] }));
  members.push({ memberId: 'member-joining', subscribedTopics: topics, assignment: [] });
  return { group: { members }, partitionsPerTopic };
}

const SHAPES: Shape[] = [
  {
    name: 'uniform-homogeneous',
    description: `${MEMBERS} members × 10 partitions each, identical subscriptions (10 topics), fresh`,
    build: homogeneous,
    kafka: { warm: 18, first: 84 },
  },
  {
    name: 'uniform-heterogeneous',
    description: `${MEMBERS} members each subscribing to 3 random topics of 50 (${Math.round((MEMBERS * 10) / 50)} partitions each), fresh`,
    build: heterogeneous,
    kafka: { warm: 26, first: 85 },
  },
  {
    name: 'uniform-join',
    description: `one member joins a stable group of ${MEMBERS} (the first shape, every member holding its target)`,
    build: join,
    kafka: { warm: 3.8 },
  },
];

interface Measurement {
  firstMs: number;
  warm: number[];
  /** The same calls' process CPU time (main thread and GC threads), steadier than wall time on a shared machine. */
  firstCpuMs: number;
  warmCpu: number[];
  moved: number;
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const { user, system } = process.cpuUsage(since);
  return (user + system) / 1000;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/** In the child: build the input, collect the heap, time the process's first call, then warm calls. */
function measure(shape: Shape, runs: number): Measurement {
  const { group, partitionsPerTopic } = shape.build();
  const cluster = { partitionsPerTopic };
  const assignor = createUniformAssignor();
  (globalThis as { gc?: () => void }).gc?.();
  let cpu = process.cpuUsage();
  let started = performance.now();
  const first = assignor.assign(group, cluster);
  const firstMs = performance.now() - started;
  const firstCpuMs = cpuMs(cpu);
  // How many members' targets the call changed (the join moves a few, not all).
  let moved = 0;
  for (const member of group.members)
    if (JSON.stringify(first[member.memberId]) !== JSON.stringify(member.assignment)) moved++;
  const warm: number[] = [];
  const warmCpu: number[] = [];
  for (let r = 0; r < runs; r++) {
    cpu = process.cpuUsage();
    started = performance.now();
    assignor.assign(group, cluster);
    warm.push(performance.now() - started);
    warmCpu.push(cpuMs(cpu));
  }
  return { firstMs, warm, firstCpuMs, warmCpu, moved };
}

/** Fixed work measured in the same run: how busy the machine is (compare across runs; larger = busier). */
function baseline(): number {
  const started = performance.now();
  const lists: number[][] = [];
  for (let i = 0; i < 1_000_000; i++) lists.push([i]);
  return performance.now() - started + (lists.length & 0);
}

function childMain(args: string[]): void {
  const at = args.indexOf('--child');
  if (at < 0) throw new Error('this file is a section of the runner: npm run bench -- server-assignors');
  const shape = SHAPES.find((s) => s.name === args[at + 1]);
  if (!shape) throw new Error(`unknown shape ${args[at + 1]}`);
  process.stdout.write(JSON.stringify(measure(shape, Number(args[at + 2]))));
}

function serverAssignorsBench(args: string[]): void {
  const runsAt = args.indexOf('--runs');
  const runs = runsAt >= 0 ? Math.max(1, Number(args[runsAt + 1])) : 15;
  const wanted = args.filter((arg, i) => !arg.startsWith('--') && (runsAt < 0 || i !== runsAt + 1));
  const unknown = wanted.filter((name) => !SHAPES.some((s) => s.name === name));
  if (unknown.length > 0)
    throw new Error(`unknown shape(s) ${unknown.join(', ')}; shapes: ${SHAPES.map((s) => s.name).join(', ')}`);
  const selected = wanted.length > 0 ? SHAPES.filter((s) => wanted.includes(s.name)) : SHAPES;
  console.log(
    `Kafka's uniform server assignor: first call of a fresh process, then the median of ${runs} warm calls; ` +
      `target: at most half of Kafka's own classes (UniformAssignor, JDK 17) timed on this kind of 2-vCPU machine (issue #27)`,
  );
  console.log(
    `baseline measured in this run: 1M one-element arrays ${baseline().toFixed(0)} ms; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${cpus().length} cores`,
  );
  for (const shape of selected) {
    const run = spawnSync(
      process.execPath,
      ['--expose-gc', '--max-old-space-size=4096', '--import', 'tsx', __filename, '--child', shape.name, String(runs)],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 5 * 60_000 },
    );
    console.log(`\n${shape.name}: ${shape.description}`);
    if (run.status !== 0) {
      console.log(`  failed: ${(run.stderr || run.error?.message || '').split('\n').slice(0, 5).join(' | ')}`);
      process.exitCode = 1;
      continue;
    }
    const { firstMs, warm, firstCpuMs, warmCpu, moved } = JSON.parse(run.stdout) as Measurement;
    const warmMs = median(warm);
    const row = (what: string, ms: number, kafka: number | undefined): string =>
      `  ${what.padEnd(28)} ${ms.toFixed(1).padStart(7)} ms` +
      (kafka === undefined
        ? ''
        : `   Kafka ${kafka} ms, target ≤ ${(kafka / 2).toFixed(1)} ms: ${(ms / kafka).toFixed(2)}× Kafka ${ms <= kafka / 2 ? 'met' : 'NOT met'}`);
    console.log(row('first call of the process', firstMs, shape.kafka.first));
    console.log(row(`warm (median of ${runs})`, warmMs, shape.kafka.warm));
    console.log(row('first call, process CPU', firstCpuMs, shape.kafka.first));
    console.log(row(`warm, process CPU (median)`, median(warmCpu), shape.kafka.warm));
    console.log(`  members whose target changed: ${moved}`);
  }
}

export const serverAssignorsSection: BenchSection = {
  name: 'server-assignors',
  summary:
    "Kafka's uniform server assignor on 10,000 members (identical and mixed subscriptions, a member joining), against half of Kafka's time",
  usage: '[uniform-homogeneous|uniform-heterogeneous|uniform-join ...] [--runs N]',
  needsBuild: false,
  run: async (args) => serverAssignorsBench(args),
};

if (require.main === module) childMain(process.argv.slice(2));
