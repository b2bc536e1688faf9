import fc from 'fast-check';
import type * as P from '@cohort/protocol';
import { KafkaError } from '@cohort/protocol';
import type { PartitionOffsets } from '@cohort/coordinator/ports/topic-registry.port';
import { shareGroupHarness, track, type Tracked } from '@cohort/coordinator/testing';
import { SharePartition, type SharePartitionLimits } from './share-partition';
import type { SharePartitionManager } from './share-partition-manager';
import type { ShareAssignment } from './share-assignment';
import type { ShareTopicPartition } from './share-ports';
import {
  type AckStep,
  type AckType,
  FOUND,
  type Scenario,
  type Step,
} from '@cohort/coordinator/testing/share-lease-scenarios';

/** Runs of the property; raise with PROPERTY_RUNS, and PROPERTY_SEED=random, to search longer (test/support/property-seed.setup.ts). */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 100);

/**
 * A ShareAcquire visits only the partitions marked as lease candidates (share-lease-candidates.ts), not
 * every assigned one: a partition that can lease but is not marked is passed over by every acquire, its
 * offsets waiting until something else happens to mark it. Random histories of a share group through the
 * coordinator on virtual time: producers reporting offsets and log starts moving on, members acquiring
 * (held or answered at once) and acknowledging with every type (on their own or carried by an acquire),
 * locks running out, members leaving and assignments changing (partitions started by the next acquire,
 * at the start or the end of the log), writes refused or left uncommitted, dead letters redelivered,
 * offset resets, restarts. After every step, each assigned partition that could lease an offset now is
 * among those an acquire of its member visits. Whether it could is asked of the partition's own acquire,
 * on a copy brought up to what the registry reports as an acquire's visit does (share-lease.ts), never
 * of the marks or of `hasLeasable`, which decides them.
 */

const G = 'share-candidates';
const MEMBERS = ['m0', 'm1', 'm2'];
/** `jobs` has four words of marks (32 partitions to a word): an assignment's partitions lie in several. */
const TOPICS = [
  { name: 'jobs', partitions: 100 },
  { name: 'logs', partitions: 3 },
];
const LOCK_MS = 1000;

