import { GroupMember, type MemberOptions } from '../test/support/group-member';
import type { CohortProcess } from './harness/cohort-process';
import { elapsedMs } from './harness/stats';

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

/**
 * A group of `size` members is formed; then one more member joins. Returns the time from that member's
 * first JoinGroup to every member (the newcomer included) holding its assignment of the new generation.
 */
export async function memberJoinsLargeGroup(
  node: CohortProcess,
  size: number,
  serverAssignor: string | null,
): Promise<{ formMs: number; joinMs: number; coordinatorMs: number | null }> {
  const name = `large-${serverAssignor ?? 'client'}-${size}`;
  await node.post('/v1/topics', { name, partitions: size * 2 });
  const options: MemberOptions = { ...quiet, topics: [name], serverAssignor: serverAssignor ?? undefined };
  const members = await openMembers(node, name, size, options);
  try {
    const forming = process.hrtime.bigint();
    members.forEach((m) => m.start());
    await allAssigned(members, 0, () => new Set(members.map((m) => m.generationId)).size === 1, 180_000);
    const formMs = elapsedMs(forming);
    const before = members[0].generationId;
    const newcomer = await GroupMember.connect(node.url, name, options);
    members.push(newcomer);
    const started = process.hrtime.bigint();
    const assigned = allAssigned(members, before, () => totalHeld(members) === size * 2, 120_000);
    newcomer.start();
    await assigned;
    const joinMs = elapsedMs(started);
    // The coordinator's own account of the same rebalance (start of PreparingRebalance to Stable).
    const history = (await (await fetch(`${node.url}/v1/groups/${name}/rebalances`)).json()) as { generationId: number; durationMs: number | null }[];
    const coordinatorMs = history.find((rebalance) => rebalance.generationId === newcomer.generationId)?.durationMs ?? null;
    return { formMs, joinMs, coordinatorMs };
  } finally {
    await Promise.all(members.map((m) => m.vanish()));
  }
}
