import { fork } from 'node:child_process';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import type { Socket } from 'socket.io-client';
import { GroupMember } from '../test/support/group-member';
import { connect, request } from '../test/support/socket-client';
import { CohortProcess } from './harness/cohort-process';
import { processCpuMs } from './harness/process-stats';
import { stopWorker } from './harness/stop-worker';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { percentile, perSecond, ms, ratio, table } from './harness/stats';

/**
 * Issue 2, benchmark 2: OffsetCommit throughput and latency from concurrent sockets, each a simple
 * consumer (generation -1) of its own group committing one partition in a closed loop: a request
 * leaves only when the previous answer arrived, so latency is what a committing consumer waits for.
 * The baseline is the same writes as HSETs to the local Redis, from the same harness.
 */

export interface LoadResult {
  requests: number;
  seconds: number;
  throughput: number;
  p50: number;
  p99: number;
  errors: number;
  /** Cores the server processes kept busy during the run (null: not measurable, e.g. Redis). */
  serverCores: number | null;
  /** Cores this benchmark process (the clients) kept busy during the run. */
  clientCores: number;
}

async function closedLoops(
  loops: number,
  durationMs: number,
  once: (loop: number, sequence: number) => Promise<boolean>,
  serverPids: (number | undefined)[] = [],
): Promise<LoadResult> {
  const latencies: number[] = [];
  let errors = 0;
  const serverCpu = () =>
    serverPids.reduce<number | null>((sum, pid) => (sum === null ? null : addOrNull(sum, processCpuMs(pid))), 0);
  const serverCpuBefore = serverCpu();
  const clientCpuBefore = process.cpuUsage();
  const started = process.hrtime.bigint();
  const deadline = Date.now() + durationMs;
  await Promise.all(
    Array.from({ length: loops }, async (_, loop) => {
      for (let sequence = 0; Date.now() < deadline; sequence++) {
        const sent = process.hrtime.bigint();
        const ok = await once(loop, sequence);
        latencies.push(Number(process.hrtime.bigint() - sent) / 1e6);
        if (!ok) errors++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  const serverCpuAfter = serverCpu();
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const serverCores =
    serverPids.length > 0 && serverCpuBefore !== null && serverCpuAfter !== null
      ? (serverCpuAfter - serverCpuBefore) / 1000 / seconds
      : null;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    seconds,
    throughput: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    errors,
    serverCores,
    clientCores: (clientCpu.user + clientCpu.system) / 1e6 / seconds,
  };
}

function addOrNull(sum: number, value: number | null): number | null {
  return value === null ? null : sum + value;
}

/** Loop i commits for group `bench-commit-<i>` on socket i, which is connected to that group's coordinator. */
export async function commitLoad(
  clients: Socket[],
  durationMs: number,
  servers: { readonly pid?: number }[],
): Promise<LoadResult> {
  const commit = async (loop: number, sequence: number) => {
    const response = await request<{ errorCode: number; topics: { partitions: { errorCode: number }[] }[] }>(
      clients[loop],
      'OffsetCommit',
      {
        groupId: `bench-commit-${loop}`,
        generationId: -1,
        memberId: '',
        topics: [{ name: 'commits', partitions: [{ partitionIndex: loop, committedOffset: sequence }] }],
      },
    );
    return response.errorCode === 0 && response.topics[0].partitions[0].errorCode === 0;
  };
  await closedLoops(clients.length, 500, commit); // warm-up: JIT, groups created, segments open
  return closedLoops(
    clients.length,
    durationMs,
    commit,
    servers.map((s) => s.pid),
  );
}

export async function cohortCommits(
  flushPolicy: 'always' | 'replicated',
  sockets: number,
  durationMs: number,
): Promise<LoadResult> {
  return embeddedCommits(1, flushPolicy, sockets, durationMs);
}

/**
 * The same load spread over `nodes` independent embedded nodes (socket i on node i mod `nodes`), each
 * its own process with its own log and nothing replicated. With 3, it is the cluster's load without
 * replication: what three node processes cost on this machine by themselves, so that the cluster's
 * CPU per commit can be split into that and what replication adds.
 */
export async function embeddedCommits(
  nodes: number,
  flushPolicy: 'always' | 'replicated',
  sockets: number,
  durationMs: number,
): Promise<LoadResult> {
  const servers: CohortProcess[] = [];
  const clients: Socket[] = [];
  try {
    servers.push(
      ...(await Promise.all(
        Array.from({ length: nodes }, () => CohortProcess.start({ LOG_FLUSH_POLICY: flushPolicy })),
      )),
    );
    await Promise.all(servers.map((node) => node.post('/v1/topics', { name: 'commits', partitions: sockets })));
    for (let i = 0; i < sockets; i++) clients.push(await connect(servers[i % nodes].url, { clientId: `bench-${i}` }));
    return await commitLoad(clients, durationMs, servers);
  } finally {
    clients.forEach((c) => c.disconnect());
    await Promise.all(servers.map((node) => node.dispose()));
  }
}

/**
 * Heartbeats from `sockets` members, each the only member of its own group (joined and synced first), in
 * a closed loop on one embedded node: the request path without a write, so the gap to OffsetCommit is
 * what the log costs and the gap to Redis is what the gateway and the coordinator cost.
 */
export async function cohortHeartbeats(sockets: number, durationMs: number): Promise<LoadResult> {
  const node = await CohortProcess.start({});
  const members: GroupMember[] = [];
  try {
    await node.post('/v1/topics', { name: 'commits', partitions: sockets });
    const joining = Array.from({ length: sockets }, async (_, i) => {
      const member = await GroupMember.connect(node.url, `bench-heartbeat-${i}`, {
        topics: ['commits'],
        clientId: `bench-${i}`,
      });
      members.push(member);
      const joined = await member.join();
      if (joined.errorCode !== 0) throw new Error(`JoinGroup failed: ${JSON.stringify(joined)}`);
      const synced = await member.sync(joined);
      if (synced.errorCode !== 0) throw new Error(`SyncGroup failed: ${JSON.stringify(synced)}`);
      return member;
    });
    const inOrder = await Promise.all(joining);
    const heartbeat = async (loop: number) => (await inOrder[loop].heartbeat()).errorCode === 0;
    await closedLoops(sockets, 500, heartbeat);
    return await closedLoops(sockets, durationMs, heartbeat, [node.pid]);
  } finally {
    members.forEach((m) => m.socket.disconnect());
    await node.dispose();
  }
}

/**
 * The same OffsetCommit load against a bare socket.io server that only acknowledges
 * (bench/bare-socketio-server.ts, its own process): what socket.io's standard path and loopback cost
 * by themselves, measured in the same run. A node can beat it, since its lean lane skips part of
 * socket.io's per-packet work. Server CPU is that process's.
 */
export async function bareSocketIo(sockets: number, durationMs: number): Promise<LoadResult> {
  const server = fork(join(__dirname, 'bare-socketio-server.ts'), [], {
    execArgv: ['--import', 'tsx'],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const clients: Socket[] = [];
  try {
    const port = await new Promise<number>((resolve, reject) => {
      server.once('message', (message: { port: number }) => resolve(message.port));
      server.once('exit', (code) => reject(new Error(`the bare socket.io server exited with ${code}`)));
    });
    for (let i = 0; i < sockets; i++) clients.push(await connect(`http://127.0.0.1:${port}`));
    return await commitLoad(clients, durationMs, [server]);
  } finally {
    clients.forEach((c) => c.disconnect());
    await stopWorker(server);
  }
}

/**
 * The same load on a cluster of `size` nodes in cluster mode (RF 3, min ISR 2, LOG_FLUSH_POLICY
 * replicated: a commit is acknowledged once the in-sync replicas have it). Each socket talks to its
 * group's coordinator, found with FindCoordinator as a client would.
 */
export async function clusterCommits(size: number, sockets: number, durationMs: number): Promise<LoadResult> {
  const clusterId = `cohort-bench-${process.pid}-${Date.now()}`;
  const env = (nodeId: number) => ({
    CLUSTER_MODE: 'redis',
    CLUSTER_ID: clusterId,
    NODE_ID: String(nodeId),
    REPLICATION_PORT: '0',
  });
  const nodes: CohortProcess[] = [];
  const clients: Socket[] = [];
  try {
    nodes.push(...(await Promise.all(Array.from({ length: size }, (_, id) => CohortProcess.start(env(id))))));
    await waitForLeaders(nodes[0].url, 120_000);
    await nodes[0].post('/v1/topics', { name: 'commits', partitions: sockets });
    const probe = await connect(nodes[0].url);
    for (let i = 0; i < sockets; i++) {
      const coordinator = await request<{ errorCode: number; url: string }>(probe, 'FindCoordinator', {
        key: `bench-commit-${i}`,
      });
      if (coordinator.errorCode !== 0) throw new Error(`FindCoordinator failed: ${JSON.stringify(coordinator)}`);
      clients.push(await connect(coordinator.url, { clientId: `bench-${i}` }));
    }
    probe.disconnect();
    return await commitLoad(clients, durationMs, nodes);
  } finally {
    clients.forEach((c) => c.disconnect());
    await Promise.all(nodes.map((node) => node.dispose()));
    await deleteKeys(`${clusterId}*`);
  }
}

/** Every offsets partition has a leader (the controller has finished its first elections). */
async function waitForLeaders(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const partitions = (await fetch(`${url}/v1/cluster/partitions`).then(
      (r) => r.json(),
      () => [],
    )) as { leader: number | null }[];
    if (partitions.length > 0 && partitions.every((p) => p.leader !== null)) return;
    if (Date.now() > deadline) throw new Error('the cluster elected no leader for some partitions in time');
    await new Promise((done) => setTimeout(done, 100));
  }
}

async function deleteKeys(pattern: string): Promise<void> {
  const redis = new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 });
  try {
    await redis.connect();
    const keys = await redis.keys(pattern);
    if (keys.length > 0) await redis.del(...keys);
  } finally {
    redis.disconnect();
  }
}

export async function redisHsets(connections: number, durationMs: number): Promise<LoadResult> {
  const prefix = `cohort-bench:${process.pid}:${Date.now()}:`;
  const clients = Array.from(
    { length: connections },
    () => new Redis({ host: '127.0.0.1', port: 6379, lazyConnect: true, maxRetriesPerRequest: 1 }),
  );
  try {
    await Promise.all(clients.map((c) => c.connect()));
    const hset = async (loop: number, sequence: number) =>
      (await clients[loop].hset(`${prefix}bench-commit-${loop}`, `commits:${loop}`, String(sequence))) >= 0;
    await closedLoops(connections, 500, hset);
    return await closedLoops(connections, durationMs, hset);
  } finally {
    const keys = await clients[0].keys(`${prefix}*`).catch(() => [] as string[]);
    if (keys.length > 0) await clients[0].del(...keys);
    clients.forEach((c) => c.disconnect());
  }
}

/** Section `commits`: OffsetCommit throughput and latency from 100 sockets, against Redis HSET and a bare socket.io server. */
export const commitsSection: BenchSection = {
  name: 'commits',
  summary:
    'OffsetCommit from 100 sockets: embedded (fsync / replicated), a 3-node cluster, Heartbeats; vs Redis HSET and bare socket.io',
  needsBuild: true,
  run: () => commitThroughput(),
};

async function commitThroughput(): Promise<void> {
  const sockets = scaled(100, 2);
  const seconds = 5;
  console.log(
    `OffsetCommit from ${sockets} concurrent sockets, closed loop, ${seconds} s each (baseline: the same writes as Redis HSET via ioredis)`,
  );
  console.log(
    '   (embedded: one node; LOG_FLUSH_POLICY=replicated there means the write reached the OS, not the disk)',
  );
  const always = await attempt('LOG_FLUSH_POLICY=always', () => cohortCommits('always', sockets, seconds * 1000));
  const replicated = await attempt('LOG_FLUSH_POLICY=replicated', () =>
    cohortCommits('replicated', sockets, seconds * 1000),
  );
  const cluster = await attempt('3-node cluster', () => clusterCommits(3, sockets, seconds * 1000));
  const unreplicated = await attempt('3 embedded nodes', () =>
    embeddedCommits(3, 'replicated', sockets, seconds * 1000),
  );
  const heartbeats = await attempt('Heartbeat', () => cohortHeartbeats(sockets, seconds * 1000));
  const bare = await attempt('bare socket.io server', () => bareSocketIo(sockets, seconds * 1000));
  const redis = await attempt('Redis HSET', () => redisHsets(sockets, seconds * 1000));
  const row = (system: string, r: LoadResult | null): string[] =>
    r
      ? [
          system,
          perSecond(r.throughput),
          ms(r.p50),
          ms(r.p99),
          String(r.errors),
          ratio(r.throughput, redis?.throughput ?? Number.NaN),
          ratio(r.p99, redis?.p99 ?? Number.NaN),
          cores(r),
        ]
      : [system, 'n/a', 'n/a', 'n/a', 'n/a', 'n/a', 'n/a', 'n/a'];
  table(
    ['system', 'commits', 'p50', 'p99', 'errors', 'throughput vs Redis', 'p99 vs Redis', 'CPU: server / clients'],
    [
      row('Cohort embedded, LOG_FLUSH_POLICY=always (fsync)', always),
      row('Cohort embedded, LOG_FLUSH_POLICY=replicated', replicated),
      row('Cohort 3-node cluster (RF 3, min ISR 2, replicated)', cluster),
      row('Cohort 3 embedded nodes, nothing replicated (the cluster without replication)', unreplicated),
      row('Cohort embedded, Heartbeat (no write; target >= 0.4x)', heartbeats),
      row('bare socket.io server acknowledging the same OffsetCommits (the transport alone)', bare),
      row('Redis HSET (ioredis)', redis),
    ],
  );
  // Against socket.io alone: how much of the gap to Redis is socket.io and loopback, and how much is Cohort.
  const vsBare = (r: LoadResult | null) => ratio(r?.throughput ?? Number.NaN, bare?.throughput ?? Number.NaN);
  console.log(
    `   throughput vs the bare socket.io server: Heartbeat ${vsBare(heartbeats)}, OffsetCommit ${vsBare(replicated)} (replicated), ${vsBare(always)} (always)`,
  );
  // Summed over the three processes, per acknowledged commit (target <= 2x the embedded node's).
  const perCommit = (r: LoadResult | null) => (r?.serverCores == null ? Number.NaN : r.serverCores / r.throughput);
  console.log(
    `   cluster CPU per acknowledged commit vs embedded (replicated): ${ratio(perCommit(cluster), perCommit(replicated))} (target <= 2x)`,
  );
  // Three processes on this machine cost more per commit than one even with nothing replicated; the split says how much of the ratio is replication.
  console.log(
    `   of which three processes alone (3 unreplicated nodes vs 1): ${ratio(perCommit(unreplicated), perCommit(replicated))}; replication (cluster vs 3 unreplicated nodes): ${ratio(perCommit(cluster), perCommit(unreplicated))}`,
  );
  if (cluster?.serverCores != null)
    console.log(
      `   cores busy during the cluster run, nodes + clients: ${(cluster.serverCores + cluster.clientCores).toFixed(2)} of ${cpus().length}`,
    );
}

/** Cores busy during the run: a server near 1.0 per node is bound by its event loop, not waiting. */
function cores(r: LoadResult): string {
  const server =
    r.serverCores === null
      ? 'n/a'
      : `${r.serverCores.toFixed(2)} (${((r.serverCores * 1000) / r.throughput).toFixed(2)} ms/commit)`;
  return `${server} / ${r.clientCores.toFixed(2)}`;
}
