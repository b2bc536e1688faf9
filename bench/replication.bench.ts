import { SimCluster } from '../test/sim/sim-cluster';
import { produce } from '@cohort/replication/testing';
import {
  APPEND_KEY,
  APPEND_LOADS,
  APPEND_VALUE,
  type AppendResult,
  measureMs,
  printAppendResults,
  type ReplicationSetup,
  SINGLE_NODE_REPLICATED,
  THREE_REPLICAS,
  THREE_REPLICAS_ALWAYS,
} from './harness/replicated-appends';
import type { BenchSection } from './harness/section';
import { elapsedMs, percentile } from './harness/stats';

/**
 * Section `replication`: replicated appends per second and commit latency (p50, p99) inside the
 * simulator, with 3 replicas, acks=all, min ISR 2, zero network delay and zero fsync time — so what is
 * measured is the CPU cost of the protocol (leader append, follower fetch round trips, HW, commit
 * waiters) in one process — beside the same appends on a single node (RF 1), as ratios measured in the
 * same run. Each node appends to the partitions it leads. Wall-clock time; the simulator adds one
 * event-loop turn per simulated event (setImmediate), which all setups pay alike.
 */
export const replicationSection: BenchSection = {
  name: 'replication',
  summary: "replicated appends in the simulator (the protocol's CPU alone): 3 replicas vs a single node",
  needsBuild: false,
  run: () => replicationInSimulator(),
};

const MEASURE_MS = measureMs(4_000);
const WARMUP_MS = 1_000;
const PARTITIONS = 6;
const SETUPS = [SINGLE_NODE_REPLICATED, THREE_REPLICAS, THREE_REPLICAS_ALWAYS];

async function measure(setup: ReplicationSetup, inFlightPerPartition: number): Promise<AppendResult> {
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
      await produce(
        leader.replicas,
        partition,
        [{ key: APPEND_KEY, value: APPEND_VALUE, timestamp: sim.clock.now() }],
        -1,
        30_000,
      );
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
  return { perSecond: completed / seconds, p50: percentile(latencies, 50), p99: percentile(latencies, 99), failed: 0 };
}

async function replicationInSimulator(): Promise<void> {
  console.log(
    `Replicated appends in the simulator: zero network delay, zero fsync time, ${PARTITIONS} partitions, wall clock, ` +
      `${MEASURE_MS / 1000} s measured after ${WARMUP_MS / 1000} s of warm-up`,
  );
  // Setup after setup within each load, so that a change in the machine's load hits the setups alike.
  const results: AppendResult[][] = SETUPS.map(() => []);
  for (const load of APPEND_LOADS)
    for (const [s, setup] of SETUPS.entries()) results[s].push(await measure(setup, load));
  printAppendResults(SETUPS, results, 'partition');
}
