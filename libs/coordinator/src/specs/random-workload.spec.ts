import fc from 'fast-check';
import type * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { Tracked } from '@cohort/coordinator/testing';
import { CoordinatorHarness, track } from '@cohort/coordinator/testing';

/**
 * Random workloads of a few members on one group (slot 2 is a static member, which may restart), with lost leadership, restarts, slow and failing
 * commits, under virtual time. Whatever happens: every request is answered once things settle, the
 * group is always in one of Kafka's states with a non-decreasing generation while one coordinator
 * serves it, and an acknowledged offset commit is never lost (docs/guarantees.md).
 */
type Action =
  | { kind: 'join'; slot: number; restart: boolean }
  | { kind: 'sync'; slot: number }
  | { kind: 'heartbeat'; slot: number }
  | { kind: 'leave'; slot: number }
  | { kind: 'close'; slot: number }
  | { kind: 'commit'; slot: number; partition: number }
  | { kind: 'deleteOffset'; partition: number }
  | { kind: 'deleteGroup' }
  | { kind: 'advance'; ms: number }
  | { kind: 'hw'; auto: boolean }
  | { kind: 'failover'; loseTail: boolean }
  | { kind: 'restart' };

const slot = fc.integer({ min: 0, max: 2 });
const action: fc.Arbitrary<Action> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('join' as const), slot, restart: fc.boolean() }) },
  { weight: 3, arbitrary: slot.map((s) => ({ kind: 'sync' as const, slot: s })) },
  { weight: 3, arbitrary: slot.map((s) => ({ kind: 'heartbeat' as const, slot: s })) },
  { weight: 1, arbitrary: slot.map((s) => ({ kind: 'leave' as const, slot: s })) },
  { weight: 1, arbitrary: slot.map((s) => ({ kind: 'close' as const, slot: s })) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('commit' as const), slot, partition: fc.integer({ min: 0, max: 1 }) }),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 1 }).map((partition) => ({ kind: 'deleteOffset' as const, partition })),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'deleteGroup' as const }) },
  // Mostly short steps (members keep up), sometimes long enough for sessions and rebalances to time out.
  {
    weight: 3,
    arbitrary: fc
      .oneof(
        { weight: 4, arbitrary: fc.integer({ min: 0, max: 2000 }) },
        { weight: 1, arbitrary: fc.integer({ min: 2000, max: 25_000 }) },
      )
      .map((ms) => ({ kind: 'advance' as const, ms })),
  },
  { weight: 1, arbitrary: fc.boolean().map((auto) => ({ kind: 'hw' as const, auto })) },
  { weight: 1, arbitrary: fc.boolean().map((loseTail) => ({ kind: 'failover' as const, loseTail })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'restart' as const }) },
);

interface Member {
  memberId: string;
  generationId: number;
  connection: string;
}

const STATES = new Set(['Empty', 'PreparingRebalance', 'CompletingRebalance', 'Stable', 'Dead']);
/** What the runs went through, so the test can tell it exercised what it claims to. */
const seen = { states: new Set<string>(), acknowledgedCommits: 0, failovers: 0 };

