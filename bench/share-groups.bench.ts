import { OwnRedisServer } from '@cohort/replication/testing';
import { CohortProcess } from './harness/cohort-process';
import { countersSince, countersTotal, type NodeCounters, nodeCounters } from './harness/node-counters';
import { interleavedRounds, medianRatio, middle } from './harness/interleaved-rounds';
import { processCpuMs } from './harness/process-stats';
import { RedisStreamsQueue } from './harness/redis-streams-queue';
import { scaled } from './harness/scale';
import { sharePartitionBytesPerOffset } from './harness/share-partition-memory';
import { attempt, type BenchSection } from './harness/section';
import { ShareWorker } from './harness/share-worker';
import { largeAssignment } from './share-large-assignment';
import { shareForming } from './share-forming';
import { median, ms, perSecond, ratio, table, times } from './harness/stats';

/**
 * Share groups (KIP-932) as a work queue, each figure beside Redis Streams used the same way in the
 * same run (bench/harness/redis-streams-queue.ts): workers in closed loops leasing one offset, then a
 * hundred, and acknowledging them; how soon work a worker dropped is redelivered; and what an offset
 * in flight costs the server. Cohort's workers speak the protocol on raw sockets (bench/harness/share-worker.ts).
 */
export const shareGroupsSection: BenchSection = {
  name: 'share-groups',
  summary:
    'share groups vs Redis Streams in one run: 20 workers lease 1 + ack (target ≥ 0.5×), 100 per lease (≥ 2×), redelivery after lock expiry and disconnect, CPU per ack and memory per in-flight offset (2,000 in flight, 200 workers); the first acquires of a member assigned 500,000 partitions; 1,000 workers joining one group at once',
  usage:
    '[seconds measured per side of a throughput run, in 6 alternating rounds (default 5)] [lease-1: only the closed loops of one offset per lease | large-assignment: only the member assigned 500,000 partitions | forming [workers W (default 1,000)]: only W workers joining one group at once]',
  needsBuild: true,
  run: (args) => shareGroups(args),
};

const TOPIC = 'jobs';
/** The lock and the disconnect grace of the redelivery node; Redis's XAUTOCLAIM min-idle is the lock's. */
const LOCK_MS = 1000;
const GRACE_MS = 500;
const CLAIM_POLL_MS = 50;
/** How long each side of a throughput run (either Cohort node, Redis) runs its loop unmeasured first. */
const WARM_UP_MS = 5000;
const NODE_ENV = {
  GROUP_SHARE_AUTO_OFFSET_RESET: 'earliest',
  // Closed loops send thousands of events a second per connection: measure the queue, not the throttle.
  RATE_LIMIT_SOCKET_EVENTS_PER_SECOND: '0',
  MAX_CONNECTIONS_PER_IP: '20000',
};

