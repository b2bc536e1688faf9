import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

import {
  APPEND_LOADS,
  type AppendResult,
  measureMs,
  printAppendResults,
  type ReplicationSetup,
  SINGLE_NODE_ALWAYS,
  SINGLE_NODE_REPLICATED,
  THREE_REPLICAS,
} from './harness/replicated-appends';
import type { BenchSection } from './harness/section';

/**
 * Section `replication-network`: replicated appends per second and commit latency (p50, p99) with 3
 * replicas, acks=all, min ISR 2, over the network transport between 3 processes on loopback (Redis for
 * metadata); beside them the same appends on a single node (RF 1, min ISR 1), as ratios. Each node
 * appends to the partitions it leads, so all three lead and follow at once, as a cluster does.
 * Figures are for this machine under whatever else runs on it; the ratios are what travel.
 */
export const replicationNetworkSection: BenchSection = {
  name: 'replication-network',
  summary: 'replicated appends between 3 processes over the network transport and Redis; vs a single node',
  usage: '[setup index, to run one setup alone (profiling: BENCH_PROFILE_DIR=dir)]',
  needsBuild: false,
  run: (args) => replicationOverNetwork(args),
};

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PARTITIONS = 50;
const WARMUP_MS = 2_000;
const MEASURE_MS = measureMs(5_000);
const ALL_SETUPS: ReplicationSetup[] = [
  SINGLE_NODE_ALWAYS,
  SINGLE_NODE_REPLICATED,
  { ...THREE_REPLICAS, name: '3 processes, RF 3, min ISR 2 (flush: replicated)' },
];

function ask<T>(child: ChildProcess, command: object, accept: (m: Record<string, unknown>) => boolean): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: Record<string, unknown>) => {
      if (!accept(m)) return;
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    if (Object.keys(command).length > 0) child.send(command);
  });
}

async function run(setup: ReplicationSetup): Promise<AppendResult[]> {
  const clusterId = `bench-replication-${process.pid}-${Date.now().toString(36)}`;
  const dirs = Array.from({ length: setup.nodes }, () => mkdtempSync(join(tmpdir(), 'cohort-bench-repl-')));
  const children = dirs.map((dataDir, nodeId) =>
    fork(
      require.resolve('./replication-network-node.ts'),
      [JSON.stringify({ nodeId, clusterId, redisUrl: REDIS_URL, dataDir, numPartitions: PARTITIONS, ...setup })],
      {
        execArgv: [
          '--import',
          'tsx',
          ...(process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []),
        ],
        stdio: 'inherit',
      },
    ),
  );
  try {
    await Promise.all(children.map((c) => ask(c, {}, (m) => m.ready === true)));
    for (let i = 0; ; i++) {
      // Ready when the metadata shows every ISR full and every leader has taken up its role locally.
      const statuses = await Promise.all(
        children.map((c) =>
          ask<{ ledHere: number; states: { leader: number; isr: number }[] }>(
            c,
            { type: 'status' },
            (m) => 'states' in m,
          ),
        ),
      );
      const { states } = statuses[0];
      const full =
        states.length === PARTITIONS && states.every((s) => s.leader >= 0 && s.isr === setup.replicationFactor);
      if (full && statuses.reduce((n, s) => n + s.ledHere, 0) === PARTITIONS) break;
      if (i > 600) throw new Error('cluster did not form');
      await new Promise((r) => setTimeout(r, 100));
    }
    const load = (durationMs: number, concurrency: number) =>
      Promise.all(
        children.map((c) =>
          ask<{ latenciesUs: number[]; failed: number }>(
            c,
            { type: 'load', durationMs, concurrency },
            (m) => 'latenciesUs' in m,
          ),
        ),
      );
    const measured: AppendResult[] = [];
    for (const concurrency of APPEND_LOADS) {
      await load(WARMUP_MS, concurrency);
      const results = await load(MEASURE_MS, concurrency);
      const latencies = results.flatMap((r) => r.latenciesUs).sort((a, b) => a - b);
      const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] / 1_000;
      measured.push({
        perSecond: latencies.length / (MEASURE_MS / 1_000),
        p50: at(0.5),
        p99: at(0.99),
        failed: results.reduce((n, r) => n + r.failed, 0),
      });
    }
    return measured;
  } finally {
    await Promise.all(children.map((c) => ask(c, { type: 'stop' }, (m) => m.stopped === true)));
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
    const admin = new Redis(REDIS_URL);
    const keys = await admin.keys(`${clusterId}:*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  }
}

async function replicationOverNetwork(args: string[]): Promise<void> {
  // One setup alone (for a profile); the ratios then compare it with itself.
  const setups = args[0] === undefined ? ALL_SETUPS : [ALL_SETUPS[Number(args[0])]];
  if (setups[0] === undefined) throw new Error(`setup index must be 0 to ${ALL_SETUPS.length - 1}, not "${args[0]}"`);
  console.log(
    `Replicated appends, acks=all, ${PARTITIONS} partitions, 1 record (144 B) per append, every node appending to the partitions it leads, ` +
      `${MEASURE_MS / 1000} s measured after ${WARMUP_MS / 1000} s warm-up`,
  );
  const results: AppendResult[][] = [];
  for (const setup of setups) results.push(await run(setup));
  printAppendResults(setups, results, 'node');
}
