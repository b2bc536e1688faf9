import type { ConsumerGroupHeartbeatResponse, TopicPartitions } from '@cohort/protocol';
import { CohortError } from '../../errors/cohort-error';
import type { ResolvedRetry } from '../../runtime/backoff';
import { Emitter } from '../../runtime/emitter';
import { Listenable } from '../../runtime/listenable';
import { watchPageLifecycle } from '../../runtime/page-lifecycle';
import { newMemberId } from '../../share/member-id';
import type { Timers } from '../../runtime/timers';
import { watchVisibility } from '../../runtime/visibility-watch';
import { waitAtMost, WakeSignal } from '../../runtime/wake-signal';
import type { ClusterMetadata } from '../../transport/cluster-metadata';
import type { PushMessage } from '../../transport/node-connection';
import type { CoordinatorLink } from '../coordinator-link';
import { ListenerRunner } from '../listener-runner';
import type { CommittedOffset, MemberEvents, MemberState, ProcessedOffset } from '../member-events';
import type { MemberOffsets } from '../member-offsets';
import { PartitionSet } from '../partition-set';
import {
  resolveConsumerMemberOptions,
  type ConsumerMemberOptions,
  type ResolvedConsumerMemberOptions,
} from './consumer-member-options';
import { ConsumerHeartbeat } from './consumer-heartbeat';
import { wireConsumerMember } from './consumer-member-wiring';
import { Reconciler } from './reconciler';

export interface ConsumerMemberRuntime {
  cluster: ClusterMetadata;
  timers: Timers;
  retry: ResolvedRetry;
  /** Called once the member has stopped, so the client forgets it. */
  onStopped(member: ConsumerGroupMember): void;
}

/**
 * Kafka's MemberState for the consumer protocol: JOINING (epoch 0 until answered), RECONCILING (owning
 * something other than the target, or not yet acknowledged — Kafka's ACKNOWLEDGING), STABLE, FENCED
 * (the `lost` listeners run, then JOINING again), LEAVING (the leave heartbeat is out).
 */
type Phase = 'idle' | 'joining' | 'reconciling' | 'stable' | 'fenced' | 'leaving' | 'stopped';

/**
 * One member of a Kafka 4 consumer group (KIP-848), the member side of Kafka's AsyncKafkaConsumer
 * (ConsumerMembershipManager, ConsumerHeartbeatRequestManager): no join barrier — it heartbeats at the
 * interval the coordinator names and at once on a `HeartbeatNow` push, and reconciles towards the
 * target each answer carries (revoke first, then take the new partitions, then acknowledge). See
 * libs/client/README.md for its events and guarantees.
 */
export class ConsumerGroupMember extends Listenable<MemberEvents> {
  readonly groupId: string;
  readonly groupProtocol = 'consumer' as const;
  private readonly options: ResolvedConsumerMemberOptions;
  protected readonly events: Emitter<MemberEvents>;
  private readonly listeners: ListenerRunner;
  private readonly link: CoordinatorLink;
  private readonly offsets: MemberOffsets;
  private readonly heartbeat: ConsumerHeartbeat;
  private readonly reconciler: Reconciler;
  private readonly wake = new WakeSignal();
  /** Chosen by the member (KIP-1082), kept across fencings; a new one only after leaving for now. */
  private id = newMemberId();
  private epoch = 0;
  /** Counts memberships: a fencing or a leave starts a new one, and answers about an old one are ignored. */
  private incarnation = 0;
  private phase: Phase = 'idle';
  /** A reconciliation changed what is owned and no heartbeat has carried it yet (Kafka's ACKNOWLEDGING). */
  private ackPending = false;
  private autoCommitArmed = false;
  /** A static member left for now on `pagehide`. */
  private leftForNow = false;
  private stopping: Promise<void> | null = null;
  private crashed: CohortError | null = null;
  private started: { resolve(): void; reject(error: CohortError): void } | null = null;
  private firstAssignment: Promise<void> | null = null;
  /** Listeners run one at a time, in order (Kafka runs them on the application thread). */
  private listenerChain: Promise<void> = Promise.resolve();
  private readonly unwatch: (() => void)[] = [];

