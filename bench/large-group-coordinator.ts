/**
 * The coordinator's own cost of one group of `LARGE_GROUP_MEMBERS` members (default 10,000), without
 * sockets: forming the group (KIP-394 join, rejoin, leader's sync, every follower's sync) and one member
 * joining until every member has its new assignment, under virtual time over the in-memory store. It
 * isolates what bench/rebalance.bench.ts measures end to end, so a `node --cpu-prof` of it shows the
 * coordinator alone, and two builds can be compared in one run. Prints one JSON line: wall and CPU
 * time of both phases, and memory per member and per committed partition (the in-memory store's copy
 * of the commit records included). Run with `node --expose-gc --import tsx` for the heap figures.
 *   LARGE_GROUP_ASSIGNOR=range  server-side assignment (default: the leader assigns)
 */
import type * as P from '@cohort/protocol';
import { createRangeAssignor } from '../libs/assignors/src/range/range-assignor';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

const size = Number(process.env.LARGE_GROUP_MEMBERS ?? '10000');
const serverAssignor = process.env.LARGE_GROUP_ASSIGNOR || undefined;
const GROUP = 'large';
const TOPIC = 'orders';
const PARTITIONS = size * 2;

const h = new CoordinatorHarness({
  topics: [{ name: TOPIC, partitions: PARTITIONS }],
  assignors: serverAssignor ? [createRangeAssignor()] : [],
  config: { groupInitialRebalanceDelayMs: 3000 },
});
const join = (memberId: string, context: ReturnType<CoordinatorHarness['context']>): Promise<P.JoinGroupResponse> =>
  h.coordinator.joinGroup(h.joinRequest(GROUP, { memberId, serverAssignor, sessionTimeoutMs: 60_000 }), context);

/** The leader's range assignment of every partition, as the GroupMember autopilot would send it. */
function leaderAssignments(memberIds: string[]): P.SyncGroupAssignment[] {
  const sorted = [...memberIds].sort();
  const per = Math.floor(PARTITIONS / sorted.length);
  const extra = PARTITIONS % sorted.length;
  let next = 0;
  return sorted.map((memberId, i) => {
    const count = per + (i < extra ? 1 : 0);
    const partitions = Array.from({ length: count }, (_, k) => next + k);
    next += count;
    return { memberId, assignment: { partitions: [{ topic: TOPIC, partitions }] } };
  });
}

/** Joins are answered once the phase ends (virtual time); every member then syncs. Resolves with each member's assignment. */
let joinGeneration = -1;

async function rebalance(parked: Promise<P.JoinGroupResponse>[]): Promise<P.SyncGroupResponse[]> {
  let joins: P.JoinGroupResponse[] | undefined;
  void Promise.all(parked).then((all) => (joins = all));
  for (let i = 0; joins === undefined && i < size + 10; i++) await h.advance(3000);
  if (!joins) throw new Error('the join phase did not end');
  const failed = joins.find((j) => j.errorCode !== 0);
  if (failed) throw new Error(`JoinGroup failed: ${JSON.stringify(failed).slice(0, 200)}`);
  const generationId = joins[0].generationId;
  joinGeneration = generationId;
  const leader = joins[0].leader;
  const memberIds = joins.map((j) => j.memberId);
  const syncs = joins.map((j) =>
    h.coordinator.syncGroup(
      {
        groupId: GROUP,
        memberId: j.memberId,
        generationId,
        assignments: !serverAssignor && j.memberId === leader ? leaderAssignments(memberIds) : [],
      },
      h.contextOf(j.memberId),
    ),
  );
  await h.settle();
  const results = await Promise.all(syncs);
  const bad = results.find((s) => s.errorCode !== 0);
  if (bad) throw new Error(`SyncGroup failed: ${JSON.stringify(bad).slice(0, 200)}`);
  return results;
}

const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

async function main(): Promise<void> {
  await h.settle();
  const rss0 = process.memoryUsage().rss;
  const heap0 = process.memoryUsage().heapUsed;
  const formStart = performance.now();
  const formCpu = process.cpuUsage();
  const contexts = Array.from({ length: size }, () => h.context());
  const firsts = await Promise.all(contexts.map((context) => join('', context)));
  const memberIds = firsts.map((f) => f.memberId);
  memberIds.forEach(
    (id, i) =>
      h.contextOf(id) === contexts[i] ||
      (h as unknown as { memberContexts: Map<string, unknown> }).memberContexts.set(id, contexts[i]),
  );
  await rebalance(memberIds.map((id, i) => join(id, contexts[i])));
  const formMs = performance.now() - formStart;
  const formCpuMs = cpuMs(process.cpuUsage(formCpu));
  global.gc?.();
  const rssFormed = process.memoryUsage().rss;
  const heapFormed = process.memoryUsage().heapUsed;

  const joinStart = performance.now();
  const joinCpu = process.cpuUsage();
  const newcomerContext = h.context();
  const first = await join('', newcomerContext);
  (h as unknown as { memberContexts: Map<string, unknown> }).memberContexts.set(first.memberId, newcomerContext);
  const parked = [join(first.memberId, newcomerContext)];
  await h.settle();
  // Every member was pushed RebalanceInProgress; each rejoins.
  for (let i = 0; i < size; i++) parked.push(join(memberIds[i], contexts[i]));
  const synced = await rebalance(parked);
  const joinMs = performance.now() - joinStart;
  const joinCpuMs = cpuMs(process.cpuUsage(joinCpu));

  // Every member commits the partitions it holds: the memory of the group's committed offsets.
  global.gc?.();
  const heapJoined = process.memoryUsage().heapUsed;
  const rssJoined = process.memoryUsage().rss;
  if ((await h.describe(GROUP)).groupState !== 'Stable') throw new Error('the group is not Stable after the join');
  const ids = [first.memberId, ...memberIds];
  const commits = await Promise.all(
    synced.map((sync, i) => {
      const held = ((sync.assignment as P.MemberAssignment | null)?.partitions ?? []).flatMap((tp) =>
        tp.partitions.map((p) => ({ partitionIndex: p, committedOffset: 1 })),
      );
      return h.coordinator.offsetCommit(
        { groupId: GROUP, generationId: joinGeneration, memberId: ids[i], topics: [{ name: TOPIC, partitions: held }] },
        h.contextOf(ids[i]),
      );
    }),
  );
  const committed = commits.reduce(
    (n, r) => n + r.topics.reduce((k, t) => k + t.partitions.filter((p) => p.errorCode === 0).length, 0),
    0,
  );
  global.gc?.();
  const heapCommitted = process.memoryUsage().heapUsed;
  const rssCommitted = process.memoryUsage().rss;
  console.log(
    JSON.stringify({
      size,
      assignor: serverAssignor ?? 'leader',
      formMs: Math.round(formMs),
      joinMs: Math.round(joinMs),
      // CPU time of this process: on a shared machine it moves far less than wall time with the load.
      formCpuMs: Math.round(formCpuMs),
      joinCpuMs: Math.round(joinCpuMs),
      rssPerMemberBytes: Math.round((rssFormed - rss0) / size),
      heapPerMemberBytes: global.gc ? Math.round((heapFormed - heap0) / size) : null,
      committedPartitions: committed,
      rssPerCommittedPartitionBytes: Math.round((rssCommitted - rssJoined) / committed),
      heapPerCommittedPartitionBytes: global.gc ? Math.round((heapCommitted - heapJoined) / committed) : null,
    }),
  );
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
