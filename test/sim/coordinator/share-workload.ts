import type { GroupCoordinator } from '@cohort/coordinator';
import { ErrorCode, partitionFor } from '@cohort/protocol';
import { SeededRandom } from '@cohort/replication';
import type { SimCluster } from '../sim-cluster';
import { deleteShareGroup } from './share-group-deletion';
import { ShareLedger } from './share-ledger';
import { ShareStartLedger } from './share-start-ledger';
import type { SimCoordinators } from './sim-coordinators';

export const SHARE_TOPIC = 'jobs';
export const SHARE_PARTITIONS = 2;
const GROUP = 'sg-0';
const ACCEPT = 1;
const RELEASE = 2;
const REJECT = 3;

/**
 * A KIP-932 share group beside the other groups of a coordinator run: a producer reporting the end
 * offsets of `jobs` as it grows, and three workers that join with ShareGroupHeartbeat, lease ranges with
 * ShareAcquire, work on each offset and acknowledge it with ShareAcknowledge (mostly ACCEPT, sometimes
 * RELEASE or REJECT; now and then only after the lock ran out). What they are told goes to the share
 * ledger, whose invariants hold through the coordinator run's leader kills and network partitions.
 * Now and then an operator has every worker leave, deletes the group (DeleteGroups, its share state
 * with it) and lets them join again: the group of the same id is then a new one.
 */
export class ShareWorkload {
  readonly ledger: ShareLedger;
  /** SPSO and the state epoch, from the committed log and the coordinator that leads (every step). */
  readonly starts = new ShareStartLedger();
  /** Operator redeliveries of dead letters answered NONE, and the offsets they brought back. */
  readonly redeliveries = { answered: 0, offsets: 0 };
  private readonly rng: SeededRandom;
  private stopped = false;
  private readonly memberIds = [0, 1, 2].map((i) => `${GROUP}-w${i}`);
  private endOffsets = Array.from({ length: SHARE_PARTITIONS }, () => 0);
  /** Workers an operator asked to leave (the group is about to be deleted), and those whose leave was answered. */
  private readonly stayOut = new Set<string>();
  private readonly outside = new Set<string>();
  /** DeleteGroups sent, and how they ended (`share-group-deletion.ts`). */
  readonly deletions = { sent: 0, deleted: 0, refused: 0, maybe: 0 };
  private readonly deleteRng: SeededRandom;

  constructor(
    private readonly sim: SimCluster,
    private readonly coordinators: SimCoordinators,
    seed: number,
  ) {
    this.rng = new SeededRandom(seed ^ 0x7f4a7c15);
    // The deletions draw from their own stream, so the workers' schedule between them stays as it was.
    this.deleteRng = new SeededRandom(seed ^ 0x3c6ef372);
    const { groupShareRecordLockDurationMs, groupSharePartitionMaxRecordLocks, groupShareDeliveryCountLimit } =
      coordinators.config;
    this.ledger = new ShareLedger(
      () => sim.clock.now(),
      groupShareRecordLockDurationMs,
      groupSharePartitionMaxRecordLocks,
      groupShareDeliveryCountLimit,
    );
  }

  start(): void {
    void this.produce();
    for (const memberId of this.memberIds) void this.work(memberId);
    void this.operate();
    void this.recreate();
  }

  /** After every step: the share group as the coordinator that leads serves it (members, SPSO). */
  check(): void {
    const now = this.coordinators.sharePartitionsNow(GROUP);
    if (now === 'unavailable') return;
    // A member the coordinator fenced (its session ran out) has lost its leases there, as KIP-932 says,
    // before it hears of it at its next heartbeat.
    for (const memberId of this.memberIds)
      if (!now.members.includes(memberId)) this.ledger.memberGone(memberId, now.grantor);
    for (const p of now.partitions) this.starts.servedState(now.incarnation, p.tp, p.stateEpoch, p.startOffset);
  }

  get violations(): string[] {
    return [...this.ledger.violations, ...this.starts.violations];
  }

  /**
   * An operator who now and then sends every dead letter of a partition back to the workers: those
   * below SPSO bring it back under a new state epoch, the one way SPSO may move back.
   */
  private async operate(): Promise<void> {
    while (!this.stopped) {
      await this.sleep(1_000 + this.rng.int(3_000));
      if (this.stopped) return;
      const partition = this.rng.int(SHARE_PARTITIONS);
      const tp = `${SHARE_TOPIC}-${partition}`;
      const last = Math.max(0, this.endOffsets[partition] - 1);
      this.ledger.redeliverySent(tp, 0, last);
      const r = await this.call((c) =>
        c
          .redeliverDeadLetters({ groupId: GROUP, topic: SHARE_TOPIC, partition, firstOffset: 0, lastOffset: last })
          .catch((e: unknown) => ({ errorCode: -1, redelivered: 0, error: String(e) })),
      );
      if (!r.ok) continue;
      this.trace(`operator redelivered ${tp}@0-${last}: error ${r.value.errorCode}, ${r.value.redelivered} offsets`);
      if (r.value.errorCode === ErrorCode.NONE) {
        this.redeliveries.answered++;
        this.redeliveries.offsets += r.value.redelivered;
      }
    }
  }

