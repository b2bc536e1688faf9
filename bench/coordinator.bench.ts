/**
 * Section `coordinator` of `npm run bench`: the in-process cost of the group coordinator
 * (libs/coordinator) over an in-memory store that commits at once, so only the coordinator's own work
 * is measured — no sockets, no log.
 * 1. A rebalance of N members (join → leader's sync → everyone synced), per member, and how it scales.
 * 2. OffsetCommit throughput through the coordinator (wall-clock timers, one member on one connection),
 *    as a ratio to the raw store doing the same appends.
 * 3. The large group of the `large-group` section in the coordinator alone (bench/large-group-coordinator.ts),
 *    beside a group ten times smaller: CPU per member says whether the cost grows faster than the group.
 */
import { coordinatorConfig, GroupCoordinator, InMemoryTopicRegistry, StaticAssignorLookup } from '@cohort/coordinator';
import { offsetCommitRecord } from '@cohort/coordinator/records/record-builders';
import { CoordinatorHarness, FakePartitionStore, RecordingPushSink } from '@cohort/coordinator/testing';
import { ErrorCode } from '@cohort/protocol';
import { RealClock } from '@cohort/replication';
import { scaled } from './harness/scale';
import type { BenchSection } from './harness/section';
import { elapsedMs, ms, perSecond, ratio, table } from './harness/stats';
import { type CoordinatorLargeGroup, largeGroupInCoordinator } from './large-group-coordinator';

export const coordinatorSection: BenchSection = {
  name: 'coordinator',
  summary:
    'the coordinator in process: rebalance per member as groups grow, OffsetCommit vs the raw store, the large group alone',
  needsBuild: false,
  run: () => coordinatorBench(),
};

async function rebalance(n: number): Promise<number> {
  const h = new CoordinatorHarness({ topics: [{ name: 'orders', partitions: n }] });
  await h.settle();
  const started = process.hrtime.bigint();
  const ids: string[] = [];
  const joins = [];
  for (let i = 0; i < n; i++) {
    const first = await h.coordinator.joinGroup(h.joinRequest('big'), h.context(`c${i}`));
    ids.push(first.memberId);
    joins.push(h.coordinator.joinGroup(h.joinRequest('big', { memberId: first.memberId }), h.context(`c${i}`)));
  }
  h.clock.advance(0);
  const responses = await Promise.all(joins);
  const leader = responses[0].leader;
  const assignments = ids.map((memberId, i) => ({
    memberId,
    assignment: { partitions: [{ topic: 'orders', partitions: [i] }] },
  }));
  const syncs = ids.map((memberId) =>
    h.coordinator.syncGroup(
      { groupId: 'big', memberId, generationId: 1, assignments: memberId === leader ? assignments : [] },
      h.context(),
    ),
  );
  const synced = await Promise.all(syncs);
  if (synced.some((s) => s.errorCode !== ErrorCode.NONE)) throw new Error('sync failed');
  const took = elapsedMs(started);
  h.coordinator.close();
  return took;
}

/** A coordinator on wall-clock time over an in-memory store that commits at once, one Stable member. */
async function commitSetup() {
  const clock = new RealClock();
  const store = new FakePartitionStore(clock, { autoCommit: true });
  const topics = new InMemoryTopicRegistry({ topics: [{ name: 'orders', partitions: 64, endOffsets: {} }] });
  const config = coordinatorConfig({ groupInitialRebalanceDelayMs: 0 });
  store.electAll(config.numPartitions);
  const coordinator = new GroupCoordinator({
    store,
    clock,
    config,
    topics,
    assignors: new StaticAssignorLookup(),
    push: new RecordingPushSink(),
  });
  coordinator.start();
  while (coordinator.servingPartitions().length < config.numPartitions)
    await new Promise((resolve) => setImmediate(resolve));
  const context = { clientId: 'bench', clientHost: '/127.0.0.1', connectionId: 'c-1' };
  const join = {
    groupId: 'g',
    sessionTimeoutMs: 1_800_000,
    protocolType: 'consumer',
    protocols: [{ name: 'range', metadata: { topics: ['orders'] } }],
  };
  const { memberId } = await coordinator.joinGroup({ ...join, memberId: '' }, context);
  const joined = await coordinator.joinGroup({ ...join, memberId }, context);
  await coordinator.syncGroup({ groupId: 'g', memberId, generationId: joined.generationId, assignments: [] }, context);
  return {
    coordinator,
    store,
    context,
    memberId,
    generationId: joined.generationId,
    partition: coordinator.partitionFor('g'),
  };
}

