/**
 * A child process of the large-group rebalance benchmark (bench/rebalance.bench.ts): runs `count`
 * classic-protocol members (test/support/group-member.ts, one socket each, as separate consumers have)
 * so that 10,000 members are not all driven by the one process that measures them. Reports to the
 * parent over IPC a status whenever an assignment arrives (coalesced per turn of the event loop), and
 * commits every held partition on request.
 */
import { GroupMember, type MemberOptions } from '../test/support/group-member';

export type GroupMembersCommand =
  | { type: 'connect'; url: string; groupId: string; count: number; options: MemberOptions }
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
  problems: number;
}

function main(): void {
  const members: GroupMember[] = [];
  let pending = false;
  const send = (message: unknown) => process.send?.(message);
  const status = (): GroupMembersStatus => {
    let assigned = 0;
    let minGeneration = Number.POSITIVE_INFINITY;
    let maxGeneration = -1;
    let held = 0;
    let problems = 0;
    for (const m of members) {
      problems += m.problems.length;
      held += (m.assignment?.partitions ?? []).reduce((n, tp) => n + tp.partitions.length, 0);
      if (m.assignedGeneration <= 0 || m.assignedGeneration !== m.generationId) continue;
      assigned++;
      minGeneration = Math.min(minGeneration, m.assignedGeneration);
      maxGeneration = Math.max(maxGeneration, m.assignedGeneration);
    }
    return { type: 'status', members: members.length, assigned, minGeneration: assigned ? minGeneration : -1, maxGeneration, held, problems };
  };
  const changed = (): void => {
    if (pending) return;
    pending = true;
    setImmediate(() => {
      pending = false;
      send(status());
    });
  };
  process.on('message', (message: GroupMembersCommand) => {
    if (message.type === 'connect') {
      void (async () => {
        // Connect in slices: thousands of simultaneous handshakes would measure the accept queue.
        for (let i = 0; i < message.count; i += 100) {
          const slice = Array.from({ length: Math.min(100, message.count - i) }, () => GroupMember.connect(message.url, message.groupId, message.options));
          members.push(...(await Promise.all(slice)));
        }
        for (const m of members) m.onAssigned = changed;
        send({ type: 'connected' });
      })();
    } else if (message.type === 'start') {
      for (const m of members) m.start();
      changed();
    } else if (message.type === 'commit') {
      void Promise.all(
        members.map((m) => m.commit((m.assignment?.partitions ?? []).flatMap((tp) => tp.partitions.map((partition) => ({ topic: tp.topic, partition, offset: 1 }))))),
      ).then((responses) => send({ type: 'committed', partitions: responses.reduce((n, r) => n + r.topics.reduce((k, t) => k + t.partitions.filter((p) => p.errorCode === 0).length, 0), 0) }));
    } else if (message.type === 'stop') {
      void Promise.all(members.map((m) => m.vanish())).then(() => process.exit(0));
    }
  });
  // A request of the autopilot that times out under load is retried by it; one that escapes is counted, not fatal.
  process.on('unhandledRejection', (error) => console.error(`group-members-worker: ${error instanceof Error ? error.message : String(error)}`));
  send({ type: 'ready' });
}

if (require.main === module) main();
