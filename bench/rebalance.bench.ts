import { type ChildProcess, fork } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GroupMember, type MemberOptions } from '../test/support/group-member';
import type { GroupMembersCommand, GroupMembersStatus } from './group-members-worker';
import type { CohortProcess } from './harness/cohort-process';
import { elapsedMs } from './harness/stats';
import { stopWorker } from './harness/stop-worker';

/**
 * Issue 2, benchmark 1: rebalance latency, measured by clients as a consumer would see it — from the
 * triggering action to the moment the last member holds its assignment of the new generation.
 */

const quiet: Partial<MemberOptions> = { sessionTimeoutMs: 60_000, rebalanceTimeoutMs: 60_000, heartbeatIntervalMs: 3_000 };

async function openMembers(node: CohortProcess, groupId: string, count: number, options: MemberOptions): Promise<GroupMember[]> {
  const members: GroupMember[] = [];
  // Connect in slices: 1,000 simultaneous handshakes would measure the accept queue, not Cohort.
  for (let i = 0; i < count; i += 100) {
    const slice = Array.from({ length: Math.min(100, count - i) }, () => GroupMember.connect(node.url, groupId, options));
    members.push(...(await Promise.all(slice)));
  }
  return members;
}

/** Resolves when every member holds an assignment of a generation newer than `after` (and `check` holds). */
function allAssigned(members: GroupMember[], after: number, check: () => boolean, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () => members.every((m) => m.assignedGeneration > after && m.assignedGeneration === m.generationId) && check();
    const timer = setTimeout(() => reject(new Error(`members not all assigned within ${timeoutMs} ms`)), timeoutMs);
    const onAssigned = () => {
      if (!done()) return;
      clearTimeout(timer);
      for (const m of members) m.onAssigned = null;
      resolve();
    };
    for (const m of members) m.onAssigned = onAssigned;
    onAssigned();
  });
}

function totalHeld(members: GroupMember[]): number {
  return members.reduce((sum, m) => sum + m.held().length, 0);
}

/** 10 members on one topic; the topic grows from 100 to 1,000 partitions. Returns ms per round. */
export async function topicGrowth(node: CohortProcess, serverAssignor: string | null, rounds: number): Promise<number[]> {
  const results: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const name = `growth-${serverAssignor ?? 'client'}-${round}`;
    await node.post('/v1/topics', { name, partitions: 100 });
    const members = await openMembers(node, name, 10, { ...quiet, topics: [name], serverAssignor: serverAssignor ?? undefined });
    try {
      members.forEach((m) => m.start());
      await allAssigned(members, 0, () => totalHeld(members) === 100, 60_000);
      const before = Math.max(...members.map((m) => m.generationId));
      const started = process.hrtime.bigint();
      const assigned = allAssigned(members, before, () => totalHeld(members) === 1000, 60_000);
      await node.post(`/v1/topics/${name}`, { partitions: 1000 }, 'PATCH');
      await assigned;
      results.push(elapsedMs(started));
    } finally {
      await Promise.all(members.map((m) => m.vanish()));
    }
  }
  return results;
}

/** The node's resident set size, from /proc (Linux), in bytes. */
function rssBytes(pid: number | undefined): number {
  if (pid === undefined) return Number.NaN;
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmRSS:'));
  return line ? Number(line.split(/\s+/)[1]) * 1024 : Number.NaN;
}

/** One child process driving a slice of the group's members (bench/group-members-worker.ts). */
class MembersWorker {
  status: GroupMembersStatus | null = null;
  private readonly child: ChildProcess;
  private waiting = new Map<string, (message: { partitions?: number }) => void>();
  readonly ready: Promise<void>;

