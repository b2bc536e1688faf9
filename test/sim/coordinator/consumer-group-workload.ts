import { ErrorCode } from '@cohort/protocol';
import { SeededRandom } from '@cohort/replication';
import type { SimCluster } from '../sim-cluster';
import type { CommitLedger } from './commit-ledger';
import { OwnershipLedger } from './ownership-ledger';
import { type BrokenMember, CONSUMER_TOPICS, type MemberEnv, SimConsumerMember } from './sim-consumer-member';
import type { SimCoordinators } from './sim-coordinators';

/** Answers that only say "not here" or "not yet". */
const RETRIABLE = new Set<number>([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
]);

/**
 * KIP-848 consumer groups beside the classic ones in a coordinator run: `groups` groups of 2–4
 * consumer-protocol members over two topics, with churn (members leave, die without leaving, join),
 * pauses long enough to be fenced by the session timeout, and a verifier reading every group's offsets
 * and description from whichever node coordinates it. The ownership ledger is checked after every step.
 */
export class ConsumerGroupWorkload {
  readonly ownership: OwnershipLedger;
  readonly violations: string[] = [];
  private readonly members: SimConsumerMember[] = [];
  private readonly env: MemberEnv;
  private readonly groupIds: string[];
  private nextMember = 0;
  /** Set when the faults end: no more disturbances. */
  private calm = false;
  verifiedAnswers = 0;
  churn = { pauses: 0, leaves: 0, deaths: 0, joins: 0 };

  constructor(
    private readonly sim: SimCluster,
    private readonly coordinators: SimCoordinators,
    offsets: CommitLedger,
    seed: number,
    groups: number,
    broken?: BrokenMember,
  ) {
    this.ownership = new OwnershipLedger(() => sim.clock.now());
    // A random source of its own, so a consumer run keeps the classic groups' draws.
    this.env = {
      sim,
      coordinators,
      offsets,
      ownership: this.ownership,
      rng: new SeededRandom(seed ^ 0x5bd1e995),
      violations: this.violations,
      broken,
    };
    this.groupIds = Array.from({ length: groups }, (_, i) => `cg-${i}`);
  }

  /** Starts the members, and the disturbances every 0.5–2 s on their own clock (not in step with leader kills). */
  start(): void {
    for (const groupId of this.groupIds) {
      const size = 2 + this.env.rng.int(3);
      for (let i = 0; i < size; i++) this.join(groupId);
    }
    const next = () => {
      if (this.calm) return;
      this.disturb();
      this.sim.clock.schedule(500 + this.env.rng.int(1_500), next);
    };
    this.sim.clock.schedule(500 + this.env.rng.int(1_500), next);
  }

  /** The per-step check. */
  check(): void {
    this.ownership.check((groupId) => this.coordinators.consumerGroupNow(groupId));
  }

  get allViolations(): string[] {
    return [...this.ownership.violations, ...this.violations];
  }

  private join(groupId: string): void {
    const member = new SimConsumerMember(groupId, `${groupId}-m${this.nextMember++}`, this.env);
    this.members.push(member);
    member.start();
    this.churn.joins++;
  }

  /** One random client-side fault or change among the consumer-protocol members. */
  private disturb(): void {
    const rng = this.env.rng;
    const live = this.members.filter((m) => m.active);
    if (live.length === 0) return;
    const member = live[rng.int(live.length)];
    const roll = rng.next();
    if (roll < 0.5) {
      // Often past the 3 s session: the member is fenced and its partitions go to the others meanwhile.
      member.pause(500 + rng.int(5_500));
      this.churn.pauses++;
    } else if (roll < 0.75) {
      member.leave();
      this.churn.leaves++;
      this.join(member.groupId);
    } else {
      member.stop();
      this.churn.deaths++;
      this.join(member.groupId);
    }
  }

