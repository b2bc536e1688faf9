import { KafkaError, ErrorCode } from '@cohort/protocol';
import { SeededRandom } from '@cohort/replication';
import type { BrokenRule } from '../broken-rules';
import { InvariantChecker } from '../invariant-checker';
import { SimCluster } from '../sim-cluster';
import { CommitLedger } from './commit-ledger';
import { ConsumerGroupWorkload } from './consumer-group-workload';
import { BROKEN_SHARE_RULES, type BrokenShareRule } from './broken-share-rules';
import type { BrokenMember } from './sim-consumer-member';
import { ShareWorkload } from './share-workload';
import { SimConsumer } from './sim-consumer';
import { SimCoordinators } from './sim-coordinators';

export interface CoordinatorRunResult {
  seed: number;
  violations: string[];
  ledger: CommitLedger;
  leaderKills: number;
  /** Leaders cut off the network past their session (consumer runs only). */
  leaderIsolations: number;
  trace: string;
  steps: number;
  /** Answers the verifier checked against the ledger (offsets read with NONE, groups described). */
  verifiedAnswers: number;
  /** The KIP-848 groups run beside the classic ones, if any were asked for. */
  consumer?: ConsumerGroupWorkload;
  /** The KIP-932 share group, if one was asked for. */
  share?: ShareWorkload;
}

/** What a coordinator may answer while leadership moves or it loads: the client retries elsewhere. */
const RETRIABLE = new Set<number>([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
]);
const RETRIABLE_NAMES = new Set(['NOT_COORDINATOR', 'COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE']);

/**
 * The group coordinator on replicated partitions under commit load while leaders are killed: groups
 * commit ever larger offsets, the leader of a random offsets partition is crashed (sometimes with a
 * power cut) and restarted again and again, and a verifier keeps asking the current coordinator for
 * every group's offsets and assignment. Nothing acknowledged may ever be missing.
 */
export async function runCoordinatorSeed(
  seed: number,
  options: {
    faultPhaseMs?: number;
    groups?: number;
    /** KIP-848 groups of consumer-protocol members run beside the classic ones. */
    consumerGroups?: number;
    brokenRule?: BrokenRule;
    brokenMember?: BrokenMember;
    /** A KIP-932 share group of three workers besides. */
    shareGroup?: boolean;
    /** A share-partition rule broken for this run (the share checks must catch it). */
    brokenShare?: BrokenShareRule;
    /** Parked consumer heartbeats a coordinator reconciles a turn (`consumerHeartbeatPartsPerTurn`; 200 when unset). */
    partsPerTurn?: number;
  } = {},
): Promise<CoordinatorRunResult> {
  const restore = options.brokenShare ? BROKEN_SHARE_RULES[options.brokenShare]() : undefined;
  try {
    return await runSeed(seed, options);
  } finally {
    restore?.();
  }
}