  /**
   * An operator who now and then deletes the share group and lets its workers create it again: every
   * worker leaves, DeleteGroups (retried while the coordinator moves), and the workers join again; often
   * one of them starts joining while the deletion is still being written.
   */
  private async recreate(): Promise<void> {
    while (!this.stopped) {
      await this.sleep(4_000 + this.deleteRng.int(8_000));
      if (this.stopped) return;
      for (const memberId of this.memberIds) this.stayOut.add(memberId);
      const deadline = this.sim.clock.now() + 4_000;
      while (this.outside.size < this.memberIds.length && this.sim.clock.now() < deadline && !this.stopped)
        await this.sleep(50);
      const racer = this.deleteRng.next() < 0.5 ? this.memberIds[this.deleteRng.int(this.memberIds.length)] : undefined;
      if (racer) this.sim.clock.schedule(1 + this.deleteRng.int(40), () => this.letIn(racer));
      this.deletions.sent++;
      this.starts.deletionSent();
      const { outcome, answers } = await deleteShareGroup(
        GROUP,
        (request) => this.call(request),
        () => this.sim.clock.now(),
        (ms) => this.sleep(ms),
      );
      this.trace(
        `operator deleted ${GROUP} (${this.outside.size} workers out): ${outcome.kind} after ${answers.join(', ')}`,
      );
      this.deletions[outcome.kind]++;
      if (outcome.kind === 'deleted') this.ledger.groupDeleted(outcome.at, true);
      else if (outcome.kind === 'maybe') this.ledger.groupDeleted(this.sim.clock.now(), false);
      this.starts.deletionAnswered(GROUP, outcome.kind);
      for (const memberId of this.memberIds) this.letIn(memberId);
    }
  }

  private letIn(memberId: string): void {
    this.stayOut.delete(memberId);
    this.outside.delete(memberId);
  }

  /** A worker the operator keeps out leaves the group (epoch -1) until its leave is answered. */
  private async leave(memberId: string, context: { clientId: string; clientHost: string; connectionId: string }) {
    if (this.outside.has(memberId)) return;
    const r = await this.call((c) =>
      c.shareGroupHeartbeat(
        { groupId: GROUP, memberId, memberEpoch: -1, subscribedTopicNames: [SHARE_TOPIC] },
        context,
      ),
    );
    const code = r.ok ? r.value.errorCode : undefined;
    this.trace(`${memberId} leaves: ${r.ok ? `error ${code}` : r.reason}`);
    if (
      this.stayOut.has(memberId) &&
      (code === ErrorCode.NONE || code === ErrorCode.UNKNOWN_MEMBER_ID || code === ErrorCode.GROUP_ID_NOT_FOUND)
    )
      this.outside.add(memberId);
  }