  constructor(
    options: ConsumerMemberOptions,
    private readonly runtime: ConsumerMemberRuntime,
  ) {
    super();
    this.options = resolveConsumerMemberOptions(options);
    this.groupId = this.options.groupId;
    this.events = new Emitter<MemberEvents>((event, error) => this.listeners.failed(String(event), error));
    this.listeners = new ListenerRunner(this.events, runtime.timers, this.options.rebalanceTimeoutMs, (error) =>
      this.report(error),
    );
    this.reconciler = new Reconciler({
      incarnation: () => this.incarnation,
      isCurrent: (incarnation) => incarnation === this.incarnation,
      revoke: (partitions) => this.serial(() => this.giveUp(partitions)),
      assign: (partitions) => this.serial(() => this.take(partitions)),
      acknowledge: () => {
        this.ackPending = true;
        this.heartbeat.now(false);
      },
      settled: () => this.settle(),
    });
    ({ link: this.link, offsets: this.offsets } = wireConsumerMember(
      { ...runtime, options: this.options, wake: this.wake },
      {
        push: (message) => this.onPush(message),
        beatNow: (full) => this.heartbeat.now(full),
        poke: () => this.heartbeat.poke(),
        report: (error) => this.report(error),
        crash: (error) => this.crash(error),
        isStopped: () => this.phase === 'stopped',
        identity: () => ({
          generationId: this.epoch,
          memberId: this.id,
          groupInstanceId: this.options.groupInstanceId,
          incarnation: this.incarnation,
        }),
        inGroup: () => this.inGroup,
        owned: () => this.reconciler.owned,
        committed: (offsets) => this.events.emit('committed', { offsets }),
      },
    ));
    this.heartbeat = new ConsumerHeartbeat(runtime.timers, runtime.retry, this.options, this.link, {
      active: () => this.phase === 'joining' || this.phase === 'reconciling' || this.phase === 'stable',
      memberId: () => this.id,
      epoch: () => this.epoch,
      owned: () => this.reconciler.owned,
      incarnation: () => this.incarnation,
      acknowledged: () => (this.ackPending = false),
      answered: (response) => this.onAnswer(response),
      fenced: (reason) => this.fence(reason),
      crash: (error) => this.crash(error),
      report: (error) => this.report(error),
    });
  }

  // ---- public surface (the classic member's names; libs/client/README.md) ----

  get state(): MemberState {
    if (this.phase === 'stopped') return 'stopped';
    if (this.stopping !== null || this.phase === 'leaving') return 'stopping';
    if (this.phase === 'fenced') return 'joining';
    return this.phase;
  }

  get memberId(): string {
    return this.id;
  }

  /** The member epoch (0 while joining): what its commits carry as `generationId`. */
  get generationId(): number {
    return this.epoch;
  }

  get assignment(): TopicPartitions[] {
    return this.reconciler.owned.toList();
  }

  /** Joins the group; resolves once the first assignment is reconciled and acknowledged. */
  start(): Promise<void> {
    if (this.crashed) return Promise.reject(this.crashed);
    if (this.stopping)
      return Promise.reject(CohortError.of('INVALID_REQUEST', 'the member was stopped; create a new one'));
    if (this.phase !== 'idle') return this.firstAssignment ?? Promise.resolve();
    this.firstAssignment = new Promise<void>((resolve, reject) => (this.started = { resolve, reject }));
    this.phase = 'joining';
    this.unwatch.push(watchVisibility(() => this.heartbeat.poke()));
    if (this.options.groupInstanceId !== null)
      this.unwatch.push(watchPageLifecycle({ hidden: () => this.pageHidden(), restored: () => this.pageRestored() }));
    this.unwatch.push(this.runtime.cluster.retain());
    this.heartbeat.start();
    return this.firstAssignment;
  }

