import type { GroupCoordinator } from '@cohort/coordinator';
import type { TopicPartitions } from '@cohort/protocol';
import { ErrorCode, javaStringHashCode, kafkaAbs } from '@cohort/protocol';
import type { SeededRandom } from '@cohort/replication';
import type { SimCluster } from '../sim-cluster';
import type { CommitLedger } from './commit-ledger';
import type { OwnershipLedger } from './ownership-ledger';
import { commitTopics, keyOf, keysOf, split, toList } from './partition-keys';
import type { CallOutcome, SimCoordinators } from './sim-coordinators';

/** The topics every consumer-protocol member subscribes to, with their partition counts. */
export const CONSUMER_TOPICS: Readonly<Record<string, number>> = { orders: 4, clicks: 6 };
/** Each member's rebalance timeout: a revocation slower than this gets it fenced. */
export const MEMBER_REBALANCE_TIMEOUT_MS = 2_000;

/** "Not here" or "not yet": the client finds the coordinator again and retries after a back-off. */
const RETRIABLE = new Set<number>([
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.REQUEST_TIMED_OUT,
]);
const FENCED = new Set<number>([ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID]);

/** What the member shares with the run: the cluster, its coordinators, the ledgers, its random source. */
export interface MemberEnv {
  sim: SimCluster;
  coordinators: SimCoordinators;
  offsets: CommitLedger;
  ownership: OwnershipLedger;
  rng: SeededRandom;
  violations: string[];
  /** A deliberately broken client, to show the checks catch it (never used by a normal run). */
  broken?: BrokenMember;
}

/**
 * `acknowledge-before-revoking`: the member reports the new assignment in a heartbeat before its
 * revocation finished, so the coordinator frees partitions the member still works on.
 */
export type BrokenMember = 'acknowledge-before-revoking';

interface Owned {
  /** The next offset to commit; null until the committed offset was fetched. */
  position: number | null;
  committed: number;
}

/**
 * A member of a KIP-848 consumer group as Kafka's client (`ConsumerMembershipManager`) drives it: it
 * joins at epoch 0, heartbeats at the interval it is told (at once on HeartbeatNow), reconciles towards
 * each assignment it receives — revoking first (after committing what it consumed), then taking the
 * new partitions and fetching their committed offsets — and acknowledges in its next heartbeat with the
 * partitions it owns. It commits with its member epoch; when fenced (110 or 25) it drops everything
 * without committing and rejoins at 0 under the same id; it leaves with -1. It can be paused (a GC
 * pause or a cut connection: nothing is sent, nothing dropped) and can be slow to revoke.
 */
export class SimConsumerMember {
  readonly connectionId: string;
  private epoch = 0;
  private state: 'joining' | 'member' | 'leaving' | 'gone' = 'joining';
  /** What the member owns as it believes it (partitions revoked leave at once, new ones come at the end). */
  private readonly owned = new Map<string, Owned>();
  /** What its heartbeats report: the assignment of its last finished reconciliation. */
  private reported: string[] = [];
  private target: TopicPartitions[] | null = null;
  /** Bumped on every fence and on leaving: work started before belongs to a dead membership. */
  private incarnation = 0;
  private reconciling = false;
  private heartbeatInFlight = false;
  private commitInFlight = false;
  /** The owned partitions changed since a heartbeat last reported them. */
  private ownedChanged = true;
  /** After an error or a lost answer, Kafka's client sends every field again (a full request). */
  private resendAll = true;
  private heartbeatNow = false;
  private intervalMs = 500;
  private nextHeartbeatAt = 0;
  private nextCommitAt = 0;
  private pausedUntil = 0;
  heartbeatNowPushes = 0;
  /** Heartbeats sent, and those given up and sent again at once (see `givesUp`). */
  private heartbeats = 0;
  retriedAtOnce = 0;

  constructor(
    readonly groupId: string,
    readonly memberId: string,
    private readonly env: MemberEnv,
  ) {
    this.connectionId = `${groupId}/${memberId}`;
  }

  get active(): boolean {
    return this.state !== 'gone';
  }

  start(): void {
    this.env.coordinators.onHeartbeatNow(this.connectionId, () => {
      this.heartbeatNowPushes++;
      this.heartbeatNow = true;
    });
    void this.run();
  }

