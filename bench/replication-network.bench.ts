import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/**
 * The replication benchmark (`npx tsx bench/replication-network.bench.ts`): replicated appends
 * per second and commit latency (p50, p99) with 3 replicas, acks=all, min ISR 2, over the network
 * transport between 3 processes on loopback (Redis for metadata); beside them the same appends on a
 * single node (RF 1, min ISR 1), as ratios. Each node appends to the partitions it leads, so all three
 * lead and follow at once, as a cluster does. Records are offset-commit sized (48 B key, 96 B value).
 * Figures are for this machine under whatever else runs on it; the ratios are what travel.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PARTITIONS = 50;
/** Appends in flight per node: 1 shows the commit latency of the path itself, 32 the throughput under load. */
const LOADS = [1, Number(process.env.BENCH_CONCURRENCY ?? 32)];
const WARMUP_MS = 2_000;
const MEASURE_MS = Number(process.env.BENCH_MEASURE_MS ?? 5_000);

interface Setup {
  name: string;
  nodes: number;
  replicationFactor: number;
  minInsyncReplicas: number;
  logFlushPolicy: 'always' | 'replicated';
}

const ALL_SETUPS: Setup[] = [
  // The baseline: one node whose acknowledged appends are durable by fsync (group-committed), as embedded mode runs.
  {
    name: 'single node, RF 1 (flush: always)',
    nodes: 1,
    replicationFactor: 1,
    minInsyncReplicas: 1,
    logFlushPolicy: 'always',
  },
  // Acknowledged when appended in memory, before any fsync or copy: what the log alone costs.
  {
    name: 'single node, RF 1 (flush: replicated)',
    nodes: 1,
    replicationFactor: 1,
    minInsyncReplicas: 1,
    logFlushPolicy: 'replicated',
  },
  // Cluster mode's defaults: durable by being on two of three replicas (Kafka's way).
  {
    name: '3 processes, RF 3, min ISR 2 (flush: replicated)',
    nodes: 3,
    replicationFactor: 3,
    minInsyncReplicas: 2,
    logFlushPolicy: 'replicated',
  },
];
/** BENCH_ONLY=<index> runs one setup (profiling); the ratios then compare it with itself. */
const SETUPS = process.env.BENCH_ONLY ? [ALL_SETUPS[Number(process.env.BENCH_ONLY)]] : ALL_SETUPS;
const BASELINE = 0;

interface Result {
  perSecond: number;
  p50: number;
  p99: number;
  failed: number;
}

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

async function run(setup: Setup): Promise<Result[]> {
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
    const measured: Result[] = [];
    for (const concurrency of LOADS) {
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

async function main(): Promise<void> {
  const results: Result[][] = [];
  for (const setup of SETUPS) results.push(await run(setup));
  console.log(
    `replicated appends, acks=all, ${PARTITIONS} partitions, 1 record (144 B) per append, every node appending to the partitions it leads, ` +
      `${MEASURE_MS / 1000} s measured after ${WARMUP_MS / 1000} s warm-up; ratio = setup / ${SETUPS[BASELINE].name}`,
  );
  LOADS.forEach((concurrency, l) => {
    console.log(`\n${concurrency} append(s) in flight per node`);
    const base = results[BASELINE][l];
    SETUPS.forEach((setup, i) => {
      const r = results[i][l];
      console.log(
        `  ${setup.name.padEnd(50)} ${r.perSecond.toFixed(0).padStart(7)} appends/s (${(r.perSecond / base.perSecond).toFixed(2)}x)` +
          `  p50 ${r.p50.toFixed(2).padStart(7)} ms (${(r.p50 / base.p50).toFixed(2)}x)  p99 ${r.p99.toFixed(2).padStart(7)} ms (${(r.p99 / base.p99).toFixed(2)}x)` +
          (r.failed > 0 ? `  ${r.failed} failed` : ''),
      );
    });
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
