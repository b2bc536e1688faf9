import { SimCluster } from '../test/sim/sim-cluster';
import { elapsedMs, percentile, perSecond, ratio, table } from './harness/stats';
import { produce } from '@cohort/replication/testing';

/** Latencies here are often microseconds. */
function us(valueMs: number): string {
  return Number.isFinite(valueMs) ? `${Math.round(valueMs * 1000).toLocaleString('en-US')} µs` : 'n/a';
}

/**
 * The replication benchmark inside the simulator (`npm run bench:replication`): replicated appends per
 * second and commit latency (p50, p99) with 3 replicas, acks=all, min ISR 2, with zero network delay
 * and zero fsync time — so what is measured is the CPU cost of the protocol (leader append, follower
 * fetch round trips, HW, commit waiters) in one process — beside the same appends on a single node
 * (RF 1), as ratios measured in the same run. Each node appends to the partitions it leads. Records are
 * offset-commit sized (48 B key, 96 B value). Wall-clock time; the simulator adds one event-loop turn
 * per simulated event (setImmediate), which all setups pay alike.
 */
const MEASURE_MS = Number(process.env.BENCH_MEASURE_MS ?? 4_000);
const WARMUP_MS = 1_000;
const LOADS = [1, Number(process.env.BENCH_CONCURRENCY ?? 32)];
const PARTITIONS = 6;

interface Setup {
  name: string;
  nodes: number;
  replicationFactor: number;
  minInsyncReplicas: number;
  logFlushPolicy: 'always' | 'replicated';
}

const SETUPS: Setup[] = [
  { name: 'single node, RF 1', nodes: 1, replicationFactor: 1, minInsyncReplicas: 1, logFlushPolicy: 'replicated' },
  {
    name: '3 replicas, acks=all, min ISR 2',
    nodes: 3,
    replicationFactor: 3,
    minInsyncReplicas: 2,
    logFlushPolicy: 'replicated',
  },
  {
    name: '3 replicas, min ISR 2, flush always',
    nodes: 3,
    replicationFactor: 3,
    minInsyncReplicas: 2,
    logFlushPolicy: 'always',
  },
];

interface Result {
  perSecond: number;
  p50: number;
  p99: number;
}

const KEY = Buffer.alloc(48, 'k');
const VALUE = Buffer.alloc(96, 'v');

async function measure(setup: Setup, inFlightPerPartition: number): Promise<Result> {
  const sim = new SimCluster({
    seed: 1,
    nodes: setup.nodes,
    config: {
      numPartitions: PARTITIONS,
      replicationFactor: setup.replicationFactor,
      minInsyncReplicas: setup.minInsyncReplicas,
      logFlushPolicy: setup.logFlushPolicy,
      replicaLagTimeMaxMs: 30_000,
      replicaFetchMaxRecords: 1_000,
      logCleanerIntervalMs: 3_600_000,
    },
    network: { minDelayMs: 0, maxDelayMs: 0 },
    fsyncLatencyMs: 0,
  });
  sim.clock.maxStepsPerInstant = Number.POSITIVE_INFINITY; // zero delays: virtual time never moves
  await sim.start();
  let measuring = false;
  let stopped = false;
  let completed = 0;
  const latencies: number[] = [];
  const loop = async (partition: number): Promise<void> => {
    while (!stopped) {
      // Each append arrives as its own event, as a client request would (and so the loop yields).
      await new Promise<void>((resolve) => sim.clock.schedule(0, resolve));
      const leader = sim.leaderOf(partition);
      if (!leader) throw new Error(`partition ${partition} lost its leader during the benchmark`);
      const started = process.hrtime.bigint();
      await produce(leader.replicas, partition, [{ key: KEY, value: VALUE, timestamp: sim.clock.now() }], -1, 30_000);
      if (measuring) {
        latencies.push(elapsedMs(started));
        completed++;
      }
    }
  };
  for (let p = 0; p < PARTITIONS; p++) for (let i = 0; i < inFlightPerPartition; i++) void loop(p);
  const runFor = async (wallMs: number) => {
    const until = Date.now() + wallMs;
    await sim.clock.runUntil(() => Date.now() >= until, Number.MAX_SAFE_INTEGER / 2);
  };
  await runFor(WARMUP_MS);
  measuring = true;
  const start = process.hrtime.bigint();
  await runFor(MEASURE_MS);
  const seconds = elapsedMs(start) / 1000;
  measuring = false;
  stopped = true;
  await sim.clock.run(1_000);
  latencies.sort((a, b) => a - b);
  return { perSecond: completed / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

async function main(): Promise<void> {
  console.log(
    `Replicated appends in the simulator: zero network delay, zero fsync time, ${PARTITIONS} partitions, wall clock`,
  );
  for (const load of LOADS) {
    const results: Result[] = [];
    for (const setup of SETUPS) results.push(await measure(setup, load));
    console.log(`\n${load} append(s) in flight per partition`);
    table(
      ['setup', 'appends/s', 'vs single', 'p50', 'p99', 'p50 vs single'],
      SETUPS.map((s, i) => [
        s.name,
        perSecond(results[i].perSecond),
        ratio(results[i].perSecond, results[0].perSecond),
        us(results[i].p50),
        us(results[i].p99),
        ratio(results[i].p50, results[0].p50),
      ]),
    );
  }
}

main().catch((e) => {
  console.error(e);
  process.exitCode = 1;
});