  stop(): void {
    this.stopped = true;
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.sim.clock.schedule(ms, resolve));
  }

  private async produce(): Promise<void> {
    while (!this.stopped) {
      const reports = this.endOffsets.map((end, partition) => ({ partition, endOffset: end + this.rng.int(4) }));
      this.endOffsets = reports.map((r) => r.endOffset);
      await this.coordinators.topics.setEndOffsets(SHARE_TOPIC, reports);
      await this.sleep(100);
    }
  }

  private call<R>(request: (c: GroupCoordinator) => Promise<R>) {
    return this.coordinators.call(this.coordinators.coordinatorNodeFor(GROUP), request, 5_000);
  }

  /** The coordinator that answers now, as a lease's grantor: leader and leader epoch of the group's partition. */
  private grantor(): number {
    const state = this.sim.state(partitionFor(GROUP, this.coordinators.config.numPartitions));
    return state.leader * 1_000_000 + state.leaderEpoch;
  }

  private async work(memberId: string): Promise<void> {
    let epoch = 0;
    let nextHeartbeat = 0;
    const context = { clientId: memberId, clientHost: 'sim', connectionId: `${GROUP}/${memberId}` };
    while (!this.stopped) {
      if (this.stayOut.has(memberId)) {
        await this.leave(memberId, context);
        epoch = 0;
        nextHeartbeat = 0;
        await this.sleep(50);
        continue;
      }
      if (this.sim.clock.now() >= nextHeartbeat) {
        const r = await this.call((c) =>
          c.shareGroupHeartbeat(
            { groupId: GROUP, memberId, memberEpoch: epoch, subscribedTopicNames: [SHARE_TOPIC] },
            context,
          ),
        );
        if (r.ok && r.value.errorCode === ErrorCode.NONE) {
          if (r.value.memberEpoch !== epoch)
            this.trace(`${memberId} heartbeat: epoch ${epoch} -> ${r.value.memberEpoch}`);
          epoch = r.value.memberEpoch;
          nextHeartbeat = this.sim.clock.now() + r.value.heartbeatIntervalMs;
        } else {
          this.trace(`${memberId} heartbeat at epoch ${epoch}: ${r.ok ? `error ${r.value.errorCode}` : r.reason}`);
          if (
            r.ok &&
            (r.value.errorCode === ErrorCode.FENCED_MEMBER_EPOCH || r.value.errorCode === ErrorCode.UNKNOWN_MEMBER_ID)
          )
            epoch = 0;
          nextHeartbeat = this.sim.clock.now() + 100;
        }
      }
      if (epoch > 0) await this.acquire(memberId, context);
      await this.sleep(20 + this.rng.int(60));
    }
  }

  private async acquire(memberId: string, context: { clientId: string; clientHost: string; connectionId: string }) {
    const sentAt = this.sim.clock.now();
    const grantor = this.grantor();
    this.ledger.acquireSent(grantor);
    const r = await this.call((c) =>
      c.shareAcquire({ groupId: GROUP, memberId, maxRecords: 5, maxWaitMs: 0 }, context),
    );
    this.ledger.acquireAnswered(r.ok && r.value.errorCode === ErrorCode.NONE);
    if (!r.ok || r.value.errorCode !== ErrorCode.NONE) return;
    for (const p of r.value.partitions) {
      const tp = `${p.topic}-${p.partition}`;
      for (const lease of p.leases) {
        this.trace(
          `${memberId} leased ${tp}@${lease.firstOffset}-${lease.lastOffset} (delivery ${lease.deliveryCount}, sent ${this.sim.clock.now() - sentAt} ms ago to node ${Math.floor(grantor / 1_000_000)} in leader epoch ${grantor % 1_000_000})`,
        );
        this.ledger.leased(memberId, grantor, sentAt, tp, lease.firstOffset, lease.lastOffset, lease.deliveryCount);
        void this.finish(memberId, context, p.topic, p.partition, lease.firstOffset, lease.lastOffset);
      }
    }
  }

  /** Works on a lease, then acknowledges it (sometimes only after its lock ran out). */
  private async finish(
    memberId: string,
    context: { clientId: string; clientHost: string; connectionId: string },
    topic: string,
    partition: number,
    first: number,
    last: number,
  ): Promise<void> {
    const lockMs = this.coordinators.config.groupShareRecordLockDurationMs;
    await this.sleep(this.rng.next() < 0.05 ? lockMs + this.rng.int(lockMs) : 10 + this.rng.int(200));
    if (this.stopped) return;
    const roll = this.rng.next();
    const type = roll < 0.75 ? ACCEPT : roll < 0.9 ? RELEASE : REJECT;
    const tp = `${topic}-${partition}`;
    const grantor = this.grantor();
    const letGo = this.ledger.letGo(memberId, tp, first, last, grantor);
    if (type === REJECT) this.ledger.rejecting(tp, first, last);
    const r = await this.call((c) =>
      c.shareAcknowledge(
        {
          groupId: GROUP,
          memberId,
          acknowledgements: [
            { topic, partition, batches: [{ firstOffset: first, lastOffset: last, acknowledgeTypes: [type] }] },
          ],
        },
        context,
      ),
    );
    if (!r.ok || r.value.errorCode !== ErrorCode.NONE) return;
    const answer = r.value.partitions.find((p) => p.topic === topic && p.partition === partition);
    this.trace(`${memberId} ack ${type} ${tp}@${first}-${last}: ${answer?.errorCode}`);
    if (answer?.errorCode === ErrorCode.NONE)
      this.ledger.acknowledged(memberId, tp, first, last, type, this.grantor() === grantor ? grantor : -1, letGo);
  }

  private trace(line: string): void {
    this.sim.trace.add(this.sim.clock.now(), line);
  }

  summary(): string {
    const s = this.ledger.stats;
    const t = this.starts.stats;
    const d = this.deletions;
    return `share group: deletions=${d.sent} (deleted ${d.deleted}, refused ${d.refused}, maybe ${d.maybe}) leased=${s.leased} accepted=${s.accepted} released=${s.released} rejected=${s.rejected} redeliveries=${s.redeliveries} dead letters redelivered=${this.redeliveries.offsets} (${this.redeliveries.answered} answers) committed states=${t.committedStates} state epoch rises=${t.epochRises} served reads=${t.servedReads}`;
  }
}