  /** Marks `offset` (the next one to process) of an owned partition for auto-commit; false when not owned. */
  markProcessed(offset: ProcessedOffset): boolean {
    return this.offsets.mark(offset);
  }

  /** Commits `offsets`, or every marked offset not yet committed, with the member epoch; rejects with CohortError. */
  async commit(offsets?: ProcessedOffset[]): Promise<void> {
    if (!this.inGroup)
      throw CohortError.of(
        'UNKNOWN_MEMBER_ID',
        `cannot commit while the member is ${this.state}: it is not in the group until a heartbeat gives it an epoch`,
      );
    await this.offsets.commit(offsets);
  }

  /** The committed offsets of `partitions` (default: the current assignment). */
  committed(partitions?: TopicPartitions[]): Promise<CommittedOffset[]> {
    return this.offsets.fetch(partitions ?? this.reconciler.owned.toList());
  }

  /** Commits marked offsets, gives the partitions up (`revoked`), leaves (epoch -1, or -2 for a static member) and stops. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  // ---- the heartbeat ----

  private get inGroup(): boolean {
    return this.epoch > 0 && !this.leftForNow && (this.phase === 'reconciling' || this.phase === 'stable');
  }

  private onAnswer(response: ConsumerGroupHeartbeatResponse): void {
    const joining = this.epoch === 0;
    this.epoch = response.memberEpoch;
    if (joining && this.epoch > 0) {
      this.phase = 'reconciling';
      this.events.emit('joined', {
        memberId: this.id,
        generationId: this.epoch,
        leader: false,
        protocol: this.options.serverAssignor,
      });
    }
    if (response.assignment) {
      const target = response.assignment.topicPartitions;
      if (this.phase === 'stable' && !PartitionSet.of(target).equals(this.reconciler.owned))
        this.events.emit('rebalancing', { generationId: this.epoch, reason: 'the target assignment changed' });
      this.reconciler.setTarget(target);
    }
    this.settle();
  }

  /** STABLE once the target is owned and acknowledged; the first time, `start()` resolves and auto-commit begins. */
  private settle(): void {
    if ((this.phase !== 'reconciling' && this.phase !== 'stable') || this.epoch <= 0) return;
    const settled = this.reconciler.reconciled && !this.reconciler.busy && !this.ackPending;
    this.phase = settled ? 'stable' : 'reconciling';
    if (!settled) return;
    if (!this.autoCommitArmed && this.stopping === null) {
      this.autoCommitArmed = true;
      this.offsets.scheduleAutoCommit();
    }
    this.started?.resolve();
    this.started = null;
  }

  // ---- reconciliation steps (run one at a time through `serial`) ----

  /** `revoked` (awaited), then the commit of what was marked for those partitions; they are released after. */
  private async giveUp(partitions: PartitionSet): Promise<void> {
    await this.listeners.run('revoked', { partitions: partitions.toList(), generationId: this.epoch });
    await this.offsets.commitMarked(partitions);
    this.offsets.forget(partitions);
  }

  /** `assigned` with only the partitions added (called even when none were, after a revocation, as Kafka does). */
  private async take(partitions: PartitionSet): Promise<void> {
    await this.listeners.run('assigned', { partitions: partitions.toList(), generationId: this.epoch });
  }

  private serial(step: () => Promise<void>): Promise<void> {
    const run = this.listenerChain.then(step);
    this.listenerChain = run.catch(() => undefined);
    return run;
  }

  /** Kafka's transitionToFenced: the partitions are lost (no commit, `lost` awaited), then the member joins again at epoch 0. */
  private fence(reason: string): void {
    this.incarnation += 1;
    this.epoch = 0;
    this.phase = 'fenced';
    this.ackPending = false;
    this.stopAutoCommit();
    const lost = this.reconciler.abandon();
    this.offsets.forget(lost);
    void this.serial(async () => {
      if (lost.size > 0) await this.listeners.run('lost', { partitions: lost.toList(), reason });
    }).then(() => {
      if (this.phase !== 'fenced' || this.stopping !== null) return;
      this.phase = 'joining';
      this.heartbeat.now(true);
    });
  }