  /** Nothing leaves the member for `ms` (a GC pause or a cut connection); it keeps what it believes it owns. */
  pause(ms: number): void {
    this.trace(`paused for ${ms} ms`);
    this.pausedUntil = Math.max(this.pausedUntil, this.now() + ms);
  }

  /** Kafka's unsubscribe: revoke everything (committing first), then heartbeat -1. */
  leave(): void {
    if (this.state === 'gone' || this.state === 'leaving') return;
    this.state = 'leaving';
    this.trace('leaves');
    this.incarnation++;
    void this.leaveGroup();
  }

  /** Stops without leaving (the process dies); its session expires at the coordinator. */
  stop(): void {
    if (this.state !== 'gone') this.trace('stops');
    this.state = 'gone';
    this.incarnation++;
    this.target = null;
    this.env.coordinators.onHeartbeatNow(this.connectionId, undefined);
    // A dead process owns nothing.
    for (const key of this.owned.keys()) this.env.ownership.release(this.groupId, this.memberId, key);
    this.owned.clear();
  }

  /** Whether its last heartbeat was acknowledged with everything it owns reconciled. */
  get settled(): boolean {
    return (
      this.state === 'member' && !this.reconciling && this.target === null && !this.ownedChanged && !this.resendAll
    );
  }

  private now(): number {
    return this.env.sim.clock.now();
  }

  private trace(line: string): void {
    this.env.sim.trace.add(this.now(), `${this.connectionId}: ${line}`);
  }

  private async run(): Promise<void> {
    while (this.state === 'joining' || this.state === 'member') {
      if (this.now() >= this.pausedUntil) {
        // A paused member's pending commit goes out as it wakes, racing its first heartbeat.
        if (this.state === 'member' && !this.commitInFlight && this.now() >= this.nextCommitAt)
          void this.commit([...this.owned.keys()]);
        if (!this.heartbeatInFlight && (this.heartbeatNow || this.now() >= this.nextHeartbeatAt)) void this.heartbeat();
        this.consume();
      }
      await this.sleep(10 + this.env.rng.int(30));
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => this.env.sim.clock.schedule(ms, resolve));
  }

  private send<R>(request: (c: GroupCoordinator) => Promise<R>): Promise<CallOutcome<R>> {
    const { coordinators } = this.env;
    return coordinators.call(coordinators.coordinatorNodeFor(this.groupId), request, 5_000);
  }

  private context() {
    return { clientId: this.memberId, clientHost: 'sim', connectionId: this.connectionId };
  }

  /** Records are consumed from every partition whose start was fetched. */
  private consume(): void {
    for (const o of this.owned.values()) if (o.position !== null) o.position += this.env.rng.int(3);
  }

