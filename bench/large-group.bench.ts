import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import type { GroupMembersCommand, GroupMembersStatus } from './group-members-worker';
import { BenchMember, type BenchMemberOptions, type MemberStats, noStats } from './harness/bench-member';
import { CohortProcess } from './harness/cohort-process';
import { processCpuMs, processRssBytes } from './harness/process-stats';
import { scaled } from './harness/scale';
import { attempt, type BenchSection } from './harness/section';
import { elapsedMs, ms, processes, ratio, table } from './harness/stats';
import { stopWorker } from './harness/stop-worker';
import { statsLine, sumStats, summarizeReasons } from './large-group-summary';
import { hasAssignor } from './rebalance.bench';

export { statsLine } from './large-group-summary';

/**
 * Issue 12 item 3: one group of 10,000 members, its members in four child processes on this machine,
 * forming and then taking in one more member, timed by the members as a consumer would see it — from
 * the triggering action to the moment the last member holds its assignment of the new generation —
 * with the node's CPU, worst event-loop delay and memory per member and per committed partition.
 */

/** One child process driving a slice of the group's members (bench/group-members-worker.ts). */
class MembersWorker {
  status: GroupMembersStatus | null = null;
  private readonly child: ChildProcess;
  private waiting = new Map<string, (message: { partitions?: number }) => void>();
  readonly ready: Promise<void>;