  /** Reads every group's offsets and description from its coordinator and checks them against the ledgers. */
  async verify(where: string, offsets: CommitLedger): Promise<void> {
    const keys = Object.entries(CONSUMER_TOPICS).flatMap(([t, n]) => Array.from({ length: n }, (_, p) => `${t}-${p}`));
    for (const groupId of this.groupIds) {
      const node = this.coordinators.coordinatorNodeFor(groupId);
      const before = new Map(keys.map((k) => [k, offsets.snapshot(groupId, k)]));
      const fetched = await this.coordinators.call(
        node,
        (c) =>
          c.offsetFetch({
            groupId,
            topics: Object.entries(CONSUMER_TOPICS).map(([name, n]) => ({
              name,
              partitionIndexes: Array.from({ length: n }, (_, p) => p),
            })),
          }),
        5_000,
      );
      if (fetched.ok && fetched.value.errorCode === ErrorCode.NONE) {
        this.verifiedAnswers++;
        for (const t of fetched.value.topics)
          for (const p of t.partitions) {
            const key = `${t.name}-${p.partitionIndex}`;
            if (p.errorCode !== ErrorCode.NONE)
              this.violations.push(`${where} node ${node}: ${groupId}/${key} answered ${p.errorCode}`);
            else offsets.checkFetched(groupId, key, p.committedOffset, before.get(key)!, `${where} node ${node}`);
          }
      } else if (fetched.ok && !RETRIABLE.has(fetched.value.errorCode)) {
        this.violations.push(`${where} node ${node}: OffsetFetch of ${groupId} answered ${fetched.value.errorCode}`);
      }
      const ackedEpoch = this.ownership.ackedEpoch(groupId);
      const described = await this.coordinators.call(
        node,
        (c) => c.consumerGroupDescribe({ groupIds: [groupId] }),
        5_000,
      );
      const group = described.ok ? described.value.groups[0] : undefined;
      if (group?.errorCode === ErrorCode.NONE) {
        this.verifiedAnswers++;
        this.ownership.checkDescribed(group, ackedEpoch, `${where} node ${node}`);
      } else if (
        group &&
        !RETRIABLE.has(group.errorCode) &&
        !(group.errorCode === ErrorCode.GROUP_ID_NOT_FOUND && ackedEpoch === 0)
      ) {
        this.violations.push(`${where} node ${node}: ConsumerGroupDescribe of ${groupId} answered ${group.errorCode}`);
      }
    }
  }

  /**
   * After the faults: no more churn, every member wakes, and the groups must converge — every member
   * settled, every partition of both topics owned by exactly one member, no zombie left unaware.
   */
  /** The fault phase is over: no more disturbances. */
  quiet(): void {
    this.calm = true;
  }

  async settle(maxMs: number): Promise<void> {
    this.calm = true;
    const keys = Object.entries(CONSUMER_TOPICS).flatMap(([t, n]) => Array.from({ length: n }, (_, p) => `${t}-${p}`));
    const converged = () =>
      this.members.filter((m) => m.active).every((m) => m.settled) &&
      this.ownership.openZombies().length === 0 &&
      this.groupIds.every((g) => keys.every((k) => this.ownership.believers(g, k).length === 1));
    if (!(await this.sim.runUntil(converged, maxMs))) {
      const owners = this.groupIds.flatMap((g) =>
        keys.map((k) => `${g}/${k}: ${this.ownership.believers(g, k).join(',') || 'nobody'}`),
      );
      this.violations.push(
        `the consumer groups did not converge within ${maxMs} ms after the faults: ${[
          ...this.ownership.openZombies(),
          ...owners,
        ].join('; ')}`,
        ...this.groupIds.map((g) => `at its coordinator ${this.atCoordinator(g)}`),
      );
    }
  }

  /** A group as its coordinator holds it now: each member's epoch, state, assigned and pending partitions. */
  private atCoordinator(groupId: string): string {
    const group = this.coordinators.consumerGroupNow(groupId);
    if (group === 'unavailable' || !group) return `${groupId}: ${group ?? 'none'}`;
    const list = (m: ReadonlyMap<string, ReadonlySet<number>>) =>
      [...m].flatMap(([t, ps]) => [...ps].map((p) => `${t}-${p}`)).join(',') || '-';
    const members = [...group.members.values()].map(
      (m) =>
        `${m.memberId}@${m.memberEpoch}/${m.state} assigned ${list(m.assignedPartitions)} revoking ${list(m.partitionsPendingRevocation)} target ${list(group.targetAssignmentOf(m.memberId))}`,
    );
    return `${groupId} epoch ${group.groupEpoch}/${group.assignmentEpoch} ${group.state}: ${members.join('; ')}`;
  }

  stop(): void {
    for (const m of this.members) if (m.active) m.stop();
  }

  summary(): string {
    const s = this.ownership.stats;
    const pushes = this.members.reduce((n, m) => n + m.heartbeatNowPushes, 0);
    const retried = this.members.reduce((n, m) => n + m.retriedAtOnce, 0);
    return (
      `consumer groups: ${this.groupIds.length}, members joined=${this.churn.joins} left=${this.churn.leaves} died=${this.churn.deaths} ` +
      `paused=${this.churn.pauses} fenced=${s.fences} zombie overlaps=${s.overlaps} zombie commits refused=${s.zombieCommitsRefused} ` +
      `acked heartbeats=${s.acknowledgedHeartbeats} heartbeats given up and sent again=${retried} HeartbeatNow=${pushes} described=${s.described}`
    );
  }
}