  private async heartbeat(): Promise<void> {
    this.heartbeatInFlight = true;
    this.heartbeatNow = false;
    const sentEpoch = this.epoch;
    const sentAt = this.now();
    const incarnation = this.incarnation;
    const joining = sentEpoch === 0;
    // Kafka's client sends every field when it joins and after any error (its sent-fields state is reset),
    // so a member whose answer was lost learns its assignment again (a full request is answered with it);
    // otherwise the owned partitions go when they changed (and here now and then besides, which is allowed).
    let full = joining || this.resendAll;
    const withOwned = full || this.ownedChanged || this.env.rng.next() < 0.2;
    const reported = [...this.reported];
    const request = (all: boolean) => ({
      groupId: this.groupId,
      memberId: this.memberId,
      memberEpoch: sentEpoch,
      ...(all
        ? { rebalanceTimeoutMs: MEMBER_REBALANCE_TIMEOUT_MS, subscribedTopicNames: Object.keys(CONSUMER_TOPICS) }
        : {}),
      topicPartitions: withOwned || all ? toList(joining ? [] : reported) : null,
    });
    if (this.givesUp()) {
      // The client gave up on this heartbeat (its request timed out) and sends it again at once, with
      // every field as Kafka's client does after a lost answer; the coordinator gets both, in order, and
      // the first one's answer is never read.
      void this.send((c) => c.consumerGroupHeartbeat(request(full), this.context()));
      this.retriedAtOnce++;
      full = true;
    }
    const outcome = await this.send((c) => c.consumerGroupHeartbeat(request(full), this.context()));
    this.heartbeatInFlight = false;
    if (incarnation !== this.incarnation) return;
    if (!outcome.ok) return this.retryHeartbeat();
    const r = outcome.value;
    this.env.ownership.heartbeatAnswered(this.groupId, this.memberId, sentAt, sentEpoch, r.errorCode, r.memberEpoch);
    if (FENCED.has(r.errorCode)) {
      this.trace(`fenced (${r.errorCode}) at epoch ${sentEpoch}, owned ${[...this.owned.keys()].join(',')}`);
      return this.fence();
    }
    if (RETRIABLE.has(r.errorCode)) return this.retryHeartbeat();
    if (r.errorCode !== ErrorCode.NONE) {
      this.env.violations.push(`${this.connectionId}: heartbeat at epoch ${sentEpoch} answered ${r.errorCode}`);
      return this.retryHeartbeat();
    }
    if (r.memberEpoch !== this.epoch || r.assignment)
      this.trace(`epoch ${r.memberEpoch}${r.assignment ? ` assigned ${keysOf(r.assignment.topicPartitions)}` : ''}`);
    this.epoch = r.memberEpoch;
    this.state = 'member';
    this.intervalMs = r.heartbeatIntervalMs;
    this.nextHeartbeatAt = this.now() + this.intervalMs;
    this.resendAll = false;
    if (withOwned && reported.join() === this.reported.join()) this.ownedChanged = false;
    if (r.assignment) {
      this.target = r.assignment.topicPartitions;
      void this.reconcile();
    }
  }

  /**
   * About one heartbeat in 40 is given up and sent again at once: chosen from the member id and the
   * heartbeat's count, not the run's random stream, so every other choice of a seed stays as it was.
   */
  private givesUp(): boolean {
    return kafkaAbs(javaStringHashCode(`${this.memberId}#${this.heartbeats++}`)) % 40 === 0;
  }

  private retryHeartbeat(): void {
    this.resendAll = true;
    this.nextHeartbeatAt = this.now() + 50 + this.env.rng.int(100);
  }

  /** Fenced: every partition is lost (no commit), and the member rejoins at 0 under the same id. */
  private fence(): void {
    this.incarnation++;
    this.env.ownership.fenced(this.groupId, this.memberId);
    for (const key of this.owned.keys()) this.env.ownership.release(this.groupId, this.memberId, key);
    this.owned.clear();
    this.reported = [];
    this.target = null;
    this.epoch = 0;
    this.state = 'joining';
    this.resendAll = true;
    this.ownedChanged = true;
    this.nextHeartbeatAt = this.now();
  }

  /** Kafka's reconciliation: revoke (commit first), then assign and acknowledge; again while targets come. */
  private async reconcile(): Promise<void> {
    if (this.reconciling) return;
    this.reconciling = true;
    const incarnation = this.incarnation;
    try {
      while (this.target && incarnation === this.incarnation && this.state === 'member') {
        const target = this.target.flatMap((tp) => tp.partitions.map((p) => keyOf(tp.topic, p)));
        this.target = null;
        const revoked = [...this.owned.keys()].filter((k) => !target.includes(k));
        const added = target.filter((k) => !this.owned.has(k));
        if (revoked.length > 0) {
          if (this.env.broken === 'acknowledge-before-revoking') {
            this.reported = target;
            this.ownedChanged = true;
            this.heartbeatNow = true;
          }
          await this.commit(revoked);
          // onPartitionsRevoked: now and then slower than the rebalance timeout, which gets the member fenced.
          const slow = this.env.rng.next() < 0.05;
          await this.sleep(
            slow ? MEMBER_REBALANCE_TIMEOUT_MS + this.env.rng.int(MEMBER_REBALANCE_TIMEOUT_MS) : this.env.rng.int(30),
          );
          if (incarnation !== this.incarnation) return;
          for (const k of revoked) {
            this.owned.delete(k);
            this.env.ownership.release(this.groupId, this.memberId, k);
          }
        }
        for (const k of added) {
          this.owned.set(k, { position: null, committed: -1 });
          this.env.ownership.acquire(this.groupId, this.memberId, k);
          void this.fetchStart(k, incarnation);
        }
        if (revoked.length + added.length > 0)
          this.trace(`revoked ${revoked.join(',') || '-'} took ${added.join(',') || '-'}`);
        this.reported = target;
        this.ownedChanged = true;
        this.heartbeatNow = true;
      }
    } finally {
      this.reconciling = false;
      // A reconciliation of a membership that was fenced meanwhile is dropped; the new one's target waits here.
      if (this.target && incarnation !== this.incarnation && this.state === 'member') void this.reconcile();
    }
  }