  constructor(onStatus: () => void, onExit: (error: Error) => void) {
    this.child = fork(join(__dirname, 'group-members-worker.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
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

export interface LargeGroupResult {
  formMs: number;
  joinMs: number;
  coordinatorMs: number | null;
  /** The node's RSS growth while the group formed, per member (sockets included). */
  rssPerMember: number;
  /** The node's RSS growth while every member committed its partitions, per committed partition. */
  rssPerCommittedPartition: number;
}

/**
 * A group of `size` members (spread over child processes, `workers` of them) is formed; then one more
 * member joins. Returns the time to form the group, the time from the newcomer's first JoinGroup to
 * every member (the newcomer included) holding its assignment of the new generation, and the node's
 * memory per member and per committed partition.
 */
export async function memberJoinsLargeGroup(node: CohortProcess, size: number, serverAssignor: string | null, workers = Math.min(4, Math.ceil(size / 500))): Promise<LargeGroupResult> {
  const name = `large-${serverAssignor ?? 'client'}-${size}`;
  const partitions = size * 2;
  await node.post('/v1/topics', { name, partitions });
  // Heartbeats of thousands of members would be the load measured; pushes, not heartbeats, start a rejoin.
  const heartbeatIntervalMs = size > 1000 ? 20_000 : quiet.heartbeatIntervalMs;
  const options: MemberOptions = { ...quiet, heartbeatIntervalMs, topics: [name], serverAssignor: serverAssignor ?? undefined };
  let check: () => void = () => undefined;
  let fail: (error: Error) => void = () => undefined;
  const pool = Array.from({ length: workers }, () => new MembersWorker(() => check(), (error) => fail(error)));
  const newcomer = await GroupMember.connect(node.url, name, options);
  try {
    await Promise.all(pool.map((w) => w.ready));
    const counts = pool.map((_, i) => Math.floor(size / workers) + (i < size % workers ? 1 : 0));
    await Promise.all(pool.map((w, i) => w.send({ type: 'connect', url: node.url, groupId: name, count: counts[i], options }, 'connected')));
    /** Resolves once every member of the pool (and `extra`) holds an assignment of one generation newer than `after`. */
    const settled = (after: number, extra: GroupMember | null, timeoutMs: number): Promise<number> =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`members not all assigned within ${timeoutMs} ms`)), timeoutMs);
        fail = (error) => {
          clearTimeout(timer);
          reject(error);
        };
        check = () => {
          const statuses = pool.map((w) => w.status);
          if (statuses.some((s) => s === null || s.assigned !== s.members)) return;
          const generation = statuses[0]!.maxGeneration;
          if (generation <= after || statuses.some((s) => s!.minGeneration !== generation || s!.maxGeneration !== generation)) return;
          let held = statuses.reduce((n, s) => n + s!.held, 0);
          if (extra) {
            if (extra.assignedGeneration !== generation || extra.generationId !== generation) return;
            held += extra.held().length;
          }
          if (held !== partitions) return;
          clearTimeout(timer);
          check = () => undefined;
          resolve(generation);
        };
        if (extra) extra.onAssigned = () => check();
        check();
      });
    const rssBefore = rssBytes(node.pid);
    const forming = process.hrtime.bigint();
    const formed = settled(0, null, 300_000);
    await Promise.all(pool.map((w) => w.send({ type: 'start' })));
    const before = await formed;
    const formMs = elapsedMs(forming);
    const rssFormed = rssBytes(node.pid);
    const started = process.hrtime.bigint();
    const joined = settled(before, newcomer, 180_000);
    newcomer.start();
    const generation = await joined;
    const joinMs = elapsedMs(started);
    // The coordinator's own account of the same rebalance (start of PreparingRebalance to Stable).
    const history = (await (await fetch(`${node.url}/v1/groups/${name}/rebalances`)).json()) as { generationId: number; durationMs: number | null }[];
    const coordinatorMs = history.find((rebalance) => rebalance.generationId === generation)?.durationMs ?? null;
    const rssJoined = rssBytes(node.pid);
    const committed = (await Promise.all(pool.map((w) => w.send({ type: 'commit' }, 'committed')))).reduce((n, r) => n + (r.partitions ?? 0), 0);
    const rssCommitted = rssBytes(node.pid);
    return {
      formMs,
      joinMs,
      coordinatorMs,
      rssPerMember: (rssFormed - rssBefore) / size,
      rssPerCommittedPartition: committed > 0 ? (rssCommitted - rssJoined) / committed : Number.NaN,
    };
  } finally {
    check = () => undefined;
    await Promise.all([newcomer.vanish(), ...pool.map((w) => w.stop())]);
  }
}
