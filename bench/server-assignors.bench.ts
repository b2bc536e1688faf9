/**
 * Section `server-assignors` of `npm run bench` (`npm run bench -- server-assignors [shape ...] [--runs N]`):
 * Kafka's uniform server assignor (libs/assignors/src/server) on the three shapes of issue #27's target —
 * 10,000 members × 10 partitions each with identical subscriptions (10 topics of 10,000 partitions),
 * 10,000 members each subscribing to 3 of 50 topics (2,000 partitions each) chosen at random (seeded),
 * and one member joining the first shape's group once it is stable, through the coordinator's target
 * assignment builder as a node calls the assignor (harness/server-assignor-join.ts: each timed join
 * follows the previous round's leave, so its input is the group as the node holds it).
 * Each shape runs in a process of its own: the first call of that process (input built, heap collected;
 * for the join, the first join) and the median of N warm calls (the fresh shapes: on the same input) are printed, in wall time and in process CPU time
 * (the steadier of the two on a shared machine), then the median of 3N calls made after 50 more, as Kafka's side
 * times its settled calls (V8 too tiers up and grows its young generation over the first calls), beside Kafka's own classes timed the same way on the
 * same group in a fresh JVM of the same run (harness/kafka-java; skipped without a JDK), whose output must
 * equal Cohort's, and the target: at most half of Kafka's time.
 *
 * The assignor timed is the built one (dist/, what `npm run build` emits and a node runs), not tsx's
 * transpilation of the sources: the section builds the server first when dist/ is missing or older
 * than the sources it is built from. BENCH_DIST=<checkout> times that checkout's dist/ (for an A/B),
 * BENCH_NODE_ARGS adds node flags to the measuring children (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import type { ConsumerGroupMemberSpec, ConsumerGroupSpec } from '@cohort/assignors';
import type { BenchSection } from './harness/section';
import { BENCH_SCALE } from './harness/scale';
import { type AssignorMeasurement, cpuMs, measuredCalls, measurementOf } from './harness/assignor-measurement';
import { measureJoin } from './harness/server-assignor-join';
import { compareWithKafka, joinInput } from './harness/kafka-java/kafka-comparison';

type AssignorsModule = typeof import('@cohort/assignors');
const ROOT = resolve(__dirname, '..');
/** The checkout whose built assignors are timed: this one, or BENCH_DIST's. */
const checkout = (): string => (process.env.BENCH_DIST ? resolve(process.env.BENCH_DIST) : ROOT);
const builtAssignors = (root: string): string => join(root, 'dist', 'libs', 'assignors', 'src', 'index.js');

/** The newest modification time of the TypeScript under `dir` (0 when there is none). */
function newestSource(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestSource(full));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(full).mtimeMs);
  }
  return newest;
}

/** This checkout's server built when its dist/ lacks the assignors or predates their sources (or the protocol's). */
function ensureBuilt(): void {
  const root = checkout();
  const built = builtAssignors(root);
  if (root !== ROOT) {
    if (!existsSync(built)) throw new Error(`${built} is missing: run npm run build in ${root} first`);
    return;
  }
  const sources = Math.max(...['assignors', 'protocol'].map((lib) => newestSource(join(ROOT, 'libs', lib, 'src'))));
  if (existsSync(built) && statSync(built).mtimeMs >= sources) return;
  const building = Date.now();
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-server.js')], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'inherit'],
    timeout: 600_000, // tsc over the whole app: minutes on a loaded machine
  });
  console.log(`built dist/ (server) in ${((Date.now() - building) / 1000).toFixed(1)} s`);
}

/** In the child: the built assignors (tsx leaves emitted JavaScript as tsc wrote it). */
function loadBuilt(): AssignorsModule {
  // Chosen at run time, possibly from another checkout, hence require().
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return require(builtAssignors(checkout())) as AssignorsModule;
}

