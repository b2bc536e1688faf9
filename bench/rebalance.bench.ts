import { GroupMember, type MemberOptions } from '../test/support/group-member';
import { CohortProcess } from './harness/cohort-process';
import { attempt, type BenchSection } from './harness/section';
import { elapsedMs, median, ms, ratio, table } from './harness/stats';

/**
 * Issue 2, benchmark 1: rebalance latency, measured by clients as a consumer would see it — from the
 * triggering action to the moment the last member holds its assignment of the new generation.
 */

const quiet: Partial<MemberOptions> = {
  sessionTimeoutMs: 60_000,
  rebalanceTimeoutMs: 60_000,
  heartbeatIntervalMs: 3_000,
};

async function openMembers(
  node: CohortProcess,
  groupId: string,
  count: number,
  options: MemberOptions,
): Promise<GroupMember[]> {
  const members: GroupMember[] = [];
  // Connect in slices: 1,000 simultaneous handshakes would measure the accept queue, not Cohort.
  for (let i = 0; i < count; i += 100) {
    const slice = Array.from({ length: Math.min(100, count - i) }, () =>
      GroupMember.connect(node.url, groupId, options),
    );
    members.push(...(await Promise.all(slice)));
  }
  return members;
}

/** Resolves when every member holds an assignment of a generation newer than `after` (and `check` holds). */
function allAssigned(members: GroupMember[], after: number, check: () => boolean, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = () =>
      members.every((m) => m.assignedGeneration > after && m.assignedGeneration === m.generationId) && check();
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
export async function topicGrowth(
  node: CohortProcess,
  serverAssignor: string | null,
  rounds: number,
): Promise<number[]> {
  const results: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const name = `growth-${serverAssignor ?? 'client'}-${round}`;
    await node.post('/v1/topics', { name, partitions: 100 });
    const members = await openMembers(node, name, 10, {
      ...quiet,
      topics: [name],
      serverAssignor: serverAssignor ?? undefined,
    });
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

/** Section `rebalance`: a topic of a 10-member group grows from 100 to 1,000 partitions, both ways of assigning. */
export const rebalanceSection: BenchSection = {
  name: 'rebalance',
  summary: "a 10-member group's topic grows 100 → 1,000 partitions, leader vs server assigns; vs the 1 s target",
  needsBuild: true,
  run: () => rebalanceLatency(),
};

const TARGET_MS = 1000;

async function rebalanceLatency(): Promise<void> {
  console.log('Rebalance latency (target < 1 s): from the topic growing to every member holding its new assignment');
  const node = await CohortProcess.start({});
  try {
    const rounds = 3;
    const serverSide = await hasAssignor(node, 'range');
    const client = await attempt('growth, client-side assignment', () => topicGrowth(node, null, rounds));
    const server = serverSide
      ? await attempt('growth, server-side assignment', () => topicGrowth(node, 'range', rounds))
      : null;
    const row = (scenario: string, values: number[] | null, note = ''): string[] => {
      const m = values ? median(values) : Number.NaN;
      return [scenario, values ? values.map((v) => ms(v)).join(', ') : 'n/a', ms(m), ratio(m, TARGET_MS), note];
    };
    table(
      ['scenario', 'runs', 'median', 'vs 1 s target', 'note'],
      [
        row('10 members, topic 100 → 1,000 partitions, leader assigns (range)', client),
        row('10 members, topic 100 → 1,000 partitions, server assigns (range)', server),
      ],
    );
  } finally {
    await node.dispose();
  }
}

/** Whether the node has a server-side assignor of that name (else the server-assigned rows are not measured). */
export async function hasAssignor(node: CohortProcess, name: string): Promise<boolean> {
  const assignors = (await (await fetch(`${node.url}/v1/assignors`)).json()) as { name: string }[];
  if (assignors.some((assignor) => assignor.name === name)) return true;
  console.log(`  server-side assignment: not measured (no assignor '${name}' registered on the node)`);
  return false;
}
