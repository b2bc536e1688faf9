import type { MemberAssignment, TopicPartitions } from '@cohort/protocol';
import { CohortError } from '../errors/cohort-error';
import { Backoff, type ResolvedRetry } from '../runtime/backoff';
import { Emitter } from '../runtime/emitter';
import { Listenable } from '../runtime/listenable';
import type { Timers } from '../runtime/timers';
import { watchVisibility } from '../runtime/visibility-watch';
import { sleep, WakeSignal } from '../runtime/wake-signal';
import type { ClusterMetadata } from '../transport/cluster-metadata';
import type { PushMessage } from '../transport/node-connection';
import { AssignorSet } from './assignor-set';
import type { CoordinatorLink } from './coordinator-link';
import type { GroupCalls } from './group-calls';
import type { JoinRound } from './join-round';
import { ListenerRunner } from './listener-runner';
import type { CommittedOffset, MemberEvents, MemberState, ProcessedOffset } from './member-events';
import type { MemberHeartbeat } from './member-heartbeat';
import type { MemberOffsets } from './member-offsets';
import { resolveMemberOptions, type MemberOptions, type ResolvedMemberOptions } from './member-options';
import { wireMember } from './member-wiring';
import { Membership } from './membership';
import { PartitionSet } from './partition-set';
import { RejoinNow } from './rejoin-now';
import type { SessionFence } from './session-fence';

export interface MemberRuntime {
  /** The client's view of the cluster: where lookups go. */
  cluster: ClusterMetadata;
  timers: Timers;
  retry: ResolvedRetry;
  /** Called once the member has stopped, so the client forgets it. */
  onStopped(member: CohortMember): void;
}

/**
 * One member of a consumer group: the whole member side of Kafka's classic protocol (the Java
 * consumer's AbstractCoordinator + ConsumerCoordinator), driven by one rebalance loop plus a heartbeat
 * timer. See libs/client/README.md for the listener order, protocols and guarantees.
 */
export class CohortMember extends Listenable<MemberEvents> {
  readonly groupId: string;
  private readonly options: ResolvedMemberOptions;
  protected readonly events: Emitter<MemberEvents>;
  private readonly assignors: AssignorSet;
  private readonly link: CoordinatorLink;
  private readonly heartbeat: MemberHeartbeat;
  private readonly offsets: MemberOffsets;
  private readonly calls: GroupCalls;
  private readonly listeners: ListenerRunner;
  private readonly wake = new WakeSignal();
  private readonly loopBackoff: Backoff;
  private readonly fence: SessionFence;
  private releaseCluster: () => void = () => undefined;

  private currentState: MemberState = 'idle';
  private readonly membership: Membership;
  private readonly round: JoinRound;
  private owned = new PartitionSet();
  /** Why the next JoinGroup is needed; null while the member holds a current assignment. */
  private rejoinReason: string | null = 'initial join';
  /** Set when the generation was reset: the next join prepare reports the owned partitions lost. */
  private lostReason: string | null = null;
  /** Kafka's needsJoinPrepare: the commit and revoke before a JoinGroup happen once per rebalance, not per retry. */
  private needsJoinPrepare = true;
  private loop: Promise<void> | null = null;
  private stopping: Promise<void> | null = null;
  private started: { resolve(): void; reject(error: CohortError): void } | null = null;
  private crashed: CohortError | null = null;
  private firstAssignment: Promise<void> | null = null;
  private unwatchVisibility: () => void = () => undefined;

  constructor(
    options: MemberOptions,
    private readonly runtime: MemberRuntime,
  ) {
    super();
    this.options = resolveMemberOptions(options);
    this.groupId = this.options.groupId;
    this.assignors = new AssignorSet(this.options.assignors, this.options.serverAssignor);
    this.membership = new Membership(this.options.groupInstanceId);
    this.events = new Emitter<MemberEvents>((event, error) => this.listeners.failed(String(event), error));
    this.listeners = new ListenerRunner(this.events, runtime.timers, this.options.rebalanceTimeoutMs, (error) =>
      this.reportError(error),
    );
    this.loopBackoff = new Backoff(runtime.retry, runtime.timers);
    ({
      fence: this.fence,
      link: this.link,
      calls: this.calls,
      heartbeat: this.heartbeat,
      round: this.round,
      offsets: this.offsets,
    } = wireMember(
      { ...runtime, options: this.options, membership: this.membership, assignors: this.assignors, wake: this.wake },
      {
        push: (message) => this.onPush(message),
        report: (error) => this.reportError(error),
        isStopping: () => this.stopping !== null,
        isStable: () => this.currentState === 'stable',
        requestRejoin: (reason) => this.requestRejoin(reason),
        resetGeneration: (reason, resetMemberId) => this.resetGeneration(reason, resetMemberId),
        crash: (error) => this.crash(error),
        sessionExpired: () => this.sessionExpired(),
        owned: () => this.owned,
        committed: (offsets) => this.events.emit('committed', { offsets }),
      },
    ));
  }

