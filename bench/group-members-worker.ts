/**
 * A child process of the large-group rebalance benchmark (bench/rebalance.bench.ts): runs `count`
 * members (bench/harness/bench-member.ts, one socket each, as separate consumers have) so that 10,000
 * members are not all driven by the one process that measures them. Reports to the parent over IPC a
 * status whenever an assignment arrives (coalesced per turn of the event loop, and at least once a
 * second), and commits every held partition on request.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { BenchMember, type BenchMemberOptions, type MemberStats, noStats } from './harness/bench-member';
import { oncePerTurn } from './harness/once-per-turn';

export type GroupMembersCommand =
  | { type: 'connect'; url: string; groupId: string; count: number; options: BenchMemberOptions }
  | { type: 'start' }
  | { type: 'commit' }
  | { type: 'stop' };

export interface GroupMembersStatus {
  type: 'status';
  members: number;
  /** Members holding the assignment of the generation they are in, and the range of those generations. */
  assigned: number;
  minGeneration: number;
  maxGeneration: number;
  /** Partitions held by all members of this process. */
  held: number;
  /** Epoch ms (performance.timeOrigin based): the last of these members' first JoinGroup, and the first JoinGroup answer of maxGeneration. */
  lastFirstJoinSentAt: number;
  firstJoinAnsweredAt: number;
  stats: MemberStats;
  /** This process's CPU time (ms) and its event loop's worst delay (ms) since start: is the load generator the limit? */
  cpuMs: number;
  maxLoopDelayMs: number;
}

function main(): void {
  const members: BenchMember[] = [];
  const stats = noStats();
  const loop = monitorEventLoopDelay({ resolution: 20 });
  const send = (message: unknown) => process.send?.(message);
  const status = (): GroupMembersStatus => {
    let assigned = 0;
    let minGeneration = Number.POSITIVE_INFINITY;
    let maxGeneration = -1;
    let held = 0;
    let lastFirstJoinSentAt = 0;
    for (const m of members) {
      lastFirstJoinSentAt = Math.max(lastFirstJoinSentAt, m.firstJoinSentAt);
      if (m.assignedGeneration <= 0 || m.assignedGeneration !== m.generationId) continue;
      held += m.held;
      assigned++;
      minGeneration = Math.min(minGeneration, m.assignedGeneration);
      maxGeneration = Math.max(maxGeneration, m.assignedGeneration);
    }
    let firstJoinAnsweredAt = Number.POSITIVE_INFINITY;
    for (const m of members)
      if (m.generationId === maxGeneration) firstJoinAnsweredAt = Math.min(firstJoinAnsweredAt, m.lastJoinAnsweredAt);
    const cpu = process.cpuUsage();
    return {
      type: 'status',
      members: members.length,
      assigned,
      minGeneration: assigned ? minGeneration : -1,
      maxGeneration,
      held,
      lastFirstJoinSentAt,
      firstJoinAnsweredAt,
      stats,
      cpuMs: (cpu.user + cpu.system) / 1000,
      maxLoopDelayMs: loop.max / 1e6,
    };
  };
  const changed = oncePerTurn(() => send(status()));
  process.on('message', (message: GroupMembersCommand) => {
    if (message.type === 'connect') {
      void (async () => {
        // Connect in slices: thousands of simultaneous handshakes would measure the accept queue.
        for (let i = 0; i < message.count; i += 100) {
          const slice = Array.from({ length: Math.min(100, message.count - i) }, () =>
            BenchMember.connect(message.url, message.groupId, message.options, stats),
          );
          members.push(...(await Promise.all(slice)));
        }
        for (const m of members) m.onAssigned = changed;
        send({ type: 'connected' });
      })();
    } else if (message.type === 'start') {
      loop.enable();
      for (const m of members) m.start();
      // Troubles and CPU are reported even while no assignment arrives.
      setInterval(changed, 1000).unref();
      changed();
    } else if (message.type === 'commit') {
      void (async () => {
        // 50 commits in flight per process: 10,000 at once outran the node's write timeout (REQUEST_TIMED_OUT) on a loaded machine.
        let committed = 0;
        for (let i = 0; i < members.length; i += 50)
          committed += (await Promise.all(members.slice(i, i + 50).map((m) => m.commit()))).reduce((n, c) => n + c, 0);
        send(status());
        send({ type: 'committed', partitions: committed });
      })();
    } else if (message.type === 'stop') {
      for (const m of members) m.vanish();
      process.exit(0);
    }
  });
  // A request that times out under load is retried by the member; one that escapes is reported, not fatal.
  process.on('unhandledRejection', (error) =>
    console.error(`group-members-worker: ${error instanceof Error ? error.message : String(error)}`),
  );
  send({ type: 'ready' });
}

if (require.main === module) main();