async function run(actions: Action[]): Promise<void> {
  const h = new CoordinatorHarness({
    config: { groupInitialRebalanceDelayMs: 1000 },
    topics: [{ name: 'orders', partitions: 2 }],
  });
  await h.settle();
  const partition = h.partitionOf('g');
  const members: (Member | undefined)[] = [];
  const pending: Tracked<unknown>[] = [];
  // Offset writes per partition in log order (appends happen when the request is handled, in order):
  // a commit's offset, or -1 for a deletion. Readers must see the last acknowledged one, or a later one
  // whose outcome the client could not know.
  const writes: { partition: number; value: number; acked: boolean }[] = [];
  let nextOffset = 1;
  let lastGeneration = 0;

  const remember = <T>(t: Tracked<T>): Tracked<T> => (pending.push(t as Tracked<unknown>), t);
  const onJoin = (i: number, connection: string) => (r: P.JoinGroupResponse) => {
    if (r.errorCode === 0) members[i] = { memberId: r.memberId, generationId: r.generationId, connection };
    else if (r.errorCode === ErrorCode.MEMBER_ID_REQUIRED)
      members[i] = { memberId: r.memberId, generationId: -1, connection };
    else if (r.errorCode === ErrorCode.UNKNOWN_MEMBER_ID || r.errorCode === ErrorCode.FENCED_INSTANCE_ID)
      members[i] = undefined;
  };

  for (const a of actions) {
    const m = 'slot' in a ? members[a.slot] : undefined;
    switch (a.kind) {
      case 'join': {
        const connection = m?.connection ?? `conn-${a.slot}-${nextOffset}`;
        const isStatic = a.slot === 2;
        const memberId = isStatic && a.restart ? '' : (m?.memberId ?? '');
        const request = h.joinRequest('g', {
          memberId,
          rebalanceTimeoutMs: 20_000,
          groupInstanceId: isStatic ? 'static-2' : undefined,
        });
        const t = remember(track(h.coordinator.joinGroup(request, h.context(connection))));
        void t.promise.then(onJoin(a.slot, connection));
        break;
      }
      case 'sync':
        if (m)
          remember(
            track(
              h.coordinator.syncGroup(
                { groupId: 'g', memberId: m.memberId, generationId: m.generationId, assignments: [] },
                h.context(m.connection),
              ),
            ),
          );
        break;
      case 'heartbeat':
        if (m)
          remember(
            track(
              h.coordinator.heartbeat(
                { groupId: 'g', memberId: m.memberId, generationId: m.generationId },
                h.context(m.connection),
              ),
            ),
          );
        break;
      case 'leave':
        if (m)
          remember(
            track(
              h.coordinator.leaveGroup({ groupId: 'g', members: [{ memberId: m.memberId }] }, h.context(m.connection)),
            ),
          );
        break;
      case 'close':
        if (m) h.coordinator.connectionClosed(m.connection);
        break;
      case 'commit': {
        const offset = nextOffset++;
        const generationId = m ? m.generationId : -1;
        const topics = [{ name: 'orders', partitions: [{ partitionIndex: a.partition, committedOffset: offset }] }];
        const write = { partition: a.partition, value: offset, acked: false };
        writes.push(write);
        const t = remember(
          track(
            h.coordinator.offsetCommit(
              { groupId: 'g', generationId, memberId: m?.memberId ?? '', topics },
              h.context(m?.connection),
            ),
          ),
        );
        void t.promise.then((r) => {
          if (r.topics[0]?.partitions[0]?.errorCode !== 0) return;
          seen.acknowledgedCommits++;
          write.acked = true;
        });
        break;
      }
      case 'deleteOffset': {
        const write = { partition: a.partition, value: -1, acked: false };
        writes.push(write);
        const t = remember(
          track(
            h.coordinator.offsetDelete({
              groupId: 'g',
              topics: [{ name: 'orders', partitions: [{ partitionIndex: a.partition }] }],
            }),
          ),
        );
        void t.promise.then(
          (r) => void (r.errorCode === 0 && r.topics[0].partitions[0].errorCode === 0 && (write.acked = true)),
        );
        break;
      }
      case 'deleteGroup': {
        const both = [0, 1].map((partition) => ({ partition, value: -1, acked: false }));
        writes.push(...both);
        const t = remember(track(h.coordinator.deleteGroups({ groupsNames: ['g'] })));
        void t.promise.then((r) => void (r.results[0]?.errorCode === 0 && both.forEach((w) => (w.acked = true))));
        break;
      }
      case 'advance':
        await h.advance(a.ms);
        break;
      case 'hw':
        h.store.autoCommit = a.auto;
        if (a.auto) h.store.commitAll();
        break;
      case 'failover':
        // The new leader may lack the uncommitted tail (it never reached a quorum), or have it all.
        if (a.loseTail) h.store.truncate(partition, h.store.offsets(partition).highWatermark);
        else h.store.commitAll();
        h.store.elect(partition); // resign, then lead again in a new epoch: the coordinator reloads
        seen.failovers++;
        lastGeneration = 0;
        break;
      case 'restart':
        h.store.commitAll();
        await h.restart();
        lastGeneration = 0;
        break;
    }
    await h.settle();
    const described = await h.describe('g');
    if (described.errorCode === 0) {
      expect(STATES.has(described.groupState)).toBe(true);
      seen.states.add(described.groupState);
      // A group that died (deleted, or Empty without offsets) comes back as a new group at generation 0.
      if (described.groupState === 'Dead') lastGeneration = 0;
      const view = await h.coordinator.describeGroup('g').catch(() => undefined);
      if (view) {
        expect(view.generationId).toBeGreaterThanOrEqual(lastGeneration);
        lastGeneration = view.generationId;
      }
    }
  }

  // Let everything finish: commit the log, then let every timer run out.
  h.store.autoCommit = true;
  h.store.commitAll();
  for (let i = 0; i < 40; i++) await h.advance(10_000);
  expect(pending.filter((t) => !t.done)).toEqual([]);

  await h.restart();
  const fetched = await h.fetch('g', [{ name: 'orders', partitionIndexes: [0, 1] }]);
  for (const p of [0, 1]) {
    const value = fetched.topics[0].partitions[p].committedOffset;
    const mine = writes.filter((w) => w.partition === p);
    const last = mine.map((w) => w.acked).lastIndexOf(true);
    if (last < 0) continue;
    expect(mine.slice(last).map((w) => w.value)).toContain(value);
  }
}

describe('random workloads', () => {
  it('answer every request, keep a valid state and never lose an acknowledged commit', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(action, { minLength: 5, maxLength: 60 }), (actions) => run(actions)),
      {
        numRuns: Number(process.env.COORDINATOR_FUZZ_RUNS ?? 60),
        seed: process.env.COORDINATOR_FUZZ_SEED ? Number(process.env.COORDINATOR_FUZZ_SEED) : 20_240_601,
      },
    );
    expect([...seen.states].sort()).toEqual(['CompletingRebalance', 'Dead', 'Empty', 'PreparingRebalance', 'Stable']);
    expect(seen.acknowledgedCommits).toBeGreaterThan(50);
    expect(seen.failovers).toBeGreaterThan(10);
  }, 120_000);
});