async function commits(count: number): Promise<{ coordinator: number; raw: number }> {
  const setup = await commitSetup();
  let started = process.hrtime.bigint();
  const inFlight = [];
  for (let i = 0; i < count; i++) {
    const topics = [{ name: 'orders', partitions: [{ partitionIndex: i % 64, committedOffset: i }] }];
    inFlight.push(
      setup.coordinator.offsetCommit(
        { groupId: 'g', generationId: setup.generationId, memberId: setup.memberId, topics },
        setup.context,
      ),
    );
    if (inFlight.length === 100) await Promise.all(inFlight.splice(0));
  }
  await Promise.all(inFlight);
  const coordinator = count / (elapsedMs(started) / 1000);

  // Baseline: the same records appended and awaited on the same store, without the coordinator.
  const epoch = setup.store.leaderEpoch(setup.partition)!;
  started = process.hrtime.bigint();
  const waits = [];
  for (let i = 0; i < count; i++) {
    const record = offsetCommitRecord('g', 'orders', i % 64, {
      offset: i,
      leaderEpoch: -1,
      metadata: '',
      commitTimestamp: 0,
      expireTimestamp: null,
    });
    const { lastOffset } = setup.store.append(setup.partition, epoch, [record]);
    waits.push(setup.store.awaitCommit(setup.partition, epoch, lastOffset, 5000));
    if (waits.length === 100) await Promise.all(waits.splice(0));
  }
  await Promise.all(waits);
  const raw = count / (elapsedMs(started) / 1000);
  setup.coordinator.close();
  return { coordinator, raw };
}

async function coordinatorBench(): Promise<void> {
  const small = scaled(1000, 50);
  const large = small * 5;
  console.log(`Rebalance of a new group, in process (join + KIP-394 + sync of every member)`);
  await rebalance(50); // warm-up
  const tSmall = await rebalance(small);
  const tLarge = await rebalance(large);
  table(
    ['members', 'total', 'per member', 'vs linear from the smaller group'],
    [
      [String(small), ms(tSmall), ms(tSmall / small), '1.00x'],
      [String(large), ms(tLarge), ms(tLarge / large), ratio(tLarge / large, tSmall / small)],
    ],
  );
  const count = scaled(50_000, 1000);
  console.log(
    `\nOffsetCommit throughput, ${count} single-partition commits, 100 in flight (baseline: the raw store appending the same records)`,
  );
  await commits(1000); // warm-up
  const { coordinator, raw } = await commits(count);
  table(
    ['path', 'commits', 'vs raw store'],
    [
      ['raw store append + awaitCommit', perSecond(raw), '1.00x'],
      ['GroupCoordinator.offsetCommit', perSecond(coordinator), ratio(coordinator, raw)],
    ],
  );
  await largeGroupRows();
}

async function largeGroupRows(): Promise<void> {
  const size = scaled(10_000, 100);
  const smaller = Math.max(10, Math.round(size / 10));
  console.log(
    `\nThe large group in the coordinator alone: ${size} members, 2 partitions each, forming then one more joining (baseline: ${smaller} members)`,
  );
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(2)} KiB`;
  const rows: string[][] = [];
  for (const assignor of [null, 'range'] as const) {
    const who = assignor === null ? 'leader assigns' : 'server assigns (range)';
    const base: CoordinatorLargeGroup = await largeGroupInCoordinator(smaller, assignor);
    const large = await largeGroupInCoordinator(size, assignor);
    const perMember = (r: CoordinatorLargeGroup, members: number) => (r.formCpuMs + r.joinCpuMs) / members;
    rows.push([
      `${size} members, ${who}`,
      `${ms(large.formMs)} / ${ms(large.joinMs)}`,
      `${ms(large.formCpuMs)} / ${ms(large.joinCpuMs)}`,
      ratio(perMember(large, size), perMember(base, smaller)),
      kib(large.heapPerMemberBytes),
      kib(large.heapPerCommittedPartitionBytes),
    ]);
  }
  table(
    [
      'group',
      'wall: form / +1 joins',
      'CPU: form / +1 joins',
      `CPU per member vs ${smaller} members`,
      'heap per member',
      'heap per committed partition',
    ],
    rows,
  );
}