interface Shape {
  name: string;
  description: string;
  /** The group the timed calls assign, and the partition counts. */
  build: () => { group: ConsumerGroupSpec; partitionsPerTopic: Record<string, number> };
  /** Timed as a member joining the built group through the coordinator (harness/server-assignor-join.ts). */
  joins?: boolean;
  /** Kafka's figures taken once on another machine (issue #27), ms: a reference line only. */
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
    description:
      `one member joins a stable group of ${MEMBERS} (the first shape), through the coordinator's target ` +
      'assignment builder, and leaves again (untimed) before the next join',
    build: homogeneous,
    joins: true,
    kafka: { warm: 3.8 },
  },
];

/** In the child: build the input, collect the heap, time the process's first call, then warm calls. */
function measure(shape: Shape, runs: number): AssignorMeasurement {
  const { group, partitionsPerTopic } = shape.build();
  const cluster = { partitionsPerTopic };
  const assignor = loadBuilt().createUniformAssignor();
  if (shape.joins) return measureJoin(checkout(), assignor, group.members.length, partitionsPerTopic, runs);
  // The call a node's coordinator makes: the targets in the spec's order when the assignor has them
  // (a build without assignTargets, e.g. an older one under BENCH_DIST, is timed through assign).
  const assign = assignor.assignTargets?.bind(assignor) ?? assignor.assign.bind(assignor);
  (globalThis as { gc?: () => void }).gc?.();
  let cpu = process.cpuUsage();
  let started = performance.now();
  const first = assign(group, cluster) as unknown as Record<string, unknown> | unknown[];
  const firstMs = performance.now() - started;
  const firstCpuMs = cpuMs(cpu);
  // How many members' targets the call changed (the join moves a few, not all).
  let moved = 0;
  group.members.forEach((member, i) => {
    const target = Array.isArray(first) ? first[i] : first[member.memberId];
    if (JSON.stringify(target) !== JSON.stringify(member.assignment)) moved++;
  });
  const walls = [firstMs];
  const cpus = [firstCpuMs];
  const calls = measuredCalls(runs);
  for (let r = 1; r < calls.total; r++) {
    if (!calls.timed(r)) {
      assign(group, cluster);
      continue;
    }
    cpu = process.cpuUsage();
    started = performance.now();
    assign(group, cluster);
    walls.push(performance.now() - started);
    cpus.push(cpuMs(cpu));
  }
  return measurementOf(walls, cpus, runs, moved);
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
      `target: at most half of Kafka's own classes (UniformAssignor), timed the same way in a fresh JVM in this run`,
  );
  console.log(
    `baseline measured in this run: 1M one-element arrays ${baseline().toFixed(0)} ms; load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${cpus().length} cores`,
  );
  ensureBuilt();
  console.log(`timing the built assignor of ${checkout()}/dist`);
  const nodeArgs = (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  for (const shape of selected) {
    const run = spawnSync(
      process.execPath,
      [
        ...nodeArgs,
        '--expose-gc',
        '--max-old-space-size=4096',
        '--import',
        'tsx',
        __filename,
        '--child',
        shape.name,
        String(runs),
      ],
      { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024, timeout: 5 * 60_000 },
    );
    console.log(`\n${shape.name}: ${shape.description}`);
    if (run.status !== 0) {
      console.log(`  failed: ${(run.stderr || run.error?.message || '').split('\n').slice(0, 5).join(' | ')}`);
      process.exitCode = 1;
      continue;
    }
    const { moved, ...cohort } = JSON.parse(run.stdout) as AssignorMeasurement;
    // Kafka gets the group of the first timed call (for the join, as the coordinator's builder hands it over).
    const assignor = loadBuilt().createUniformAssignor();
    const { group, partitionsPerTopic } = shape.build();
    const input = shape.joins
      ? joinInput(checkout(), assignor, group.members.length, partitionsPerTopic)
      : { group, partitionsPerTopic, assignment: assignor.assign(group, { partitionsPerTopic }) };
    const kafka = compareWithKafka(input, cohort, runs, shape.kafka);
    for (const line of kafka.lines) console.log(line);
    console.log(`  members whose target changed: ${moved}`);
    if (!kafka.matched) process.exitCode = 1;
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
