/**
 * Section `assignors` of `npm run bench` (`npm run bench -- assignors [shape ...] [--runs N]`, or
 * `npm run bench:assignors`): the built-in assignors on the shapes Kafka's
 * own Java assignors were timed on (libs/assignors/README.md, Benchmarks: 500 topics × 2,000 partitions,
 * 2,000 members, JDK 17 on this kind of 2-vCPU machine), plus 10,000 partitions × 1,000 members with
 * mixed subscriptions. Each shape runs in its own child process so its peak memory is its own; a call
 * is timed after one warm-up call on the same input, like Kafka's timing (its "second repetition"); the
 * median of the timed calls is compared with Kafka's figure, as a ratio. The warm-up call is shown too:
 * for `fresh` it is the first call of its process, for `reassignment` the first reassignment after the
 * fresh calls; the heap is collected before it, so it does not pay for the benchmark's own garbage
 * (building the input, writing it out as JSON). Runtime: about a minute for every shape.
 *
 * For `sticky` and `coop`, Kafka's own StickyAssignor and CooperativeStickyAssignor (harness/kafka-java,
 * compiled with the machine's JDK; skipped with a message without one) are timed on the same inputs in a
 * fresh JVM of the same run: their first call, warm median and median once the JIT settled are printed
 * under Cohort's row, with the ratio of Cohort's first call and median to each, and every member must get
 * the same partitions as from Kafka; the figure taken once on another machine stays as a reference line.
 * That adds a few minutes to each of the two shapes.
 *
 * `BENCH_DIST=<checkout>` times that checkout's assignors (its libs/assignors/src) with this harness,
 * so an A/B alternates two builds under one measurement.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemberAssignment } from '@cohort/protocol';
import type { MemberSubscription } from '@cohort/assignors';
import type { BenchSection } from './harness/section';
import { pageFaultMicros } from './harness/page-fault-cost';
import { type Call, type Shape, SHAPES, reassignmentInput } from './harness/assignor-shapes';
import {
  assignmentsOf,
  classicCallFiles,
  runKafkaClassicAssignor,
  writeClassicCalls,
} from './harness/kafka-java/kafka-classic-assignor';
import { classicKafkaRows } from './harness/kafka-java/kafka-classic-comparison';

interface Measurement {
  shape: string;
  call: Call;
  runs: number[];
  /**
   * The warm-up call. `fresh`: the first call of its process (cold JIT, an empty pool of shared
   * one-partition entries). `reassignment`: the first reassignment, after the fresh calls of the same
   * process (code shared with a fresh call compiled, the fresh result's entries pooled).
   */
  firstMs: number;
  /** The warm-up call's process CPU time (user + system, all threads: includes the JIT's background compiles). */
  firstCpuMs: number;
  /** Minor page faults during the warm-up call: memory the process touched for the first time. */
  firstFaults: number;
  /** Process CPU time of each run (user + system, all threads). */
  cpuRuns: number[];
  baselineRssMb: number;
  peakRssMb: number;
  partitions: number;
  members: number;
  /** The reassignment as the first call of its process (runs: that one call). */
  cold?: boolean;
}

/** One call timed: wall and process CPU (ms), and the minor page faults it took. */
function timedCall<T>(call: () => T): { ms: number; cpuMs: number; faults: number; result: T } {
  const faults = process.resourceUsage().minorPageFault;
  const cpu = process.cpuUsage();
  const started = performance.now();
  const result = call();
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return {
    ms,
    cpuMs: (used.user + used.system) / 1000,
    faults: process.resourceUsage().minorPageFault - faults,
    result,
  };
}

function rssMb(): number {
  return process.memoryUsage().rss / 1048576;
}

/**
 * Runs in the child: one shape, warm-up then timed calls, fresh and reassignment. With `kafkaDir`, each
 * call's input and its warm-up call's answer are written there afterwards, for Kafka's own class.
 */