  // ---- public surface (names fixed by docs/protocol.md and the README) ----

  get state(): MemberState {
    return this.currentState;
  }

  get memberId(): string {
    return this.membership.memberId;
  }

  get generationId(): number {
    return this.membership.generationId;
  }

  /** The partitions currently owned. */
  get assignment(): TopicPartitions[] {
    return this.owned.toList();
  }

  /** The rebalance protocol this member runs: `cooperative` when every configured assignor supports it. */
  get protocol(): 'eager' | 'cooperative' {
    return this.assignors.protocol;
  }

  /** Joins the group; resolves once the first assignment is held, rejects if the member crashes first. */
  start(): Promise<void> {
    if (this.crashed) return Promise.reject(this.crashed);
    if (this.loop) return this.firstAssignment ?? Promise.resolve();
    if (this.stopping)
      return Promise.reject(CohortError.of('INVALID_REQUEST', 'the member was stopped; create a new one'));
    this.firstAssignment = new Promise<void>((resolve, reject) => (this.started = { resolve, reject }));
    this.setState('joining');
    this.unwatchVisibility = watchVisibility(() => this.heartbeat.poke());
    this.releaseCluster = this.runtime.cluster.retain();
    this.loop = this.run();
    return this.firstAssignment;
  }

  /**
   * Marks `offset` (the next one to process) of an owned partition; auto-commit sends it. False when the
   * partition is not owned; throws SESSION_EXPIRED once the member's session ran out, until it holds a
   * new assignment (its partitions were reported `lost` and may belong to someone else).
   */
  markProcessed(offset: ProcessedOffset): boolean {
    this.fence.refuse(`cannot mark ${offset?.topic}-${offset?.partition} as processed`);
    return this.offsets.mark(offset);
  }

  /** Commits `offsets`, or every marked offset not yet committed; rejects with CohortError. */
  async commit(offsets?: ProcessedOffset[]): Promise<void> {
    this.fence.refuse('cannot commit');
    if (this.membership.generationId < 0 || (this.currentState !== 'stable' && this.currentState !== 'stopping')) {
      throw CohortError.of(
        'REBALANCE_IN_PROGRESS',
        `cannot commit while the member is ${this.currentState}; commit again once it is stable`,
      );
    }
    await this.offsets.commit(offsets);
  }

  /** The committed offsets of `partitions` (default: the current assignment). */
  committed(partitions?: TopicPartitions[]): Promise<CommittedOffset[]> {
    return this.offsets.fetch(partitions ?? this.owned.toList());
  }

  /** Commits marked offsets, gives the partitions up (revoked), leaves the group (dynamic members) and stops. */
  stop(): Promise<void> {
    this.stopping ??= this.shutdown();
    return this.stopping;
  }

  // ---- the rebalance loop ----

  private async run(): Promise<void> {
    while (!this.stopping && !this.crashed) {
      if (this.rejoinReason === null) {
        await this.wake.next();
        continue;
      }
      try {
        await this.rebalance();
        this.loopBackoff.reset();
      } catch (error) {
        if (this.stopping || this.crashed) break;
        if (error instanceof RejoinNow) continue;
        const failure = CohortError.from(error);
        this.requestRejoin(`rebalance failed due to ${failure.name}: ${failure.message}`);
        if (!failure.retriable) {
          this.crash(failure);
          break;
        }
        this.reportError(failure);
        await sleep(this.runtime.timers, this.loopBackoff.next(), this.wake);
      }
    }
  }