async function shareGroups(args: string[]): Promise<void> {
  const seconds = args[0] === undefined ? 5 : Number(args[0]);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 60)
    throw new Error(`seconds must be in (0, 60], not "${args[0]}"`);
  const durationMs = seconds * 1000;
  // The lease-1 loops alone (about a minute instead of four), or the large assignment alone: for an A/B.
  const only = args[1];
  if (only !== undefined && only !== 'lease-1' && only !== 'large-assignment' && only !== 'forming')
    throw new Error(`the second argument may only be lease-1, large-assignment or forming, not "${only}"`);
  if (only === 'large-assignment') return void (await attempt('large assignment', () => runLargeAssignment()));
  if (only === 'forming') return void (await attempt('forming', () => shareForming(args[2], NODE_ENV)));
  const workers = scaled(20, 2);
  const node = await CohortProcess.start(NODE_ENV);
  // The same loops on a node that does not fsync each write (Redis, by default, does not either).
  const unsynced = await CohortProcess.start({ ...NODE_ENV, LOG_FLUSH_POLICY: 'replicated' });
  // And the same Redis loops on a Redis that fsyncs before it answers, as the first node does.
  const durable = await OwnRedisServer.create(true);
  try {
    await durable.start();
    console.log(
      `one embedded node (LOG_FLUSH_POLICY=always, and a second one with replicated: no fsync per write), one partition per group; Redis Streams on 127.0.0.1:6379 (no fsync, Redis's default), and on a Redis of the bench's own with appendonly yes, appendfsync always (an fsync before each turn's replies, as the first node), one stream and one consumer group; ${workers} workers each; each side warmed up for ${WARM_UP_MS / 1000} s, then its ${seconds} s measured in ${ROUNDS} rounds of ${(durationMs / ROUNDS / 1000).toFixed(2)} s, the four sides taking turns in each round (forward, then back), each round after ${LEAD_IN_MS / 1000} s unmeasured; a figure is the median of a side's rounds, a ratio the median of the per-round ratios (sides of one round ran seconds apart, so a slow spell of the machine slows both)`,
    );
    const rows: string[][] = [];
    const loops = [
      ['lease 1, ack 1', 1, 0.5],
      ['lease 100, ack the range', 100, 2],
    ] as const;
    for (const [label, batch, target] of only ? loops.slice(0, 1) : loops) {
      const sides = { node, unsynced, durable: durable.url };
      const row = await attempt(label, () => throughput(sides, label, workers, batch, durationMs));
      if (row)
        rows.push([
          label,
          perSecond(row.cohort),
          perSecond(row.unsynced),
          perSecond(row.redis),
          times(row.ratio),
          times(row.unsyncedRatio),
          `≥ ${target}x`,
          perSecond(row.durableRedis),
          times(row.durableRatio),
        ]);
    }
    if (rows.length > 0)
      table(
        [
          'closed loops',
          'Cohort acked',
          'no fsync',
          'Redis acked',
          'ratio',
          'no fsync',
          'target',
          'Redis fsync',
          'fsync ratio',
        ],
        rows,
      );
  } finally {
    await node.dispose();
    await unsynced.dispose();
    await durable.dispose();
  }
  if (only) return;
  await attempt('redelivery', () => redelivery(scaled(10, 3)));
  await attempt('2,000 in flight under 200 workers', () => inFlight(scaled(200, 10), durationMs));
  await attempt('large assignment', () => runLargeAssignment());
  await attempt('forming', () => shareForming(undefined, NODE_ENV));
}

/** A member assigned 500,000 partitions (share-large-assignment.ts). */
function runLargeAssignment(): Promise<void> {
  return largeAssignment(scaled(500_000, 10_000), NODE_ENV);
}

async function createTopic(node: CohortProcess, name: string, end: number): Promise<void> {
  await node.post('/v1/topics', { name, partitions: 1 });
  await reportEnd(node, name, end);
}

function reportEnd(node: CohortProcess, name: string, endOffset: number): Promise<unknown> {
  return node.post(`/v1/topics/${name}/end-offsets`, { partitions: [{ partition: 0, endOffset }] }, 'PUT');
}