function measureShape(shape: Shape, runs: number, ownedOut?: string, kafkaDir?: string): Measurement[] {
  const assignor = shape.assignor();
  const { cluster, members } = shape.build();
  const partitions = Object.values(cluster.partitionsPerTopic).reduce((a, b) => a + b, 0);
  const results: Measurement[] = [];
  const time = (input: MemberSubscription[]) => timedCall(() => assignor.assign(cluster, input));
  const calls: Call[] = shape.name === 'range' || shape.name === 'roundrobin' ? ['fresh'] : ['fresh', 'reassignment'];
  let fresh: Record<string, MemberAssignment> | null = null;
  const answered: { call: Call; input: MemberSubscription[]; result: Record<string, MemberAssignment> }[] = [];
  for (const call of calls) {
    const input = call === 'fresh' ? members : reassignmentInput(assignor.name, members, fresh!);
    if (call === 'reassignment' && ownedOut !== undefined) writeFileSync(ownedOut, JSON.stringify(input));
    // Collected before each call, the first one too: building the input and writing it out as JSON
    // leave garbage that is the benchmark's, not the call's.
    global.gc?.();
    const warm = time(input);
    if (call === 'fresh') fresh = warm.result;
    if (kafkaDir !== undefined) answered.push({ call, input, result: warm.result });
    global.gc?.();
    const baselineRssMb = rssMb();
    const timings: number[] = [];
    const cpuTimings: number[] = [];
    for (let i = 0; i < runs; i++) {
      const run = time(input);
      timings.push(run.ms);
      cpuTimings.push(run.cpuMs);
    }
    results.push({
      shape: shape.name,
      call,
      runs: timings,
      firstMs: warm.ms,
      firstCpuMs: warm.cpuMs,
      firstFaults: warm.faults,
      cpuRuns: cpuTimings,
      baselineRssMb,
      peakRssMb: process.resourceUsage().maxRSS / 1024,
      partitions,
      members: members.length,
    });
  }
  if (kafkaDir !== undefined) writeClassicCalls(kafkaDir, cluster, answered);
  return results;
}

/** Runs in a child of its own: the reassignment input written by measureShape, as the process's first call. */
function measureCold(shape: Shape, inputFile: string): Measurement {
  const assignor = shape.assignor();
  const { cluster } = shape.build();
  const input = JSON.parse(readFileSync(inputFile, 'utf8')) as MemberSubscription[];
  const partitions = Object.values(cluster.partitionsPerTopic).reduce((a, b) => a + b, 0);
  // The parsed input is collected once, as a node holds its members' subscriptions through the join
  // phase before it assigns; the parser's garbage is not the call's.
  global.gc?.();
  const baselineRssMb = rssMb();
  const { ms, cpuMs, faults } = timedCall(() => assignor.assign(cluster, input));
  return {
    shape: shape.name,
    call: 'reassignment',
    cold: true,
    runs: [ms],
    firstMs: ms,
    firstCpuMs: cpuMs,
    firstFaults: faults,
    cpuRuns: [cpuMs],
    baselineRssMb,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    partitions,
    members: input.length,
  };
}

function formatRow(measurement: Measurement, shape: Shape): string {
  const best = Math.min(...measurement.runs);
  const median = [...measurement.runs].sort((a, b) => a - b)[measurement.runs.length >> 1];
  const kafka = shape.kafka[measurement.call];
  // Judged on the median, not the best run: the machine is noisy, and the best run flatters.
  const ratio = kafka === undefined ? '' : `${(median / kafka).toFixed(2)}× Kafka`;
  const verdict =
    kafka === undefined
      ? ''
      : median <= kafka * shape.target
        ? 'meets target'
        : `MISSES target (≤ ${shape.target === 1 ? "Kafka's time" : `${shape.target} × Kafka`})`;
  // The first call is compared with Kafka's figure too, though Kafka's is a warm JVM's second call.
  const firstRatio = kafka === undefined ? '' : ` = ${(measurement.firstMs / kafka).toFixed(2)}× Kafka`;
  const firstCall =
    measurement.call === 'fresh' ? 'first call of the process' : 'first reassignment (after the fresh calls)';
  const timing = measurement.cold
    ? [
        `${median.toFixed(0).padStart(6)} ms first  `,
        `(the first call of a new process, input read from JSON; cpu ${measurement.firstCpuMs.toFixed(0)} ms, ${measurement.firstFaults} page faults)`.padEnd(
          44,
        ),
      ]
    : [
        `${median.toFixed(0).padStart(6)} ms median`,
        `(best ${best.toFixed(0)}; runs: ${measurement.runs.map((r) => r.toFixed(0)).join(', ')}; cpu ${Math.min(...measurement.cpuRuns).toFixed(0)} ms; ${firstCall} ${measurement.firstMs.toFixed(0)} ms, cpu ${measurement.firstCpuMs.toFixed(0)}, ${measurement.firstFaults} page faults${firstRatio})`.padEnd(
          44,
        ),
      ];
  return [
    `  ${(measurement.cold ? 'cold reassign' : measurement.call).padEnd(12)}`,
    ...timing,
    kafka === undefined ? ''.padEnd(17) : `Kafka ${String(kafka).padStart(5)} ms`,
    ratio.padEnd(12),
    `peak RSS ${measurement.peakRssMb.toFixed(0)} MB (input held: ${measurement.baselineRssMb.toFixed(0)} MB)`,
    verdict,
  ].join('  ');
}

