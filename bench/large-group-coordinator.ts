/**
 * The coordinator's own cost of one large group, without sockets: forming the group (KIP-394 join,
 * rejoin, leader's sync, every follower's sync) and one member joining until every member has its new
 * assignment, under virtual time over the in-memory store. It isolates what the `large-group` section
 * measures end to end, so `node --cpu-prof` of `npm run bench -- coordinator` shows the coordinator
 * alone. Memory is measured after a full collection (the heap figures) and includes the in-memory
 * store's copy of the commit records.
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type * as P from '@cohort/protocol';
import { createRangeAssignor } from '@cohort/assignors';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

export interface CoordinatorLargeGroup {
  formMs: number;
  joinMs: number;
  /** CPU time of this process: on a shared machine it moves far less than wall time with the load. */
  formCpuMs: number;
  joinCpuMs: number;
  heapPerMemberBytes: number;
  committedPartitions: number;
  heapPerCommittedPartitionBytes: number;
}

const GROUP = 'large';
const TOPIC = 'orders';

/** A full collection before each memory reading, without asking for `node --expose-gc`. */
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

type Context = ReturnType<CoordinatorHarness['context']>;

const cpuMs = (usage: NodeJS.CpuUsage): number => (usage.user + usage.system) / 1000;

/** `size` members, 2 partitions each; `serverAssignor` 'range' assigns on the server, null lets the leader assign. */
export async function largeGroupInCoordinator(
  size: number,
  serverAssignor: 'range' | null,
): Promise<CoordinatorLargeGroup> {
  const partitions = size * 2;
  const h = new CoordinatorHarness({
    topics: [{ name: TOPIC, partitions }],
    assignors: serverAssignor ? [createRangeAssignor()] : [],
    config: { groupInitialRebalanceDelayMs: 3000 },
  });
  const assignor = serverAssignor ?? undefined;
  const join = (memberId: string, context: Context): Promise<P.JoinGroupResponse> =>
    h.coordinator.joinGroup(
      h.joinRequest(GROUP, { memberId, serverAssignor: assignor, sessionTimeoutMs: 60_000 }),
      context,
    );
  // The harness learns a member's connection from its joins through its own helpers; these joins bypass them.
  const contexts = (h as unknown as { memberContexts: Map<string, Context> }).memberContexts;

  /** The leader's range assignment of every partition, as the GroupMember autopilot would send it. */
  const leaderAssignments = (memberIds: string[]): P.SyncGroupAssignment[] => {
    const sorted = [...memberIds].sort();
    const per = Math.floor(partitions / sorted.length);
    const extra = partitions % sorted.length;
    let next = 0;
    return sorted.map((memberId, i) => {
      const count = per + (i < extra ? 1 : 0);
      const owned = Array.from({ length: count }, (_, k) => next + k);
      next += count;
      return { memberId, assignment: { partitions: [{ topic: TOPIC, partitions: owned }] } };
    });
  };

  /** Joins are answered once the phase ends (virtual time); every member then syncs. */
  const rebalance = async (parked: Promise<P.JoinGroupResponse>[]) => {
    let joins: P.JoinGroupResponse[] | undefined;
    void Promise.all(parked).then((all) => (joins = all));
    for (let i = 0; joins === undefined && i < size + 10; i++) await h.advance(3000);
    if (!joins) throw new Error('the join phase did not end');
    const failed = joins.find((j) => j.errorCode !== 0);
    if (failed) throw new Error(`JoinGroup failed: ${JSON.stringify(failed).slice(0, 200)}`);
    const { generationId, leader } = joins[0];
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
    const synced = await Promise.all(syncs);
    const bad = synced.find((s) => s.errorCode !== 0);
    if (bad) throw new Error(`SyncGroup failed: ${JSON.stringify(bad).slice(0, 200)}`);
    return { synced, generationId };
  };

  try {
    await h.settle();
    collectGarbage();
    const heap0 = process.memoryUsage().heapUsed;
    const formStart = performance.now();
    const formCpu = process.cpuUsage();
    const memberContexts = Array.from({ length: size }, () => h.context());
    const firsts = await Promise.all(memberContexts.map((context) => join('', context)));
    const memberIds = firsts.map((f) => f.memberId);
    memberIds.forEach((id, i) => contexts.set(id, memberContexts[i]));
    await rebalance(memberIds.map((id, i) => join(id, memberContexts[i])));
    const formMs = performance.now() - formStart;
    const formCpuMs = cpuMs(process.cpuUsage(formCpu));
    collectGarbage();
    const heapFormed = process.memoryUsage().heapUsed;

    const joinStart = performance.now();
    const joinCpu = process.cpuUsage();
    const newcomerContext = h.context();
    const first = await join('', newcomerContext);
    contexts.set(first.memberId, newcomerContext);
    const parked = [join(first.memberId, newcomerContext)];
    await h.settle();
    // Every member was pushed RebalanceInProgress; each rejoins.
    for (let i = 0; i < size; i++) parked.push(join(memberIds[i], memberContexts[i]));
    const { synced, generationId } = await rebalance(parked);
    const joinMs = performance.now() - joinStart;
    const joinCpuMs = cpuMs(process.cpuUsage(joinCpu));
    if ((await h.describe(GROUP)).groupState !== 'Stable') throw new Error('the group is not Stable after the join');

    // Every member commits the partitions it holds: the memory of the group's committed offsets.
    collectGarbage();
    const heapJoined = process.memoryUsage().heapUsed;
    const ids = [first.memberId, ...memberIds];
    const commits = await Promise.all(
      synced.map((sync, i) => {
        const held = ((sync.assignment as P.MemberAssignment | null)?.partitions ?? []).flatMap((tp) =>
          tp.partitions.map((p) => ({ partitionIndex: p, committedOffset: 1 })),
        );
        return h.coordinator.offsetCommit(
          { groupId: GROUP, generationId, memberId: ids[i], topics: [{ name: TOPIC, partitions: held }] },
          h.contextOf(ids[i]),
        );
      }),
    );
    const committed = commits.reduce(
      (n, r) => n + r.topics.reduce((k, t) => k + t.partitions.filter((p) => p.errorCode === 0).length, 0),
      0,
    );
    collectGarbage();
    const heapCommitted = process.memoryUsage().heapUsed;
    return {
      formMs,
      joinMs,
      formCpuMs,
      joinCpuMs,
      heapPerMemberBytes: (heapFormed - heap0) / size,
      committedPartitions: committed,
      heapPerCommittedPartitionBytes: (heapCommitted - heapJoined) / Math.max(1, committed),
    };
  } finally {
    h.coordinator.close();
  }
}