const member = fc.integer({ min: 0, max: MEMBERS.length - 1 });
const mask = fc.nat(15);
/** Picks a partition in play (there are at most 4). */
const at = fc.nat(3);
const kind = <K extends Step['kind']>(k: K) => fc.constant(k);
const step: fc.Arbitrary<Step> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ kind: kind('produce'), at, grow: fc.integer({ min: 1, max: 8 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: kind('logStart'), at, by: fc.integer({ min: 1, max: 6 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: kind('assign'), member, mask }) },
  { weight: 1, arbitrary: fc.record({ kind: kind('leave'), member }) },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: kind('acquire'),
      member,
      maxRecords: fc.integer({ min: 1, max: 8 }),
      batchSize: fc.option(fc.integer({ min: 1, max: 3 }), { nil: null }),
      held: fc.boolean(),
    }),
  },
  {
    weight: 6,
    arbitrary: fc.record({
      kind: kind('ack'),
      pick: fc.nat(15),
      skip: fc.nat(7),
      span: fc.integer({ min: 1, max: 6 }),
      // Releases most: they are what makes offsets leasable again.
      types: fc.array(fc.constantFrom<AckType>(0, 1, 2, 2, 2, 3, 4), { minLength: 1, maxLength: 3 }),
      onAcquire: fc.boolean(),
    }),
  },
  { weight: 3, arbitrary: fc.record({ kind: kind('advance'), ms: fc.integer({ min: 1, max: 1500 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: kind('refuseNextWrite') }) },
  { weight: 1, arbitrary: fc.record({ kind: kind('holdCommits') }) },
  { weight: 2, arbitrary: fc.record({ kind: kind('commit') }) },
  { weight: 1, arbitrary: fc.record({ kind: kind('redeliver'), at }) },
  { weight: 1, arbitrary: fc.record({ kind: kind('reset'), at, to: fc.constantFrom('earliest', 'latest') }) },
  { weight: 1, arbitrary: fc.record({ kind: kind('restart') }) },
);

const keyOf = ({ topic, partition }: ShareTopicPartition): string => `${topic}-${partition}`;
const topicPartition: fc.Arbitrary<ShareTopicPartition> = fc.oneof(
  ...TOPICS.map(({ name, partitions }) =>
    fc.record({ topic: fc.constant(name), partition: fc.integer({ min: 0, max: partitions - 1 }) }),
  ),
);

const scenario: fc.Arbitrary<Scenario> = fc.record({
  inPlay: fc.uniqueArray(topicPartition, { minLength: 1, maxLength: 4, selector: keyOf }),
  masks: fc.array(mask, { minLength: MEMBERS.length, maxLength: MEMBERS.length }),
  firstEnd: fc.integer({ min: 0, max: 10 }),
  autoOffsetReset: fc.constantFrom('earliest', 'latest'),
  deliveryCountLimit: fc.integer({ min: 2, max: 4 }),
  // Small windows: an acknowledgement moving SPSO on is what lets new offsets in.
  maxRecordLocks: fc.integer({ min: 2, max: 12 }),
  maxAcquireRecords: fc.integer({ min: 1, max: 10 }),
  // Long histories: most of what makes a partition leasable again needs a lease, and an answer, first.
  steps: fc.array(step, { minLength: 1, maxLength: 60, size: 'max' }),
});

/** A leased range a member was answered with, which it may acknowledge. */
interface Held {
  memberId: string;
  topic: string;
  partition: number;
  first: number;
  last: number;
}

async function run(s: Scenario): Promise<string | null> {
  const { h, membership, bind, acquire, acknowledge } = await shareGroupHarness(G, {
    topics: TOPICS,
    config: {
      groupShareAutoOffsetReset: s.autoOffsetReset,
      groupShareRecordLockDurationMs: LOCK_MS,
      groupShareDeliveryCountLimit: s.deliveryCountLimit,
      groupSharePartitionMaxRecordLocks: s.maxRecordLocks,
      groupShareMaxAcquireRecords: s.maxAcquireRecords,
    },
  });
  const offsets = new Map(s.inPlay.map((tp) => [keyOf(tp), { end: s.firstEnd, start: 0 }]));
  const report = (tp: ShareTopicPartition, startOffset?: number) =>
    h.topics.setEndOffsets(tp.topic, [
      { partition: tp.partition, endOffset: offsets.get(keyOf(tp))!.end, startOffset },
    ]);
  const pick = (i: number): ShareTopicPartition => s.inPlay[i % s.inPlay.length];
  const assign = (memberId: string, mask: number) =>
    membership.members.set(
      memberId,
      s.inPlay.filter((_, bit) => (mask >> bit) & 1),
    );
  let held: Held[] = [];
  const calls: Tracked<unknown>[] = [];
  const answered = (memberId: string) => (response: P.ShareAcquireResponse) => {
    for (const { topic, partition, leases } of response.partitions)
      for (const { firstOffset, lastOffset } of leases)
        held.push({ memberId, topic, partition, first: firstOffset, last: lastOffset });
  };
  /** An operator's call refused (no state there yet) changes nothing. */
  const refused = (error: unknown) => {
    if (!(error instanceof KafkaError)) throw error;
  };

  for (const tp of s.inPlay) await report(tp);
  s.masks.forEach((mask, i) => mask !== 0 && assign(MEMBERS[i], mask));
  for (let i = 0; i < s.steps.length; i++) {
    const st = s.steps[i];
    switch (st.kind) {
      case 'produce': {
        const tp = pick(st.at);
        offsets.get(keyOf(tp))!.end += st.grow;
        await report(tp);
        break;
      }
      case 'logStart': {
        const tp = pick(st.at);
        const reported = offsets.get(keyOf(tp))!;
        reported.start = Math.min(reported.end, reported.start + st.by);
        await report(tp, reported.start);
        break;
      }
      case 'assign':
        assign(MEMBERS[st.member], st.mask);
        break;
      case 'leave': {
        // What the share group manager does when a member leaves or is fenced.
        const memberId = MEMBERS[st.member];
        const shard = h.shardOf(G);
        shard.step(() => {
          membership.members.delete(memberId);
          shard.sharePartitions.releaseMember(G, memberId);
        });
        held = held.filter((lease) => lease.memberId !== memberId);
        break;
      }
      case 'acquire': {
        const memberId = MEMBERS[st.member];
        const request = { maxRecords: st.maxRecords, maxWaitMs: st.held ? 2 * LOCK_MS : 0 };
        const sent = acquire(memberId, st.batchSize === null ? request : { ...request, batchSize: st.batchSize });
        calls.push(track(sent.then(answered(memberId))));
        break;
      }
      case 'ack': {
        if (held.length === 0) break;
        const [lease] = held.splice(st.pick % held.length, 1);
        const acknowledgements = [acknowledgementOf(lease, st)];
        calls.push(
          track(
            st.onAcquire
              ? acquire(lease.memberId, { maxRecords: 1, acknowledgements }).then(answered(lease.memberId))
              : acknowledge(lease.memberId, acknowledgements),
          ),
        );
        break;
      }
      case 'advance':
        await h.advance(st.ms);
        break;
      case 'refuseNextWrite':
        h.store.failNextAppend(h.partitionOf(G), KafkaError.of('NOT_ENOUGH_REPLICAS', 'refused'));
        break;
      case 'holdCommits':
        h.store.autoCommit = false;
        break;
      case 'commit':
        h.store.autoCommit = true;
        h.store.commitAll();
        break;
      case 'redeliver': {
        const { topic, partition } = pick(st.at);
        const call = { groupId: G, topic, partition, firstOffset: 0, lastOffset: Number.MAX_SAFE_INTEGER };
        calls.push(track(h.coordinator.redeliverDeadLetters(call).catch(refused)));
        break;
      }
      case 'reset': {
        const { topic, partition } = pick(st.at);
        const request = { topics: [{ name: topic, partitions: [partition] }], strategy: st.to, dryRun: false };
        calls.push(track(h.coordinator.resetOffsetsTo(G, request).catch(refused)));
        break;
      }
      case 'restart':
        // What was written is committed first: the node restarts, its log stays.
        h.store.autoCommit = true;
        h.store.commitAll();
        await h.settle();
        await h.restart();
        bind();
        held = [];
        break;
    }
    await h.settle();
    const manager = h.shardOf(G).sharePartitions;
    const problem = leftOut(manager, membership.members.keys(), i, (tp) =>
      h.topics.partitionOffsets(tp.topic, tp.partition),
    );
    if (problem) return `after step ${i} (${JSON.stringify(st)}): ${problem}`;
  }
  // Every call ends before the next run: commits go through, held acquires and locks run out.
  h.store.autoCommit = true;
  h.store.commitAll();
  await h.advance(10 * LOCK_MS);
  const unanswered = calls.filter((call) => !call.done).length;
  return unanswered === 0 ? null : `${unanswered} calls never answered`;
}

/**
 * The part of `lease` an `ack` step names (what follows it is left to its lock), with one type for the
 * whole batch or one per offset.
 */
function acknowledgementOf(lease: Held, st: AckStep): P.ShareAcknowledgement {
  const first = lease.first + (st.skip % (lease.last - lease.first + 1));
  const last = Math.min(lease.last, first + st.span - 1);
  const acknowledgeTypes =
    st.types.length === 1 || first === last
      ? [st.types[0]]
      : Array.from({ length: last - first + 1 }, (_, n) => st.types[n % st.types.length]);
  return {
    topic: lease.topic,
    partition: lease.partition,
    batches: [{ firstOffset: first, lastOffset: last, acknowledgeTypes }],
  };
}

/**
 * The first assigned partition, among the members' assignments, that could lease an offset now and that
 * an acquire of its member would not visit, described; null when there is none.
 */
function leftOut(
  manager: SharePartitionManager,
  members: Iterable<string>,
  split: number,
  reported: (tp: ShareTopicPartition) => PartitionOffsets | undefined,
): string | null {
  for (const memberId of members) {
    const assignment = manager.membership.assignedPartitions(G, memberId);
    if (typeof assignment === 'number') continue;
    const visits = visitedBy(manager, assignment, split);
    for (const tp of assignment) {
      const slot = manager.slot(G, tp.topic, tp.partition);
      if (!slot || visits.has(keyOf(tp))) continue;
      const offsets = reported(tp);
      if (!couldLease(slot.state, offsets, manager.limits, manager.now)) continue;
      const { startOffset, endOffset, runs } = slot.state;
      return (
        `${keyOf(tp)} could lease (SPSO ${startOffset}, leased up to ${endOffset}, reported end ` +
        `${offsets?.endOffset}, log start ${offsets?.startOffset}, runs ${JSON.stringify(runs)}), ` +
        `but an acquire of ${memberId} would not visit it`
      );
    }
  }
  return null;
}

/**
 * The partitions an acquire of `assignment` visits, as share-lease.ts asks the candidates for them: each
 * topic's partitions in two ranges split at `split`, as an acquire's rotation splits its first topic's.
 */
function visitedBy(manager: SharePartitionManager, assignment: ShareAssignment, split: number): Set<string> {
  const seen = new Set<string>();
  for (const { topic, partitions } of assignment.topics) {
    const middle = split % (partitions.length + 1);
    const ranges = [
      [middle, partitions.length],
      [0, middle],
    ];
    for (const [from, to] of ranges)
      manager.candidates.forEachIn(G, topic, partitions, from, to, (partition) => {
        seen.add(keyOf({ topic, partition }));
        return true;
      });
  }
  return seen;
}

/**
 * Whether an acquire's visit would lease an offset of `state` now: the partition's own acquire, on a copy
 * (its runs and dead letters copied; leases and pending writes shared, as they are only read), after what
 * the visit applies first: the reported end and log start, and the archive of offsets at the delivery limit.
 */
function couldLease(
  state: SharePartition,
  reported: PartitionOffsets | undefined,
  limits: SharePartitionLimits,
  now: number,
): boolean {
  const copy = new SharePartition(
    state.stateEpoch,
    state.startOffset,
    state.endOffset,
    state.runs.map((run) => ({ ...run })),
    state.deadLetters.map((dead) => ({ ...dead })),
  );
  copy.reportEnd(state.reportedEnd);
  if (reported) {
    copy.reportEnd(reported.endOffset);
    if (reported.startOffset != null) copy.reportLogStart(reported.startOffset);
  }
  copy.archiveOverLimit(limits);
  return copy.acquire('probe', 1, 1, now, limits).leases.length > 0;
}

jest.setTimeout(120_000);

describe('share lease candidates', () => {
  it('hold every assigned partition that could lease an offset, whatever happened to it', async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        expect(await run(s)).toBeNull();
      }),
      { numRuns: RUNS, examples: FOUND.map((s) => [s]) },
    );
  });
});