/**
 * The baseline measured in the same run: a fixed integer loop and a fixed allocation loop (1M small
 * objects, the kind of work an assignment result is made of). The machine is shared; when these take
 * longer than in another run, every figure of this run is inflated by about as much.
 */
function calibrate(): { loopMs: number; allocMs: number; faultMicros: number } {
  let started = performance.now();
  const a = new Int32Array(1 << 20);
  let sum = 0;
  for (let r = 0; r < 20; r++) for (let i = 0; i < a.length; i++) sum = (sum + (a[i] = (a[i] + i) | 0)) | 0;
  const loopMs = performance.now() - started;
  started = performance.now();
  const lists: { topic: string; partitions: number[] }[][] = [];
  for (let m = 0; m < 2000; m++) {
    const list = new Array<{ topic: string; partitions: number[] }>(500);
    for (let t = 0; t < 500; t++) list[t] = { topic: 't', partitions: [m + (sum & 0)] };
    lists.push(list);
  }
  const allocMs = performance.now() - started;
  return { loopMs, allocMs, faultMicros: pageFaultMicros() };
}

export const assignorsSection: BenchSection = {
  name: 'assignors',
  summary: "the four built-in assignors on the shapes Kafka's own assignors were timed on (libs/assignors/README.md)",
  usage: '[shape ...] [--runs N]',
  needsBuild: false,
  run: async (args) => assignorsBench(args),
};

function runsOf(args: string[]): number {
  const runsAt = args.indexOf('--runs');
  return runsAt >= 0 ? Math.max(1, Number(args[runsAt + 1])) : 5;
}

/** The child processes the section starts, one per shape (`--child`, `--cold`) and one to calibrate. */
function childMain(args: string[]): void {
  if (args.includes('--calibrate')) {
    process.stdout.write(JSON.stringify(calibrate()));
    return;
  }
  const childAt = args.indexOf('--child');
  const coldAt = args.indexOf('--cold');
  if (childAt < 0 && coldAt < 0) throw new Error('this file is a section of the runner: npm run bench -- assignors');
  const name = args[(childAt >= 0 ? childAt : coldAt) + 1];
  const shape = SHAPES.find((s) => s.name === name);
  if (!shape) throw new Error(`unknown shape ${name}`);
  const ownedAt = args.indexOf('--owned-out');
  const kafkaAt = args.indexOf('--kafka-dir');
  const measured =
    coldAt >= 0
      ? [measureCold(shape, args[coldAt + 2])]
      : measureShape(
          shape,
          runsOf(args),
          ownedAt >= 0 ? args[ownedAt + 1] : undefined,
          kafkaAt >= 0 ? args[kafkaAt + 1] : undefined,
        );
  process.stdout.write(JSON.stringify(measured));
}