/** Workers lease `batch` offsets and acknowledge them in a loop: offsets acknowledged per second. */
async function cohortDrain(
  workers: ShareWorker[],
  batch: number,
  durationMs: number,
): Promise<{ acked: number; perSecond: number }> {
  let acked = 0;
  const started = process.hrtime.bigint();
  const deadline = Date.now() + durationMs;
  await Promise.all(
    workers.map(async (worker) => {
      while (Date.now() < deadline) {
        const leases = await worker.acquire(batch, 100);
        if (leases.length === 0) continue;
        const done = await worker.acknowledge(leases); // not `acked += await`: loops run side by side
        acked += done;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { acked, perSecond: acked / seconds };
}

/**
 * A run's result and this bench process's CPU over it, in cores: near 1, the figure would be the
 * client's, not the server's (printed so a reader can tell).
 */
async function withClientCpu<T>(run: () => Promise<T>): Promise<T & { clientCores: number }> {
  const cpu = process.cpuUsage();
  const started = process.hrtime.bigint();
  const result = await run();
  const { user, system } = process.cpuUsage(cpu);
  return { ...result, clientCores: (user + system) / (Number(process.hrtime.bigint() - started) / 1000) };
}

const SHARE_APIS = ['ShareAcquire', 'ShareAcknowledge'];

/** A run's result with what `node` did meanwhile: its CPU, its journal flushes and the share requests it answered. */
async function onNode<T>(node: CohortProcess, run: () => Promise<T>): Promise<T & { node: NodeCounters }> {
  const before = await nodeCounters(node, SHARE_APIS);
  const result = await run();
  return { ...result, node: countersSince(before, await nodeCounters(node, SHARE_APIS)) };
}

/**
 * The node's CPU per acknowledged offset, split between its event loop and its other threads (libuv's
 * pool runs the fdatasyncs, V8's helpers the garbage collection), user and system apart, and (with
 * fsync) its journal flushes per share request.
 */
function nodeCost(run: { acked: number; node: NodeCounters }, flushes: boolean): string {
  const perAck = (ms: number) => ((ms * 1000) / run.acked).toFixed(1);
  const t = run.node.threads;
  const cpu = `${perAck(run.node.cpuMs)} µs of node CPU per ack (event loop ${perAck(t.loopUserMs)} user + ${perAck(t.loopSystemMs)} system, other threads ${perAck(t.otherUserMs)} + ${perAck(t.otherSystemMs)})`;
  return flushes ? `${cpu}, ${(run.node.flushes / run.node.requests).toFixed(3)} flushes per request` : cpu;
}

/** The two Cohort nodes of the throughput runs, and the URL of the Redis that fsyncs. */
interface ThroughputSides {
  node: CohortProcess;
  unsynced: CohortProcess;
  durable: string;
}

/**
 * Rounds of each side in a throughput run, which share its measured seconds: even, so the order's
 * going forward and back (bench/harness/interleaved-rounds.ts) gives every side every place equally.
 */
const ROUNDS = 6;
/** Each side's loops run unmeasured this long before each of its rounds: it sat idle while the others ran. */
const LEAD_IN_MS = 250;

/** A throughput side's round: its figure, and this bench process's CPU meanwhile. */
type SideRun = { acked: number; perSecond: number; clientCores: number; node?: NodeCounters };

async function throughput(
  { node, unsynced, durable }: ThroughputSides,
  label: string,
  count: number,
  batch: number,
  durationMs: number,
) {
  // Enough work that neither side runs dry: Redis is filled up front (and again between rounds when a
  // round could drain it), Cohort's end is only a number.
  const messages = scaled(batch === 1 ? 200_000 : 1_000_000, 10_000);
  const topic = `${TOPIC}-${batch}`;
  await createTopic(node, topic, 1_000_000_000);
  await createTopic(unsynced, topic, 1_000_000_000);
  const join = (on: CohortProcess) =>
    Promise.all(Array.from({ length: count }, () => ShareWorker.join(on.url, `queue-${batch}`, [topic])));
  const workers = await join(node);
  const others = await join(unsynced);
  const redis = await RedisStreamsQueue.filled(`throughput-${batch}`, messages);
  const durableRedis = await RedisStreamsQueue.filled(`throughput-${batch}`, messages, durable);
  const plan = { warmUpMs: WARM_UP_MS, rounds: ROUNDS, roundMs: durationMs / ROUNDS, leadInMs: LEAD_IN_MS };
  const cohortSide = (on: CohortProcess, loops: ShareWorker[]) => ({
    run: (ms: number) => onNode(on, () => withClientCpu(() => cohortDrain(loops, batch, ms))),
  });
  const redisSide = (queue: RedisStreamsQueue) => {
    let fastest = 0; // entries per second: twice what the next lead-in and round could read is kept unread
    return {
      prepare: () => queue.refillBelow((2 * fastest * (plan.leadInMs + plan.roundMs)) / 1000, messages),
      run: async (ms: number): Promise<SideRun> => {
        const run = await withClientCpu(() => queue.drain(batch, ms));
        fastest = Math.max(fastest, run.perSecond);
        return run;
      },
    };
  };
  try {
    await redis.connect(count);
    await durableRedis.connect(count);
    // Every side warms up for WARM_UP_MS first: the share partition is created, and V8 has compiled the
    // hot path (after half a second it was still compiling on another thread for over a second of the
    // five measured), so the figures are a running node's. Then the rounds, Redis beside Cohort.
    const [baseline, cohort, durableBaseline, noFsync] = await interleavedRounds<SideRun>(
      [redisSide(redis), cohortSide(node, workers), redisSide(durableRedis), cohortSide(unsynced, others)],
      plan,
    );
    const acked = (runs: SideRun[]) => runs.reduce((sum, run) => sum + run.acked, 0);
    const cores = (runs: SideRun[]) =>
      `${((100 * runs.reduce((sum, run) => sum + run.clientCores, 0)) / runs.length).toFixed(0)}%`;
    const rates = (runs: SideRun[]) => runs.map((run) => run.perSecond);
    const nodeRun = (runs: SideRun[]) => ({
      acked: acked(runs),
      node: countersTotal(runs.flatMap((run) => (run.node ? [run.node] : []))),
    });
    console.log(
      `  ${label}: Cohort ${acked(cohort)} offsets acknowledged (${acked(noFsync)} without fsync), Redis ${acked(baseline)} entries acknowledged (${acked(durableBaseline)} with appendfsync always); this bench process at ${cores(cohort)} of a core (${cores(noFsync)}), ${cores(baseline)} for Redis`,
    );
    console.log(`    node: ${nodeCost(nodeRun(cohort), true)}; without fsync ${nodeCost(nodeRun(noFsync), false)}`);
    const roundRates = (runs: SideRun[]) => rates(runs).map(perSecond).join(' ');
    console.log(
      `    rounds, acked: Redis ${roundRates(baseline)}; Cohort ${roundRates(cohort)}; Redis fsync ${roundRates(durableBaseline)}; Cohort no fsync ${roundRates(noFsync)}`,
    );
    const ratios = (over: SideRun[], under: SideRun[]) =>
      rates(over)
        .map((rate, i) => ratio(rate, under[i].perSecond))
        .join(' ');
    console.log(
      `    per-round ratios: Cohort/Redis ${ratios(cohort, baseline)}; no fsync/Redis ${ratios(noFsync, baseline)}; Cohort/Redis fsync ${ratios(cohort, durableBaseline)}`,
    );
    return {
      cohort: middle(rates(cohort)),
      unsynced: middle(rates(noFsync)),
      redis: middle(rates(baseline)),
      durableRedis: middle(rates(durableBaseline)),
      ratio: medianRatio(rates(cohort), rates(baseline)),
      unsyncedRatio: medianRatio(rates(noFsync), rates(baseline)),
      durableRatio: medianRatio(rates(cohort), rates(durableBaseline)),
    };
  } finally {
    await Promise.all([...workers, ...others].map((w) => w.leave()));
    await redis.dispose();
    await durableRedis.dispose();
  }
}

/**
 * How long after a worker took one job and went silent (lock expiry) or dropped its connection
 * (disconnect) another worker, waiting in a long-polled ShareAcquire, has it: `trials` times each.
 */
async function redelivery(trials: number): Promise<void> {
  const node = await CohortProcess.start({
    ...NODE_ENV,
    GROUP_SHARE_RECORD_LOCK_DURATION_MS: String(LOCK_MS),
    GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS: String(LOCK_MS),
    MEMBER_DISCONNECT_GRACE_MS: String(GRACE_MS),
  });
  const redis = await RedisStreamsQueue.filled('redelivery', 2 * trials);
  try {
    await createTopic(node, TOPIC, 0);
    await redis.connect(2);
    const rescuer = await ShareWorker.join(node.url, 'redelivery', [TOPIC]);
    let end = 0;
    const once = async (how: 'expiry' | 'disconnect'): Promise<number> => {
      const silent = await ShareWorker.join(node.url, 'redelivery', [TOPIC]);
      await reportEnd(node, TOPIC, ++end);
      const [taken] = await silent.acquire(1, 5000);
      const at = Date.now();
      if (!taken) throw new Error('the silent worker got nothing to lease');
      if (how === 'disconnect') silent.kill();
      const again = await rescuer.acquire(1, 10_000);
      const waited = Date.now() - at;
      if (again[0]?.firstOffset !== taken.firstOffset || again[0].deliveryCount !== 2)
        throw new Error(
          `expected offset ${taken.firstOffset} again with delivery count 2, got ${JSON.stringify(again)}`,
        );
      await rescuer.acknowledge(again);
      if (how === 'expiry') await silent.leave();
      return waited;
    };
    const rows: string[][] = [];
    for (const how of ['expiry', 'disconnect'] as const) {
      const cohort: number[] = [];
      const baseline: number[] = [];
      for (let i = 0; i < trials; i++) {
        cohort.push(await once(how));
        baseline.push(await redis.redelivery(LOCK_MS, CLAIM_POLL_MS));
      }
      const label = how === 'expiry' ? `lock expiry (lock ${LOCK_MS} ms)` : `disconnect (grace ${GRACE_MS} ms)`;
      rows.push([label, ms(median(cohort)), ms(Math.max(...cohort)), ms(median(baseline)), ms(Math.max(...baseline))]);
    }
    console.log(
      `  redelivery to a worker waiting for work, ${trials} trials each; Redis: XAUTOCLAIM min-idle ${LOCK_MS} ms polled every ${CLAIM_POLL_MS} ms (it cannot see a disconnect, so both rows are its idle time)`,
    );
    table(['redelivery after', 'Cohort median', 'Cohort worst', 'Redis median', 'Redis worst'], rows);
    await rescuer.leave();
  } finally {
    await redis.dispose();
    await node.dispose();
  }
}

/**
 * 2,000 offsets in flight on one partition under `count` workers holding 10 each, acquiring and
 * acknowledging in closed loops: the node's CPU per acknowledged offset (from /proc) beside Redis's (INFO
 * cpu), and the memory an offset in flight takes — the share partition's state measured in this process
 * with a collected heap, beside the stream's MEMORY USAGE growth with 2,000 entries pending.
 */
async function inFlight(count: number, durationMs: number): Promise<void> {
  const perWorker = Math.ceil(2000 / count);
  const node = await CohortProcess.start(NODE_ENV);
  const redis = await RedisStreamsQueue.filled('in-flight', scaled(1_000_000, 20_000));
  try {
    await createTopic(node, TOPIC, 1_000_000_000);
    const workers = await Promise.all(
      Array.from({ length: count }, () => ShareWorker.join(node.url, 'in-flight', [TOPIC])),
    );
    await redis.connect(count);
    await cohortDrain(workers, perWorker, 500);
    const cpu0 = processCpuMs(node.pid);
    const cohort = await cohortDrain(workers, perWorker, durationMs);
    const cohortCpu = (processCpuMs(node.pid) ?? Number.NaN) - (cpu0 ?? Number.NaN);
    const redisCpu0 = await redis.cpuMs();
    const baseline = await redis.drain(perWorker, durationMs);
    const redisCpu = (await redis.cpuMs()) - redisCpu0;
    const before = await redis.memoryBytes();
    const pending = await redis.holdPending(perWorker);
    const redisPerEntry = ((await redis.memoryBytes()) - before) / pending;
    table(
      [`${count} workers × ${perWorker}`, 'Cohort', 'Redis', 'ratio'],
      [
        [
          'acked/s',
          perSecond(cohort.perSecond),
          perSecond(baseline.perSecond),
          ratio(cohort.perSecond, baseline.perSecond),
        ],
        [
          'server CPU per ack',
          `${((cohortCpu * 1000) / cohort.acked).toFixed(2)} µs`,
          `${((redisCpu * 1000) / baseline.acked).toFixed(2)} µs`,
          ratio(cohortCpu / cohort.acked, redisCpu / baseline.acked),
        ],
        [
          'memory per in-flight offset',
          `${sharePartitionBytesPerOffset(count, perWorker).toFixed(0)} B`,
          `${redisPerEntry.toFixed(0)} B`,
          '',
        ],
      ],
    );
    await Promise.all(workers.map((w) => w.leave()));
  } finally {
    await redis.dispose();
    await node.dispose();
  }
}