async function runSeed(
  seed: number,
  options: Parameters<typeof runCoordinatorSeed>[1] & object,
): Promise<CoordinatorRunResult> {
  const rng = new SeededRandom(seed ^ 0x2545f491);
  const sim = new SimCluster({
    seed,
    nodes: 3,
    config: { numPartitions: 3, logFlushPolicy: rng.next() < 0.5 ? 'always' : 'replicated' },
    brokenRule: options.brokenRule,
  });
  const checker = new InvariantChecker(sim);
  let consumer: ConsumerGroupWorkload | undefined;
  let share: ShareWorkload | undefined;
  sim.afterEachStep = () => {
    checker.check();
    consumer?.check();
    share?.check();
  };
  await sim.start();
  const coordinators = new SimCoordinators(
    sim,
    options.partsPerTurn === undefined ? {} : { consumerHeartbeatPartsPerTurn: options.partsPerTurn },
  );
  coordinators.sync();
  const ledger = new CommitLedger();
  if (options.consumerGroups) {
    consumer = new ConsumerGroupWorkload(sim, coordinators, ledger, seed, options.consumerGroups, options.brokenMember);
    consumer.start();
  }
  if (options.shareGroup) {
    share = new ShareWorkload(sim, coordinators, seed);
    checker.onCommitted = (partition, offset, key, value) =>
      share?.starts.committedRecord(partition, offset, key, value);
  }
  share?.start();
  const violationCount = () =>
    (share?.violations.length ?? 0) + ledger.violations.length + (consumer?.allViolations.length ?? 0);
  const groups = Array.from({ length: options.groups ?? 6 }, (_, i) => `group-${i}`);
  const consumers = groups.map((g) => new SimConsumer(g, sim, coordinators, ledger, rng));
  consumers.forEach((c) => c.start());

  let stopVerifier = false;
  let verifiedAnswers = 0;
  const verify = async (where: string): Promise<void> => {
    for (const groupId of groups) {
      const node = coordinators.coordinatorNodeFor(groupId);
      const before = [0, 1, 2, 3].map((p) => ledger.snapshot(groupId, p));
      const syncedBefore = ledger.hasAckedSync(groupId);
      const fetched = await coordinators.call(
        node,
        (c) => c.offsetFetch({ groupId, topics: [{ name: 'orders', partitionIndexes: [0, 1, 2, 3] }] }),
        5_000,
      );
      if (fetched.ok && fetched.value.errorCode === ErrorCode.NONE) {
        verifiedAnswers++;
        for (const p of fetched.value.topics[0]?.partitions ?? []) {
          if (p.errorCode !== ErrorCode.NONE)
            ledger.violations.push(`${where} node ${node}: ${groupId}/${p.partitionIndex} answered ${p.errorCode}`);
          else
            ledger.checkFetched(
              groupId,
              p.partitionIndex,
              p.committedOffset,
              before[p.partitionIndex],
              `${where} node ${node}`,
            );
        }
      } else if (fetched.ok && !RETRIABLE.has(fetched.value.errorCode)) {
        // Anything but "not here / not yet" is a coordinator failing a client that did nothing wrong.
        ledger.violations.push(`${where} node ${node}: OffsetFetch of ${groupId} answered ${fetched.value.errorCode}`);
      }
      const described = await coordinators.call(
        node,
        (c) =>
          c.describeGroup(groupId).then(
            (group) => ({ group, failure: undefined }),
            // A group nobody joined yet does not exist; once a SyncGroup was acknowledged it must.
            (e: unknown) => ({
              group: null,
              failure:
                e instanceof KafkaError &&
                (RETRIABLE_NAMES.has(e.errorName) || (e.errorName === 'GROUP_ID_NOT_FOUND' && !syncedBefore))
                  ? undefined
                  : String(e),
            }),
          ),
        5_000,
      );
      if (described.ok && described.value.failure !== undefined) {
        ledger.violations.push(
          `${where} node ${node}: DescribeGroups of ${groupId} failed: ${described.value.failure}`,
        );
      } else if (described.ok && described.value.group) {
        verifiedAnswers++;
        const group = described.value.group;
        ledger.checkGroup(
          groupId,
          group.generationId,
          group.members.map((m) => m.assignment),
          `${where} node ${node}`,
        );
      }
    }
  };
  void (async () => {
    while (!stopVerifier) {
      await verify('verifier');
      await consumer?.verify('verifier', ledger);
      await new Promise<void>((resolve) => sim.clock.schedule(300, resolve));
    }
  })();

  let leaderKills = 0;
  let leaderIsolations = 0;
  const end = sim.clock.now() + (options.faultPhaseMs ?? 40_000);
  while (sim.clock.now() < end && checker.ok && violationCount() === 0) {
    await sim.run(1_500 + rng.int(2_500));
    const partition = rng.int(sim.config.numPartitions);
    const leader = sim.state(partition).leader;
    if (leader < 0 || !sim.isUp(leader)) continue;
    const healthy =
      sim.upNodes().length === sim.nodeIds.length &&
      [...sim.statesNow().values()].every((s) => s.isr.length === s.replicas.length);
    if (consumer && rng.next() < 0.3) {
      // A network partition: the leader is cut off from its followers and the store for longer than its
      // 3 s session, so another replica takes over while it still believes it leads and serves clients.
      sim.isolate(leader);
      leaderIsolations++;
      await sim.run(3_000 + rng.int(3_000));
      sim.heal();
      continue;
    }
    const powerLoss = healthy && sim.config.logFlushPolicy === 'replicated' && rng.next() < 0.3;
    sim.crash(leader, { powerLoss });
    leaderKills++;
    coordinators.sync();
    await sim.run(300 + rng.int(2_000));
    await sim.restart(leader);
    coordinators.sync();
  }
  consumer?.quiet();
  sim.heal();
  for (const id of sim.nodeIds) if (!sim.isUp(id)) sim.startNode(id);
  coordinators.sync();
  const converged = await sim.runUntil(
    () => sim.fullyReplicated() && [0, 1, 2].every((p) => coordinators.coordinator(sim.state(p).leader)?.isServing(p)),
    60_000,
  );
  if (!converged)
    ledger.violations.push(
      'the cluster did not converge (every replica in sync, every partition served) within 60 s after the faults',
    );
  await sim.run(3_000);
  await consumer?.settle(30_000);
  consumers.forEach((c) => c.stop());
  consumer?.stop();
  share?.stop();
  stopVerifier = true;
  await sim.run(1_000);
  // The clock keeps running while the final reads are answered: a describe waits for the writes before
  // it to commit (a share lock that ran out at the last moment is one), which needs the replicas' fetches.
  let verified = false;
  void (async () => {
    await verify('final');
    await consumer?.verify('final', ledger);
    verified = true;
  })();
  if (!(await sim.runUntil(() => verified, 30_000)))
    ledger.violations.push('the final verification was not answered within 30 s of virtual time');
  checker.final();
  if (verifiedAnswers === 0) ledger.violations.push('the verifier never got an answer to check');
  if (consumer && consumer.verifiedAnswers === 0)
    ledger.violations.push('the verifier never got a consumer group answer to check');
  return {
    seed,
    violations: [
      ...checker.violations,
      ...ledger.violations,
      ...(consumer?.allViolations ?? []),
      ...(share?.violations ?? []),
    ],
    ledger,
    leaderKills,
    leaderIsolations,
    trace: sim.trace.dump(),
    steps: sim.clock.steps,
    verifiedAnswers,
    consumer,
    share,
  };
}