  private async rebalance(): Promise<void> {
    await this.link.connection();
    await this.prepareJoin();
    if (this.stopping) return;
    const reason = this.rejoinReason ?? 'rejoin';
    this.rejoinReason = null;
    this.setState('joining');
    // As Kafka's heartbeat thread, no heartbeats while a JoinGroup is out: the coordinator keeps a
    // member with a parked JoinGroup alive, and a heartbeat of the old generation would only race it.
    this.heartbeat.stop();
    const join = await this.round.join(reason, this.owned);
    this.setState('syncing');
    this.heartbeat.start();
    const leader = join.leader === this.membership.memberId;
    this.events.emit('joined', {
      memberId: this.membership.memberId,
      generationId: this.membership.generationId,
      leader,
      protocol: this.membership.protocolName,
    });
    const assignment =
      this.options.serverAssignor !== null
        ? (join.assignment as MemberAssignment | undefined)
        : await this.round.sync(join);
    await this.completeJoin(assignment ?? { partitions: [] });
  }

  /** Kafka's onJoinPrepare: commit, then revoke everything (eager) — or report it lost when the generation is gone. */
  private async prepareJoin(): Promise<void> {
    if (this.lostReason !== null) return this.reportLost();
    if (!this.needsJoinPrepare || this.membership.generationId < 0) return;
    this.needsJoinPrepare = false;
    this.offsets.stopAutoCommit();
    if (this.assignors.protocol === 'eager') {
      await this.giveUp(this.owned, true);
    } else {
      // Cooperative members keep their partitions across the join; committing now narrows what a
      // lost generation would re-deliver.
      await this.offsets.commitMarked(this.owned);
    }
  }

  /** Kafka's onJoinComplete: take the assignment; cooperative members first give up what moved, then rejoin. */
  private async completeJoin(assignment: MemberAssignment): Promise<void> {
    const generationId = this.membership.generationId;
    const subscribed = new Set(this.options.topics);
    const assigned = PartitionSet.of((assignment.partitions ?? []).filter((p) => subscribed.has(p.topic)));
    const revoked = this.owned.minus(assigned);
    const added = assigned.minus(this.owned);
    try {
      this.assignors.byName(this.membership.protocolName)?.onAssignment?.(assignment, generationId);
    } catch (error) {
      this.listeners.failed('onAssignment', error);
    }
    this.setState('stable');
    if (revoked.size > 0) {
      await this.giveUp(revoked, false);
      // The session ran out during the listener: the partitions were reported lost, nothing is taken.
      if (this.membership.generationId !== generationId) throw new RejoinNow();
      // The second round of the same rebalance: no new 'rebalancing' event.
      this.requestRejoin('need to revoke partitions and re-join', false);
    }
    this.owned = assigned;
    this.fence.renewed();
    this.needsJoinPrepare = true;
    await this.listeners.run('assigned', { partitions: added.toList(), generationId });
    if (!this.stopping && this.membership.generationId === generationId) this.offsets.scheduleAutoCommit();
    this.started?.resolve();
    this.started = null;
  }

  /** The membership is gone (lostReason set): everything owned is given up unseen, as `lost`, and nothing is committed for it. */
  private async reportLost(): Promise<void> {
    const reason = this.lostReason;
    if (reason === null) return;
    const lost = this.owned;
    this.owned = new PartitionSet();
    this.offsets.forget(lost);
    this.offsets.stopAutoCommit();
    this.lostReason = null;
    this.needsJoinPrepare = false;
    if (lost.size > 0) await this.listeners.run('lost', { partitions: lost.toList(), reason });
  }

  /** `revoked` (awaited), then commit what was marked for those partitions, then forget them. */
  private async giveUp(partitions: PartitionSet, always: boolean): Promise<void> {
    if (partitions.size > 0 || always)
      await this.listeners.run('revoked', {
        partitions: partitions.toList(),
        generationId: this.membership.generationId,
      });
    if (this.membership.generationId >= 0) await this.offsets.commitMarked(partitions);
    this.offsets.forget(partitions);
    this.owned = this.owned.minus(partitions);
  }

  // ---- pushes ----

  private onPush(message: PushMessage): void {
    if (message.event === 'HeartbeatNow') return; // KIP-848's push: not the classic protocol's
    if (message.event === 'CoordinatorMoved') {
      this.link.markUnknown();
      this.heartbeat.now();
      return;
    }
    const { generationId, reason } = message.push;
    // Kafka's rule for a heartbeat's REBALANCE_IN_PROGRESS: act only when stable in that generation.
    if (generationId === this.membership.generationId && this.currentState === 'stable') this.requestRejoin(reason);
  }

  // ---- stop ----

