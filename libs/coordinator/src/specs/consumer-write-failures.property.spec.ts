import fc from 'fast-check';
import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import type { Tracked } from '@cohort/coordinator/testing';
import { CoordinatorHarness, joinOrders, track } from '@cohort/coordinator/testing';
import type { ConsumerGroup } from '../consumer/consumer-group';

/** Runs of the property; raise with PROPERTY_RUNS, and PROPERTY_SEED=random, to search longer (test/support/property-seed.setup.ts). */
const RUNS = Number(process.env.PROPERTY_RUNS ?? 40);

/**
 * ConsumerGroupHeartbeats answered over several turns of the event loop (a burst bigger than a turn's
 * share, answers held for partitions others revoke) while appends to the group's partition are refused
 * at random turns, the coordinator staying leader (a full disk, too few replicas in sync), and the
 * partition's leadership may move at a random turn, its uncommitted tail lost or kept, and its commits
 * may stall past the writes' timeout (their verdict comes later). Whatever fails:
 * every heartbeat is answered, an error is the refused write's (or, across the failover, "find the
 * coordinator again"; across the stall, the timeout's 15), an answer without error describes the member
 * as the group then holds it — its epoch and its partitions — and, once everything committed, the group
 * a new coordinator loads from the log is the one held. An answer given for records that were taken back,
 * or never committed, is an acknowledgement of something the group lost.
 */
interface Scenario {
  partitions: number;
  /** `consumerHeartbeatPartsPerTurn`: how many parked heartbeats a turn reconciles. */
  partsPerTurn: number;
  holds: boolean;
  /** Members stable before the burst (they hold every partition and must revoke for the joiners). */
  stable: number;
  joiners: number;
  /** The turns, counted from the burst, at whose start the next append is refused. */
  refusedAt: number[];
  /** How the store refuses it: a storage fault (the node keeps the partition), or too few replicas. */
  refusal: 'KAFKA_STORAGE_ERROR' | 'NOT_ENOUGH_REPLICAS';
  /**
   * At the start of that turn the partition's leadership moves (a new epoch, the coordinator reloads);
   * the new leader lacks the uncommitted tail or has it all.
   */
  failover: { at: number; loseTail: boolean } | null;
  /**
   * At the start of that turn the partition stops committing for longer than a write may wait
   * (`OFFSETS_COMMIT_TIMEOUT_MS`): the writes pending then are answered with the timeout, and commit later.
   */
  stallAt: number | null;
}

/** What a member is told when its write is refused so (store-errors.ts). */
const TOLD = {
  KAFKA_STORAGE_ERROR: ErrorCode.KAFKA_STORAGE_ERROR,
  NOT_ENOUGH_REPLICAS: ErrorCode.COORDINATOR_NOT_AVAILABLE,
};

const scenario: fc.Arbitrary<Scenario> = fc.record({
  partitions: fc.integer({ min: 2, max: 24 }),
  partsPerTurn: fc.constantFrom(1, 2, 3, 200),
  holds: fc.boolean(),
  stable: fc.integer({ min: 0, max: 3 }),
  joiners: fc.integer({ min: 1, max: 24 }),
  refusedAt: fc.uniqueArray(fc.integer({ min: 0, max: 12 }), { minLength: 1, maxLength: 4 }),
  refusal: fc.constantFrom('KAFKA_STORAGE_ERROR' as const, 'NOT_ENOUGH_REPLICAS' as const),
  failover: fc.option(fc.record({ at: fc.integer({ min: 0, max: 12 }), loseTail: fc.boolean() }), { nil: null }),
  stallAt: fc.option(fc.integer({ min: 0, max: 12 }), { nil: null }),
});

/** What a member may be told while leadership moves: find the coordinator again, or wait for its load. */
const MOVED = new Set<number>([ErrorCode.NOT_COORDINATOR, ErrorCode.COORDINATOR_LOAD_IN_PROGRESS]);

const turn = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Every partition an answer assigns, sorted. */
function assigned(response: P.ConsumerGroupHeartbeatResponse): number[] {
  return (response.assignment?.topicPartitions ?? []).flatMap((tp) => tp.partitions).sort((a, b) => a - b);
}

/** A group's members, each with its epoch and partitions, as one comparable line. */
function membersOf(group: ConsumerGroup | undefined): string {
  return [...(group?.members.values() ?? [])]
    .map(
      (m) =>
        `${m.memberId}@${m.memberEpoch}:${[...(m.assignedPartitions.get('orders') ?? [])].sort((a, b) => a - b).join('.')}`,
    )
    .sort()
    .join(' ');
}