  private onPush(message: PushMessage): void {
    if (message.event === 'CoordinatorMoved') {
      this.link.markUnknown();
      this.heartbeat.now(true);
    } else if (message.event === 'HeartbeatNow') {
      this.heartbeat.now(false);
    }
    // RebalanceInProgress belongs to the classic protocol.
  }

  // ---- a page going away (static members) ----

  /**
   * `pagehide`: a static member leaves for now (epoch -2) at once, so the coordinator keeps its
   * partitions for the session timeout and a reload with the same `groupInstanceId` takes them back
   * without moving anyone else's. Nothing is awaited: the page may be gone a moment later.
   */
  private pageHidden(): void {
    // Also while stop() is under way (an application closing the client on pagehide): its own leave
    // would come after awaited commits and listeners, too late for a page that is going away.
    if (!this.inGroup) return;
    this.leftForNow = true;
    this.incarnation += 1;
    this.phase = 'leaving';
    this.stopAutoCommit();
    void this.heartbeat.leave(-2);
  }

  /** The page came back from the back/forward cache: it joins again as a new member of the same instance. */
  private pageRestored(): void {
    if (!this.leftForNow || this.stopping !== null || this.crashed) return;
    this.leftForNow = false;
    this.id = newMemberId();
    this.heartbeat.start();
    this.fence('the page left the group for now (pagehide) and came back from the back/forward cache');
  }

  // ---- stop ----

  private async shutdown(): Promise<void> {
    if (this.phase === 'idle' || this.phase === 'stopped') return this.finish();
    this.stopAutoCommit();
    this.reconciler.close();
    // A reconciliation step in progress finishes first (its listener), within the rebalance timeout.
    await this.bounded(Promise.all([this.reconciler.idle(), this.listenerChain]));
    if (this.inGroup && !this.crashed) {
      // Kafka's close(): commit what was processed first (KAFKA-7540), then give the partitions up.
      const owned = this.reconciler.owned;
      await this.offsets.commitMarked(owned);
      if (owned.size > 0) await this.bounded(this.serial(() => this.giveUp(owned)));
    }
    this.reconciler.abandon();
    await this.bounded(this.offsets.drain());
    if (this.inGroup && !this.crashed) {
      const epoch = this.options.groupInstanceId !== null ? -2 : -1;
      this.incarnation += 1;
      this.phase = 'leaving';
      await this.heartbeat.leave(epoch);
    }
    this.finish();
  }

  /** Waits for `work`, at most the rebalance timeout (a listener that never returns does not hold `stop()`). */
  private bounded(work: Promise<unknown>): Promise<void> {
    return waitAtMost(this.runtime.timers, this.options.rebalanceTimeoutMs, work);
  }

  private stopAutoCommit(): void {
    this.autoCommitArmed = false;
    this.offsets.stopAutoCommit();
  }

  private finish(): void {
    if (this.phase === 'stopped') return;
    for (const unwatch of this.unwatch.splice(0)) unwatch();
    this.heartbeat.stop();
    this.stopAutoCommit();
    this.reconciler.close();
    this.link.close();
    this.phase = 'stopped';
    this.wake.fire();
    this.started?.reject(
      this.crashed ?? CohortError.of('INVALID_REQUEST', 'the member was stopped before it got an assignment'),
    );
    this.started = null;
    this.runtime.onStopped(this);
  }

  /** A fatal answer (82, 111, 112, 128, 30, ...): the member stops; what it owned is lost. */
  private crash(error: CohortError): void {
    if (this.crashed || this.phase === 'stopped') return;
    this.crashed = error;
    this.events.emit('crash', error);
    this.started?.reject(error);
    this.started = null;
    const lost = this.reconciler.abandon();
    if (lost.size > 0)
      this.events.emit('lost', { partitions: lost.toList(), reason: `the member crashed: ${error.name}` });
    this.finish();
  }

  private report(error: CohortError): void {
    this.events.emit('error', error);
  }
}