function assignorsBench(args: string[]): void {
  const runsAt = args.indexOf('--runs');
  const runs = runsOf(args);
  const wanted = args.filter((arg, i) => !arg.startsWith('--') && (runsAt < 0 || i !== runsAt + 1));
  const ownedFile = join(tmpdir(), `assignors-bench-${process.pid}.json`);
  const unknown = wanted.filter((name) => !SHAPES.some((s) => s.name === name));
  if (unknown.length > 0)
    throw new Error(`unknown shape(s): ${unknown.join(', ')}; shapes: ${SHAPES.map((s) => s.name).join(', ')}`);
  const selected = wanted.length > 0 ? SHAPES.filter((s) => wanted.includes(s.name)) : SHAPES;
  console.log(
    `Assignor benchmark${process.env.BENCH_DIST ? ` of ${process.env.BENCH_DIST}` : ''}: median of ${runs} warm calls per shape (after one warm-up call, also shown); ` +
      `Kafka figures: its own Java classes timed on JDK 17, 2 vCPU, a warm JVM's second call (libs/assignors/README.md); ` +
      `sticky and coop: Kafka's classes timed on the same inputs in this run`,
  );
  const child = (extra: string[]) =>
    spawnSync(process.execPath, ['--expose-gc', '--max-old-space-size=8192', '--import', 'tsx', __filename, ...extra], {
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
      timeout: 10 * 60_000,
    });
  const calibration = child(['--calibrate']);
  if (calibration.status === 0) {
    const { loopMs, allocMs, faultMicros } = JSON.parse(calibration.stdout) as ReturnType<typeof calibrate>;
    console.log(
      `baseline measured in this run (fixed work; compare across runs, larger = busier machine): integer loop ${loopMs.toFixed(0)} ms, ` +
        `1M small objects ${allocMs.toFixed(0)} ms, fresh memory ${faultMicros.toFixed(1)} µs a 4 KiB page ` +
        `(times a call's page faults: what it costs a new process to grow); load average ${loadavg()
          .map((l) => l.toFixed(1))
          .join(' ')} on ${cpus().length} cores`,
    );
  }
  for (const shape of selected) {
    const kafkaDir = shape.kafkaClass ? mkdtempSync(join(tmpdir(), 'assignors-bench-kafka-')) : undefined;
    // The warm child writes the reassignment input for the cold one, and the inputs for Kafka's class.
    const run = child([
      '--child',
      shape.name,
      '--runs',
      String(runs),
      ...(shape.cold ? ['--owned-out', ownedFile] : []),
      ...(kafkaDir !== undefined ? ['--kafka-dir', kafkaDir] : []),
    ]);
    console.log(`\n${shape.name}: ${shape.description}`);
    const cold = run.status === 0 && shape.cold ? child(['--cold', shape.name, ownedFile]) : null;
    rmSync(ownedFile, { force: true });
    for (const result of cold === null ? [run] : [run, cold]) {
      if (result.status !== 0) {
        console.log(`  failed: ${(result.stderr || result.error?.message || '').split('\n').slice(0, 5).join(' | ')}`);
        process.exitCode = 1;
        continue;
      }
      const measurements = JSON.parse(result.stdout) as Measurement[];
      if (kafkaDir !== undefined && result === run) printWithKafka(shape, kafkaDir, measurements, runs);
      else for (const measurement of measurements) console.log(formatRow(measurement, shape));
    }
    if (kafkaDir !== undefined) rmSync(kafkaDir, { recursive: true, force: true });
  }
}

/**
 * Cohort's rows for a shape with Kafka's own class, each followed by that class's figures on the same
 * input in a fresh JVM of this run; without a JDK, the rows against the fixed figures, and why.
 */
function printWithKafka(shape: Shape, kafkaDir: string, measurements: Measurement[], runs: number): void {
  const calls = measurements.map((measurement) => measurement.call);
  const kafka = runKafkaClassicAssignor(shape.kafkaClass!, kafkaDir, calls, runs);
  if ('skipped' in kafka) {
    for (const measurement of measurements) console.log(formatRow(measurement, shape));
    console.log(`  Kafka's own class not timed in this run: ${kafka.skipped}`);
    return;
  }
  measurements.forEach((measurement, i) => {
    // Compared with Kafka timed here, not with the fixed figure (printed below as a reference).
    console.log(formatRow(measurement, { ...shape, kafka: {} }));
    const { lines, matched } = classicKafkaRows(
      measurement,
      assignmentsOf(classicCallFiles(kafkaDir, measurement.call).cohort),
      kafka.calls[i],
      {
        kafkaClass: shape.kafkaClass === 'sticky' ? 'StickyAssignor' : 'CooperativeStickyAssignor',
        java: kafka.java,
        firstCall: measurement.call === 'fresh' ? 'first call of the process' : 'first reassignment',
        runs,
        target: shape.target,
        reference: shape.kafka[measurement.call],
      },
    );
    for (const line of lines) console.log(line);
    if (!matched) process.exitCode = 1;
  });
}

if (require.main === module) childMain(process.argv.slice(2));