  constructor(onStatus: () => void, onExit: (error: Error) => void) {
    this.child = fork(join(__dirname, 'group-members-worker.ts'), [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    this.ready = this.next('ready').then(() => undefined);
    // A worker that dies (a refused connection throws there) fails the measurement instead of hanging it.
    this.child.once('exit', (code) => {
      if (code !== 0) onExit(new Error(`a member worker exited with ${code}`));
    });
    this.child.on('message', (message: { type: string; partitions?: number }) => {
      if (message.type === 'status') {
        this.status = message as unknown as GroupMembersStatus;
        onStatus();
        return;
      }
      const resolve = this.waiting.get(message.type);
      this.waiting.delete(message.type);
      resolve?.(message);
    });
  }

  private next(type: string): Promise<{ partitions?: number }> {
    return new Promise((resolve) => this.waiting.set(type, resolve));
  }

  async send(command: GroupMembersCommand, reply?: string): Promise<{ partitions?: number }> {
    const answered = reply ? this.next(reply) : Promise.resolve({});
    this.child.send(command);
    return answered;
  }

  stop(): Promise<void> {
    return stopWorker(this.child);
  }
}

/**
 * The large group's member settings. Sessions of 60 s: 10,000 members in 4 processes on a 2-core
 * machine shared with the node can be seconds late with a heartbeat, which must not expire them (a
 * real deployment spreads them over many hosts). Heartbeats every 15 s (Kafka wants under a third of
 * the session): pushes, not heartbeats, start a rejoin, so they are only the session's upkeep.
 */
export const LARGE_GROUP_MEMBER = {
  sessionTimeoutMs: 60_000,
  rebalanceTimeoutMs: 60_000,
  heartbeatIntervalMs: 15_000,
} as const;

const LARGE_GROUP_MAX_PAYLOAD_BYTES = 8 * 1024 * 1024;

/**
 * What the node of a large group of `size` members needs beyond the defaults: its members all connect
 * from loopback (the per-address default is 1,000 connections); the leader's SyncGroup carries every
 * member's assignment — about 150 bytes each as JSON, 1.5 MB for 10,000 members, over the default
 * 1 MiB MAX_PAYLOAD_BYTES, past which socket.io closes the leader's connection (the group then loses
 * its leader on every generation); and the member that joins the formed group is one more than
 * GROUP_MAX_SIZE's default of 10,000 lets in (it would be answered 81 GROUP_MAX_SIZE_REACHED on every
 * try and the join never measured), so the limit is the group's size plus that member.
 */
export function largeGroupNodeEnv(size: number): Record<string, string> {
  return {
    MAX_CONNECTIONS_PER_IP: '20000',
    MAX_PAYLOAD_BYTES: String(LARGE_GROUP_MAX_PAYLOAD_BYTES),
    GROUP_MAX_SIZE: String(Math.max(10_000, size + 1)),
  };
}

export interface LargeGroupResult {
  /** From the moment the last member sent its first JoinGroup to every member holding its assignment. */
  formMs: number;
  /** Of formMs, the part after the join phase ended (the first JoinGroup answer of the formed generation): the rest is the initial delay. */
  formAfterJoinPhaseMs: number;
  joinMs: number;
  coordinatorMs: number | null;
  /** Rebalances the coordinator recorded while forming (1 when nobody dropped out) and the reasons of the others. */
  formingRebalances: number;
  churn: string[];
  /** What went wrong for members (summed over the workers) and the leader's message sizes; the workers' CPU and worst event-loop delay. */
  stats: MemberStats;
  workerCpuMs: number;
  workerMaxLoopDelayMs: number;
  /** The node's CPU time (ms) while forming and during the join. */
  nodeFormCpuMs: number;
  nodeJoinCpuMs: number;
  /** The node's worst event-loop delay while forming and during the join. */
  nodeFormLoopLagMs: number;
  nodeJoinLoopLagMs: number;
  /** The node's RSS growth while the group formed, per member (sockets included). */
  rssPerMember: number;
  /** The node's RSS growth while every member committed its partitions, per committed partition. */
  rssPerCommittedPartition: number;
}

/** The node's worst event-loop delay (ms) since the last scrape of its /metrics (prom-client resets it on each). */
export async function nodeLoopLagMs(node: CohortProcess): Promise<number> {
  const text = await (await fetch(`${node.url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith('nodejs_eventloop_lag_max_seconds'));
  return line ? Number(line.split(' ')[1]) * 1000 : Number.NaN;
}

/**
 * A group of `size` members (spread over child processes, `workers` of them) is formed; then one more
 * member joins. Returns the time to form the group (from the last member's first JoinGroup), the time
 * from the newcomer's first JoinGroup to every member (the newcomer included) holding its assignment
 * of the new generation, what members went through, and the node's CPU and memory per member and per
 * committed partition. `timeoutMs` bounds each of the two phases.
 */
export async function memberJoinsLargeGroup(
  node: CohortProcess,
  size: number,
  serverAssignor: string | null,
  timeoutMs = 60_000,
  workers = Math.min(4, Math.ceil(size / 500)),
): Promise<LargeGroupResult> {
  const name = `large-${serverAssignor ?? 'client'}-${size}`;
  const partitions = size * 2;
  await node.post('/v1/topics', { name, partitions });
  const options: BenchMemberOptions = { ...LARGE_GROUP_MEMBER, topic: name, serverAssignor };
  let check: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const pool = Array.from(
    { length: workers },
    () =>
      new MembersWorker(
        () => check(),
        (error) => fail(error),
      ),
  );
  const newcomerStats = noStats();
  const newcomer = await BenchMember.connect(node.url, name, options, newcomerStats);
  const history = async () =>
    (await (await fetch(`${node.url}/v1/groups/${name}/rebalances`)).json()) as {
      generationId: number;
      durationMs: number | null;
      reason: string;
    }[];
  try {
    await Promise.all(pool.map((w) => w.ready));
    const counts = pool.map((_, i) => Math.floor(size / workers) + (i < size % workers ? 1 : 0));
    await Promise.all(
      pool.map((w, i) =>
        w.send({ type: 'connect', url: node.url, groupId: name, count: counts[i], options }, 'connected'),
      ),
    );
    /** Resolves once every member of the pool (and `extra`) holds an assignment of one generation newer than `after`. */
    const settled = (after: number, extra: BenchMember | null, what: string): Promise<number> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          const statuses = pool.map((w) => w.status);
          const assigned = statuses.reduce((n, s) => n + (s?.assigned ?? 0), 0);
          const workerLag = Math.max(...statuses.map((s) => s?.maxLoopDelayMs ?? 0));
          // The newcomer's own troubles too: a refused join (81 GROUP_MAX_SIZE_REACHED, 89) shows only there.
          const newcomer = extra ? `; the joining member: ${statsLine(newcomerStats)}` : '';
          const message = `${what}: members not all assigned within ${ms(timeoutMs)} (${assigned} of ${size} assigned; ${statsLine(sumStats(statuses))}${newcomer}; worst event-loop delay of a member process ${ms(workerLag)}`;
          // The node's worst event-loop delay says whether it could keep up; the coordinator's reasons for each rebalance say who dropped out and why.
          void Promise.all([nodeLoopLagMs(node), history()]).then(
            ([lag, rebalances]) =>
              reject(
                new Error(
                  `${message}, of the node ${ms(lag)}); ${rebalances.length} rebalances: ${summarizeReasons(rebalances.map((r) => r.reason))}`,
                ),
              ),
            () => reject(new Error(`${message})`)),
          );
        }, timeoutMs);
        fail = (error) => {
          clearTimeout(timer);
          reject(error);
        };
        check = () => {
          const statuses = pool.map((w) => w.status);
          if (statuses.some((s) => s === null || s.assigned !== s.members)) return;
          const generation = statuses[0]!.maxGeneration;
          if (
            generation <= after ||
            statuses.some((s) => s!.minGeneration !== generation || s!.maxGeneration !== generation)
          )
            return;
          let held = statuses.reduce((n, s) => n + s!.held, 0);
          if (extra) {
            if (extra.assignedGeneration !== generation || extra.generationId !== generation) return;
            held += extra.held;
          }
          if (held !== partitions) return;
          clearTimeout(timer);
          check = () => undefined;
          resolve(generation);
        };
        if (extra) extra.onAssigned = () => check();
        check();
      });
    await nodeLoopLagMs(node);
    const rssBefore = processRssBytes(node.pid);
    const formCpu = processCpuMs(node.pid);
    const formed = settled(0, null, 'forming');
    await Promise.all(pool.map((w) => w.send({ type: 'start' })));
    const before = await formed;
    const formedAt = performance.timeOrigin + performance.now();
    const nodeFormCpuMs = (processCpuMs(node.pid) ?? Number.NaN) - (formCpu ?? Number.NaN);
    const nodeFormLoopLagMs = await nodeLoopLagMs(node);
    const statuses = pool.map((w) => w.status!);
    const lastJoinSentAt = Math.max(...statuses.map((s) => s.lastFirstJoinSentAt));
    const joinPhaseEndedAt = Math.min(...statuses.map((s) => s.firstJoinAnsweredAt));
    const formingHistory = (await history()).filter((rebalance) => rebalance.generationId <= before);
    const rssFormed = processRssBytes(node.pid);
    const joinCpu = processCpuMs(node.pid);
    const started = process.hrtime.bigint();
    const joined = settled(before, newcomer, 'one member joining');
    newcomer.start();
    const generation = await joined;
    const joinMs = elapsedMs(started);
    const nodeJoinCpuMs = (processCpuMs(node.pid) ?? Number.NaN) - (joinCpu ?? Number.NaN);
    const nodeJoinLoopLagMs = await nodeLoopLagMs(node);
    // The coordinator's own account of the same rebalance (start of PreparingRebalance to Stable).
    const coordinatorMs =
      (await history()).find((rebalance) => rebalance.generationId === generation)?.durationMs ?? null;
    const rssJoined = processRssBytes(node.pid);
    const committed = (await Promise.all(pool.map((w) => w.send({ type: 'commit' }, 'committed')))).reduce(
      (n, r) => n + (r.partitions ?? 0),
      0,
    );
    const rssCommitted = processRssBytes(node.pid);
    const last = pool.map((w) => w.status!);
    const stats = sumStats([...last, { stats: newcomerStats } as GroupMembersStatus]);
    return {
      formMs: formedAt - lastJoinSentAt,
      formAfterJoinPhaseMs: formedAt - joinPhaseEndedAt,
      joinMs,
      coordinatorMs,
      formingRebalances: formingHistory.length,
      churn: formingHistory.slice(1).map((rebalance) => rebalance.reason),
      stats,
      workerCpuMs: last.reduce((n, s) => n + s.cpuMs, 0),
      workerMaxLoopDelayMs: Math.max(...last.map((s) => s.maxLoopDelayMs)),
      nodeFormCpuMs,
      nodeJoinCpuMs,
      nodeFormLoopLagMs,
      nodeJoinLoopLagMs,
      rssPerMember: (rssFormed - rssBefore) / size,
      rssPerCommittedPartition: committed > 0 ? (rssCommitted - rssJoined) / committed : Number.NaN,
    };
  } finally {
    check = () => undefined;
    newcomer.vanish();
    await Promise.all(pool.map((w) => w.stop()));
  }
}

/** Section `large-group`: 10,000 members form a group and take in one more, leader and server assigning. */
export const largeGroupSection: BenchSection = {
  name: 'large-group',
  summary:
    '10,000 members (4 processes) form a group, then one more joins; node CPU, loop delay, memory; vs the 2 s target',
  usage: '[members (default 10,000 × BENCH_SCALE)] [leader|range (default: both)]',
  needsBuild: true,
  run: (args) => largeGroup(args),
};

/** Kafka's group.initial.rebalance.delay.ms default; it sits inside the large group's forming time. */
const INITIAL_DELAY_MS = 3000;
const LARGE_TARGET_MS = 2000;

async function largeGroup(args: string[]): Promise<void> {
  const size = args[0] === undefined ? scaled(10_000, 10) : Number(args[0]);
  if (!Number.isInteger(size) || size < 1) throw new Error(`members must be a positive integer, not "${args[0]}"`);
  if (args[1] !== undefined && args[1] !== 'leader' && args[1] !== 'range')
    throw new Error(`who assigns must be "leader" or "range", not "${args[1]}"`);
  // The large group needs more connections per address, a larger leader SyncGroup and (with the member that joins) more members than the defaults allow.
  const node = await CohortProcess.start({
    ...largeGroupNodeEnv(size),
    GROUP_INITIAL_REBALANCE_DELAY_MS: String(INITIAL_DELAY_MS),
  });
  try {
    const member = LARGE_GROUP_MEMBER;
    console.log(
      `${size}-member group: members in ${processes(Math.min(4, Math.ceil(size / 500)))} on this machine, session ${ms(member.sessionTimeoutMs)}, heartbeat every ${ms(member.heartbeatIntervalMs)}, ` +
        `rebalance timeout ${ms(member.rebalanceTimeoutMs)}; GROUP_INITIAL_REBALANCE_DELAY_MS ${INITIAL_DELAY_MS} (Kafka's default), MAX_PAYLOAD_BYTES ${LARGE_GROUP_MAX_PAYLOAD_BYTES}, GROUP_MAX_SIZE ${largeGroupNodeEnv(size).GROUP_MAX_SIZE}; ` +
        `forming is timed from the last member's first JoinGroup`,
    );
    const largeClient =
      args[1] === 'range'
        ? null
        : await attempt(`${size}-member group, client-side`, () => memberJoinsLargeGroup(node, size, null));
    const serverSide = args[1] !== 'leader' && (await hasAssignor(node, 'range'));
    const largeServer = serverSide
      ? await attempt(`${size}-member group, server-side`, () => memberJoinsLargeGroup(node, size, 'range'))
      : null;
    // Issue 12's target for the large group is 2 s, for forming and for one member joining.
    const large = (scenario: string, value: number | null, note = ''): string[] => [
      scenario,
      value === null ? 'n/a' : ms(value),
      ratio(value ?? Number.NaN, LARGE_TARGET_MS),
      note,
    ];
    table(
      ['scenario', 'time', 'vs 2 s target', 'note'],
      [
        large(
          `${size} members form → all synced, leader assigns`,
          largeClient?.formMs ?? null,
          largeClient ? `${ms(largeClient.formAfterJoinPhaseMs)} of it after the join phase ended` : '',
        ),
        large(
          `${size} members + 1 joins → all synced, leader assigns`,
          largeClient?.joinMs ?? null,
          largeNote(largeClient),
        ),
        large(
          `${size} members form → all synced, server assigns`,
          largeServer?.formMs ?? null,
          largeServer ? `${ms(largeServer.formAfterJoinPhaseMs)} of it after the join phase ended` : '',
        ),
        large(
          `${size} members + 1 joins → all synced, server assigns`,
          largeServer?.joinMs ?? null,
          largeNote(largeServer),
        ),
      ],
    );
  } finally {
    await node.dispose();
  }
}

function largeNote(result: LargeGroupResult | null): string {
  if (!result) return '';
  const coordinator = result.coordinatorMs === null ? 'n/a' : ms(result.coordinatorMs);
  const kib = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KiB`;
  const churn = result.formingRebalances > 1 ? `${result.formingRebalances} rebalances while forming; ` : '';
  return (
    `${churn}the coordinator's record: ${coordinator}; ` +
    `node CPU ${ms(result.nodeFormCpuMs)} forming, ${ms(result.nodeJoinCpuMs)} joining; its worst event-loop delay ${ms(result.nodeFormLoopLagMs)} forming, ${ms(result.nodeJoinLoopLagMs)} joining; node RSS ${kib(result.rssPerMember)}/member, ` +
    `${kib(result.rssPerCommittedPartition)}/committed partition; members: ${statsLine(result.stats)}`
  );
}