  private async shutdown(): Promise<void> {
    if (this.currentState === 'idle' || this.currentState === 'stopped') {
      this.finish();
      return;
    }
    const wasStable = this.currentState === 'stable' && this.rejoinReason === null;
    this.setState('stopping');
    this.offsets.stopAutoCommit();
    this.wake.fire();
    // Let a listener phase in progress finish (bounded by the rebalance timeout), not a parked JoinGroup.
    const bounded = new WakeSignal();
    void this.listeners.busy.then(() => bounded.fire());
    await sleep(this.runtime.timers, this.options.rebalanceTimeoutMs, bounded);
    if (!this.crashed && this.lostReason === null && this.membership.generationId >= 0) {
      // Kafka's close(): commit what was processed first (KAFKA-7540), whatever else is going on.
      await this.offsets.commitMarked(this.owned);
    }
    if (!this.crashed && this.owned.size > 0) {
      if (wasStable && this.lostReason === null && this.membership.generationId >= 0)
        await this.giveUp(this.owned, false);
      else
        await this.listeners.run('lost', {
          partitions: this.owned.toList(),
          reason: this.lostReason ?? 'the member stopped during a rebalance',
        });
    }
    this.owned = new PartitionSet();
    await this.offsets.drain();
    if (!this.crashed && this.options.groupInstanceId === null && this.membership.memberId !== '') {
      // Kafka's LeaveGroup is a minimal-effort attempt: one try, whatever the outcome.
      await this.calls
        .leave(this.membership.memberId, 'the member was stopped')
        .catch((error: unknown) => this.reportError(CohortError.from(error)));
    }
    this.finish();
  }

  private finish(): void {
    this.unwatchVisibility();
    this.releaseCluster();
    this.fence.disarm();
    this.heartbeat.stop();
    this.offsets.stopAutoCommit();
    this.link.close();
    this.wake.fire();
    this.setState('stopped');
    this.started?.reject(
      this.crashed ?? CohortError.of('INVALID_REQUEST', 'the member was stopped before it got an assignment'),
    );
    this.started = null;
    this.runtime.onStopped(this);
  }

  private crash(error: CohortError): void {
    if (this.crashed || this.currentState === 'stopped') return;
    this.crashed = error;
    this.fence.disarm();
    this.events.emit('crash', error);
    this.started?.reject(error);
    this.started = null;
    // The partitions are not ours any more; the group moves on without this member.
    const lost = this.owned;
    this.owned = new PartitionSet();
    if (lost.size > 0)
      this.events.emit('lost', { partitions: lost.toList(), reason: `the member crashed: ${error.name}` });
    this.finish();
  }

  // ---- helpers ----

  private requestRejoin(reason: string, announce = true): void {
    if (announce && this.rejoinReason === null && this.currentState === 'stable')
      this.events.emit('rebalancing', { generationId: this.membership.generationId, reason });
    this.rejoinReason ??= reason;
    this.wake.fire();
  }

  /** Kafka's resetStateAndGeneration: the membership is gone, so owned partitions are lost, not revoked. */
  private resetGeneration(reason: string, resetMemberId: boolean): void {
    if (this.membership.generationId >= 0 || this.owned.size > 0) this.lostReason ??= reason;
    this.membership.generationId = -1;
    if (resetMemberId) this.membership.memberId = '';
    this.needsJoinPrepare = true;
    this.fence.disarm();
    this.heartbeat.stop();
    this.offsets.stopAutoCommit();
    if (this.currentState === 'stable' || this.currentState === 'syncing') this.setState('joining');
    this.requestRejoin(reason);
  }

  /**
   * The session fence fell: no heartbeat was answered for the session timeout, so the coordinator may
   * be about to give the partitions away (or has, unreachable). The membership is treated as gone now —
   * `lost` at once, without waiting to reach anyone — and the member joins again when it can, keeping
   * its member id (the coordinator may still know it).
   */
  private sessionExpired(): void {
    if (this.crashed || this.currentState === 'stopped') return;
    this.resetGeneration(
      `no heartbeat was answered within the session timeout (${this.options.sessionTimeoutMs} ms): the coordinator may give the partitions to another member`,
      false,
    );
    void this.reportLost();
  }

  private reportError(error: CohortError): void {
    this.events.emit('error', error);
  }

  private setState(state: MemberState): void {
    if (this.currentState === 'stopped') return;
    if (this.currentState === 'stopping' && state !== 'stopped') return;
    this.currentState = state;
  }
}