async function run(s: Scenario): Promise<string[]> {
  const h = new CoordinatorHarness({
    topics: [{ name: 'orders', partitions: s.partitions }],
    consumerAssignors: [createUniformAssignor()],
    config: { consumerHoldsUnreleasedAnswers: s.holds, consumerHeartbeatPartsPerTurn: s.partsPerTurn },
  });
  await h.settle();
  const context = (memberId: string) => ({ clientId: 'client', clientHost: '/127.0.0.1', connectionId: memberId });
  const beat = (request: P.ConsumerGroupHeartbeatRequest) =>
    h.coordinator.consumerGroupHeartbeat(request, context(request.memberId));
  /** Each member's last answer without error, and what it owns by it. */
  const last = new Map<string, P.ConsumerGroupHeartbeatResponse>();
  const owned = new Map<string, P.TopicPartitions[]>();
  /** Errors other than the refused write's. */
  const problems: string[] = [];
  const heard = (memberId: string, answer: P.ConsumerGroupHeartbeatResponse) => {
    const expected =
      answer.errorCode === TOLD[s.refusal] ||
      (s.failover !== null && MOVED.has(answer.errorCode)) ||
      (s.stallAt !== null && answer.errorCode === ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (answer.errorCode !== ErrorCode.NONE && !expected)
      problems.push(`${memberId}: error ${answer.errorCode} (${answer.errorMessage ?? ''})`);
    if (answer.errorCode !== ErrorCode.NONE) return;
    last.set(memberId, answer);
    if (answer.assignment) owned.set(memberId, answer.assignment.topicPartitions);
  };
  /**
   * The stable members heartbeat what they own, at the epoch each was last told, and are answered
   * within a held answer's longest wait (an answer may wait for partitions another must revoke).
   */
  const stableBeat = async () => {
    const sent = Array.from({ length: s.stable }, (_, i) => {
      const memberId = `s${i}`;
      const epoch = last.get(memberId)?.memberEpoch ?? 0;
      return [
        memberId,
        track(beat(joinOrders(memberId, { memberEpoch: epoch, topicPartitions: owned.get(memberId) ?? [] }))),
      ] as const;
    });
    await h.advance(1100);
    for (const [memberId, answer] of sent) if (answer.done) heard(memberId, answer.value);
  };

  await stableBeat();
  await stableBeat();

  const joiners: [string, Tracked<P.ConsumerGroupHeartbeatResponse>][] = Array.from({ length: s.joiners }, (_, i) => [
    `j${i}`,
    track(beat(joinOrders(`j${i}`))),
  ]);
  const refusals = new Set(s.refusedAt);
  const partition = h.partitionOf('cg');
  // Writes commit at the end of each turn, so a failover finds some not committed yet.
  h.store.autoCommit = false;
  for (let t = 0; t <= Math.max(...s.refusedAt, s.failover?.at ?? 0, s.stallAt ?? 0); t++) {
    if (refusals.has(t)) h.store.failNextAppend(partition, KafkaError.of(s.refusal, 'refused'));
    if (s.failover?.at === t) {
      if (s.failover.loseTail) h.store.truncate(partition, h.store.offsets(partition).highWatermark);
      h.store.elect(partition);
    }
    await turn();
    // Nothing commits past the writes' timeout; they commit at the next turn, their verdict late.
    if (s.stallAt === t) await h.advance(h.config.offsetsCommitTimeoutMs + 1000);
    h.store.commitAll();
  }
  h.store.autoCommit = true;
  h.store.commitAll();
  await h.settle();
  // The stable members revoke what the joiners wait for; held answers then go.
  for (let round = 0; round < 3; round++) await stableBeat();
  await h.advance(2000);
  // A turn reconciles as few as one parked heartbeat: enough turns for every joiner.
  for (let t = 0; t < 4 * s.joiners && joiners.some(([, joined]) => !joined.done); t++) await turn();
  for (const [memberId, joined] of joiners) if (joined.done) heard(memberId, joined.value);

  const group = h.shardOf('cg').consumerGroup('cg');
  for (const [memberId, joined] of joiners) if (!joined.done) problems.push(`${memberId}: never answered`);
  for (const [memberId, answer] of last) {
    const member = group?.member(memberId);
    if (!member) {
      problems.push(`${memberId}: answered at epoch ${answer.memberEpoch} without error, not in the group`);
      continue;
    }
    if (member.memberEpoch !== answer.memberEpoch)
      problems.push(
        `${memberId}: answered at epoch ${answer.memberEpoch}, the group holds it at ${member.memberEpoch}`,
      );
    const holds = [...(member.assignedPartitions.get('orders') ?? [])].sort((a, b) => a - b);
    const told = memberId.startsWith('j') ? assigned(answer) : null;
    if (told && answer.assignment && told.join() !== holds.join())
      problems.push(`${memberId}: told it owns [${told.join()}], the group gives it [${holds.join()}]`);
  }
  // Everything is committed: the group a new coordinator loads from the log is the one this one holds.
  const live = membersOf(group);
  await h.restart();
  const loaded = membersOf(h.shardOf('cg').consumerGroup('cg'));
  if (loaded !== live) problems.push(`the group loaded from the log [${loaded}] is not the one held [${live}]`);
  return problems;
}

jest.setTimeout(120_000);

describe('consumer group heartbeats answered over several turns while appends are refused', () => {
  it("answers every heartbeat, with the refused write's error or describing the member as the group holds it", async () => {
    await fc.assert(
      fc.asyncProperty(scenario, async (s) => {
        expect(await run(s)).toEqual([]);
      }),
      { numRuns: RUNS },
    );
  });
});