  /** The committed offset of a partition just taken: it must not be below any commit acknowledged before. */
  private async fetchStart(key: string, incarnation: number): Promise<void> {
    const [topic, partition] = split(key);
    while (incarnation === this.incarnation && this.owned.get(key)?.position === null) {
      if (this.now() < this.pausedUntil) {
        await this.sleep(this.pausedUntil - this.now());
        continue;
      }
      const before = this.env.offsets.snapshot(this.groupId, key);
      const outcome = await this.send((c) =>
        c.offsetFetch({ groupId: this.groupId, topics: [{ name: topic, partitionIndexes: [partition] }] }),
      );
      const answer = outcome.ok && outcome.value.errorCode === ErrorCode.NONE ? outcome.value : undefined;
      const p = answer?.topics[0]?.partitions[0];
      if (p && p.errorCode === ErrorCode.NONE) {
        this.env.offsets.checkFetched(this.groupId, key, p.committedOffset, before, `${this.connectionId} took ${key}`);
        const o = this.owned.get(key);
        if (o && incarnation === this.incarnation) {
          o.position = Math.max(p.committedOffset, 0);
          o.committed = p.committedOffset;
        }
        return;
      }
      await this.sleep(50 + this.env.rng.int(100));
    }
  }

  /** OffsetCommit of what was consumed on `keys`, with the member's epoch. */
  private async commit(keys: string[]): Promise<void> {
    this.nextCommitAt = this.now() + 150 + this.env.rng.int(250);
    const entries = keys.flatMap((key) => {
      const o = this.owned.get(key);
      return o && o.position !== null && o.position > o.committed ? [{ key, offset: o.position }] : [];
    });
    if (entries.length === 0) return;
    this.commitInFlight = true;
    const sentAt = this.now();
    const epoch = this.epoch;
    for (const e of entries) this.env.offsets.attempt(this.groupId, e.key, e.offset);
    const outcome = await this.send((c) =>
      c.offsetCommit(
        {
          groupId: this.groupId,
          generationId: epoch,
          memberId: this.memberId,
          topics: commitTopics(entries),
        },
        this.context(),
      ),
    );
    this.commitInFlight = false;
    if (!outcome.ok) return;
    const codes = outcome.value.topics.flatMap((t) =>
      t.partitions.map((p) => ({ key: keyOf(t.name, p.partitionIndex), code: p.errorCode })),
    );
    this.env.ownership.commitAnswered(
      this.groupId,
      this.memberId,
      sentAt,
      epoch,
      codes.map((c) => c.code),
    );
    for (const { key, code } of codes) {
      if (code !== ErrorCode.NONE) continue;
      const offset = entries.find((e) => e.key === key)!.offset;
      this.env.offsets.acked(this.groupId, key, offset);
      const o = this.owned.get(key);
      if (o) o.committed = Math.max(o.committed, offset);
    }
  }

  private async leaveGroup(): Promise<void> {
    await this.commit([...this.owned.keys()]);
    for (const key of this.owned.keys()) this.env.ownership.release(this.groupId, this.memberId, key);
    this.owned.clear();
    for (let attempt = 0; attempt < 20 && this.epoch > 0; attempt++) {
      const outcome = await this.send((c) =>
        c.consumerGroupHeartbeat({ groupId: this.groupId, memberId: this.memberId, memberEpoch: -1 }, this.context()),
      );
      if (outcome.ok && !RETRIABLE.has(outcome.value.errorCode)) break;
      await this.sleep(100);
    }
    this.stop();
  }
}
