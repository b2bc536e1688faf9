import type { LogRecord } from '@cohort/replication';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { ConsumerGroupError } from './consumer-errors';
import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupManager } from './consumer-group-manager';
import type { ConsumerGroupHeartbeatResponse } from './consumer-heartbeat.types';
import { LEAVE_GROUP_STATIC_MEMBER_EPOCH } from './heartbeat-validation';
import type { ConsumerGroupMember } from './consumer-group-member';
import type { GroupSubscription } from './subscription-metadata';
import { BatchAnswers } from './heartbeat-batch-answers';
import { BatchTells } from './heartbeat-batch-tells';
import { type Held, HeldAnswers } from './heartbeat-batch-holds';
import { NextRound } from './heartbeat-batch-next-round';
import { takeBack } from './heartbeat-batch-take-back';
import { BatchRuns } from './heartbeat-batch-runs';
import { retargetMovedGroup } from './heartbeat-batch-retarget';
import { MemberKeys } from './member-keys';
import {
  type BatchedHeartbeat,
  type HeartbeatBatchHooks,
  keysOf,
  type Parked,
  type StepWrites,
} from './heartbeat-batch.types';

/**
 * The ConsumerGroupHeartbeats one shard received in one turn of the event loop, run together so a
 * group's target assignment is computed once for all of them instead of once per join (forming a group
 * of N members ran the assignor N times over up to N members). Each heartbeat's first half (validation,
 * the member's changes, the group epoch) is applied in arrival order, as Kafka's runtime applies each
 * request's records before the next; the heartbeat is then parked on its group. Once the turn's
 * heartbeats are in, each group's target is computed at its latest epoch and its parked members are
 * reconciled towards it in arrival order: the answers are those of the heartbeats arriving in the order
 * every first half, then every second half. A second heartbeat of a parked member (or of its instance)
 * waits for the batch's next round (`NextRound`), so one member's requests keep their order.
 *
 * It runs in steps, so a big batch (thousands of heartbeats) spreads over several turns of the event
 * loop. The first step runs every first half and computes every group's target (a target that fails
 * takes its heartbeats' first halves back, which is only possible before they are handed out); each
 * later step reconciles about `budget` parked members. A next round starts the same way once the round
 * before it is reconciled. Between steps the caller hands out what the step produced: `runs` (in order,
 * before anything else writes) and `answers.fresh` (indexes of new answers). What ran between two steps
 * (another batch among them) is seen by the next: a group or member gone since answers its heartbeats'
 * errors (the write's error if their own records' write failed: `StepWrites`), a partition released
 * meanwhile is handed over (an answer held for it goes: `HeldAnswers`), and a target computed meanwhile
 * is reconciled towards.
 */
export class HeartbeatBatch {
  /** Its heartbeats' answers: the caller takes those answered since it last looked (`fresh`) and hands them out. */
  readonly answers: BatchAnswers;
  /** What its parts recorded, in order: the caller hands them to the runtime between steps. */
  readonly runs: CoordinatorResult<unknown>[];
  private readonly parts: BatchRuns;
  /** Who to push, and who is still waiting for an answer of this batch (parked, or targeted and waiting for their turn). */
  private readonly tells = new BatchTells();
  /** groupId → the members to tell to heartbeat now once the batch's writes commit (SPEC's HeartbeatNow). */
  readonly tell = this.tells.due;
  private readonly parked = new Map<string, Parked[]>();
  /** groupId → the member ids and `\u0000instance` ids parked, so a second request of one completes the first. */
  private readonly parkedKeys = new MemberKeys();
  /** After a round's first step: each group's parked heartbeats, its target computed, waiting to be reconciled. */
  private targeted: { groupId: string; entries: (Parked | null)[] }[] | null = null;
  /** Whether the first round (every heartbeat of the batch) has started. */
  private started = false;
  /** The writes of the step under way, once a heartbeat is answered in a later step than its records. */
  private writes: StepWrites | null = null;
  /** The heartbeats put off to the next round (a member's second one, while its first is parked). */
  private readonly nextRound = new NextRound();
  private reconciled = 0;
  /** What the last step ran, counted as `step` counts its budget. */
  stepParts = 0;
  /** The members of the groups whose target this round computed (what `step` counts the targets as). */
  private targetWork = 0;
  /** groupId → its subscription's regexes resolved, as of this step (what ran between steps may change them). */
  private readonly resolved = new Map<string, ReadonlyMap<string, ReadonlySet<string>>>();
  /** Groups moved before the batch whose targets its first round computes (`HeartbeatBatchHooks.moved`). */
  private moved: ReadonlySet<string> | undefined;
  /** Answers held until the partitions their members wait for are released (only with `hooks.clock`). */
  readonly holds: HeldAnswers<Parked>;

  constructor(
    private readonly manager: ConsumerGroupManager,
    private readonly items: readonly BatchedHeartbeat[],
    private readonly now: number,
    private readonly hooks: HeartbeatBatchHooks,
  ) {
    this.answers = new BatchAnswers(items.length, hooks.onBug);
    this.parts = new BatchRuns(manager, this.answers);
    this.runs = this.parts.list;
    this.holds = new HeldAnswers(hooks.clock !== undefined);
    this.moved = hooks.moved;
  }

  /**
   * Runs the next step (a round's first halves and targets, or about `budget` reconciliations, or both
   * when the budget allows); true once every heartbeat is answered.
   */
  step(budget: number): boolean {
    this.resolved.clear();
    this.stepParts = 0;
    // Held answers whose partitions came free go first: their members have waited longest.
    let spent =
      this.holds.size === 0
        ? 0
        : this.answerHeld(this.holds.due(this.hooks.clock?.() ?? this.now, (id) => this.manager.group(id)));
    for (;;) {
      if (!this.targeted) {
        if (spent > 0 && spent >= budget) break;
        spent += this.startRound();
      }
      const targeted = this.targeted!;
      while (targeted.length > 0) {
        const { groupId, entries } = targeted[0];
        while (this.reconciled < entries.length) {
          if (spent >= budget) {
            this.stepParts = spent;
            return false;
          }
          const entry = entries[this.reconciled]!;
          // Answered: nothing of it stays with the batch until the group's last member is reconciled.
          entries[this.reconciled++] = null;
          this.reconcileParked(groupId, entry);
          spent++;
        }
        targeted.shift();
        this.reconciled = 0;
      }
      if (this.nextRound.isEmpty) {
        this.stepParts = spent;
        return this.holds.size === 0;
      }
      // The next round may hold a later request of a held member: the held answers go before it.
      spent += this.answerHeld(this.holds.takeAll());
      this.targeted = null;
    }
    this.stepParts = spent;
    return false;
  }

  /**
   * A round's first step: its heartbeats' first halves in arrival order, then each group's target once.
   * Returns what it weighs: a target computed weighs as its group's members (the assignor and the diff
   * walk each of them), so a join to a group of 10,000 ends its step there, and the reconciliations wait
   * for the next turn instead of adding hundreds more to a turn that already ran the assignor over the
   * whole group.
   */
  private startRound(): number {
    this.targetWork = 0;
    let size = this.items.length;
    if (!this.started) {
      this.started = true;
      this.items.forEach((item, index) => this.add(item, index));
    } else {
      const round = this.nextRound.take();
      size = round.length;
      for (const index of round) this.add(this.items[index], index);
    }
    this.targeted = [];
    for (const groupId of [...this.parked.keys()]) this.targeted.push({ groupId, entries: this.target(groupId) });
    if (this.moved) {
      // The first round only: a group a member leaves later moves the queue's next batch.
      for (const groupId of this.moved) if (!this.targeted.some((t) => t.groupId === groupId)) this.retarget(groupId);
      this.moved = undefined;
    }
    return size + this.targetWork;
  }

  /** A group a member left or was fenced from, none of whose heartbeats is in this round (`retargetMovedGroup`). */
  private retarget(groupId: string): void {
    const group = this.manager.group(groupId);
    if (!group || group.size === 0) return;
    const work = retargetMovedGroup(this.manager, group, () => this.subscriptionOf(group), this.now, this.tells);
    if (work === null) return;
    this.targetWork += work;
    this.parts.took();
  }

  /**
   * Whether a heartbeat of this member (or of its instance) is still waiting in this batch for its
   * answer: a later request of it must wait for this batch to end, so one member's requests keep their order.
   */
  awaits(groupId: string, memberId: string, instanceId?: string | null): boolean {
    return this.tells.awaits(groupId, memberId, instanceId) || this.nextRound.holds(groupId, memberId, instanceId);
  }

  /**
   * Whether a heartbeat of the group has not changed it yet: one put off to the next round. Between
   * steps every other heartbeat of the batch has (a round's first step runs all their first halves and
   * computes the target); what is left of them, their members' reconciliation, changes only those members.
   */
  defers(groupId: string): boolean {
    return this.nextRound.holdsGroup(groupId);
  }

  /**
   * The members to tell to heartbeat now (SPEC's HeartbeatNow) that are not waiting for an answer of
   * this batch, taken out of `tell`: they can be pushed as soon as what the batch wrote so far commits,
   * instead of once the whole batch is reconciled (a member whose target a burst's first step changed
   * then heartbeats, and revokes, while the burst is still being answered). The members still waiting
   * stay in `tell` until their answer hands them their target.
   */
  takeTells(): Map<string, Set<string>> {
    return this.tells.take();
  }

  /** The last step's writes, if a heartbeat is answered later than they: the caller sets their `failure` should they fail. */
  takeWrites(): StepWrites | null {
    const writes = this.writes;
    this.writes = null;
    return writes;
  }

  /** Whether all that is left is held answers (the batch has nothing to run until one may go). */
  get onlyHolds(): boolean {
    return this.holds.size > 0 && this.targeted !== null && this.targeted.length === 0 && this.nextRound.isEmpty;
  }

  /** Answers every heartbeat not answered yet with `response` (the shard stopped leading mid-batch). */
  abandon(response: ConsumerGroupHeartbeatResponse): void {
    this.holds.takeAll();
    this.answers.giveAllLeft(response);
  }

  private add(item: BatchedHeartbeat, index: number): void {
    const { request, context } = item;
    const { groupId, memberId, instanceId } = request;
    if (this.parkedKeys.has(groupId, memberId, instanceId) || this.nextRound.holds(groupId, memberId, instanceId)) {
      this.nextRound.add(index, groupId, memberId, instanceId);
      return;
    }
    const alone = this.hooks.alone(item);
    if (alone) {
      this.runs.push(alone);
      const response = alone.response!;
      this.answers.give(index, { response, waits: response.errorCode === 0 });
      return;
    }
    const first: { parked?: Parked } = {};
    const run = this.parts.guarded(index, () => {
      this.manager.validate(request);
      if (request.memberEpoch === -1 || request.memberEpoch === LEAVE_GROUP_STATIC_MEMBER_EPOCH) {
        const group = this.manager.group(request.groupId);
        const leaving =
          group?.member(request.memberId) ?? (request.instanceId ? group?.staticMember(request.instanceId) : undefined);
        const response = this.manager.leaveNow(request);
        if (group && leaving) this.tells.released(group, leaving, group.member(leaving.memberId));
        this.answers.give(index, { response, waits: true });
        return;
      }
      const join = this.manager.prepareJoin(request, context, this.now);
      const write = this.manager.write(join.records, request.groupId);
      // Checked by `prepareJoin` before anything was recorded (a refusal answers this heartbeat only).
      this.manager.holdCharge();
      // The records are applied: the group exists now, with the member as the heartbeat left it.
      const { prepared } = join;
      const group = this.manager.group(request.groupId) ?? prepared.group;
      const { groupExists, member, updated, owned, subscriptionChanged, groupEpoch } = prepared;
      const parked = { group, groupExists, member, updated, owned, subscriptionChanged, groupEpoch };
      this.park(request.groupId, (first.parked = { index, join: { prepared: parked, full: join.full }, write }));
    });
    if (first.parked) first.parked.run = run;
  }

  private park(groupId: string, parked: Parked): void {
    let list = this.parked.get(groupId);
    if (!list) this.parked.set(groupId, (list = []));
    list.push(parked);
    parked.writes = this.writes ??= {};
    const keys = (parked.keys = keysOf(parked));
    this.parkedKeys.add(groupId, keys);
    this.tells.park(groupId, keys);
  }

  /** The parked heartbeat is answered (or failed): a later request of its member need not wait for it. */
  private unpark(groupId: string, parked: Parked): void {
    this.tells.unpark(groupId, parked.keys ?? keysOf(parked));
  }

  /**
   * The group's parked heartbeats, unparked, once its target at its latest epoch is computed; none
   * (each answered with the error, nothing of it written) when the assignor failed.
   */
  private target(groupId: string): Parked[] {
    const entries = this.parked.get(groupId) ?? [];
    this.parked.delete(groupId);
    this.parkedKeys.forgetGroup(groupId);
    try {
      const group = this.manager.group(groupId);
      if (!group) throw new ConsumerGroupError('GROUP_ID_NOT_FOUND', `Consumer group ${groupId} not found.`);
      // The group's subscription as the batch left it: the target's, and what its parked members reconcile
      // with; resolved only when asked (steady members, already at the target, need none of it).
      const target = this.manager.computeTarget(group, () => this.subscriptionOf(group), this.now);
      if (target) {
        this.targetWork += target.targetAssignment.size;
        this.manager.write(target.records, groupId);
        for (const memberId of target.changed) this.tells.add(groupId, memberId);
      }
      this.parts.took();
      // The first halves can no longer be taken back: what they wrote goes once it commits, not with the
      // group's last reconciliation.
      for (const entry of entries) entry.write = entry.run = undefined;
      return entries;
    } catch (error) {
      // The assignor failed: as in Kafka, where each heartbeat is one atomic write that the assignor's
      // error aborts, every heartbeat waiting for the target is answered with the error and nothing of
      // it is written; the group's other writes of the turn (a leave) stay, other groups are untouched.
      this.parts.dropped();
      takeBack(this.manager, groupId, entries, this.runs);
      this.hooks.onTargetFailed?.(groupId, entries.length, error);
      for (const entry of entries) {
        this.unpark(groupId, entry);
        this.answers.fail(entry.index, error, true);
      }
      return [];
    }
  }

  /** The group's subscription as it is now, its resolved regexes kept for the rest of this step. */
  private subscriptionOf(group: ConsumerGroup): GroupSubscription {
    const subscription = this.manager.currentSubscription(group);
    this.resolved.set(group.groupId, subscription.resolved);
    return subscription;
  }

  /** One parked member reconciled towards its group's target, with the group's subscription as it is now. */
  private reconcileParked(groupId: string, parked: Parked): void {
    if (this.writesFailed(groupId, parked)) return;
    let held = false;
    this.parts.guarded(parked.index, () => {
      const group = this.manager.group(groupId);
      if (!group) throw new ConsumerGroupError('GROUP_ID_NOT_FOUND', `Consumer group ${groupId} not found.`);
      const memberId = parked.join.prepared.updated.memberId;
      const member = group.member(memberId);
      if (!member)
        throw new ConsumerGroupError('UNKNOWN_MEMBER_ID', `Member ${memberId} is not a member of group ${groupId}.`);
      held = this.finish(group, parked, member, true);
    });
    // A held heartbeat still waits for its answer: a later request of its member waits for it.
    if (!held) this.unpark(groupId, parked);
  }

  /**
   * Held answers that may go: each member is reconciled again with its request, as its next heartbeat
   * would be, when the group holds it as its answer left it; otherwise (fenced, or changed by something
   * else meanwhile) it gets the answer as it was. Returns how many.
   */
  private answerHeld(due: Held<Parked>[]): number {
    for (const { groupId, memberId, member, answer, parked } of due) {
      if (this.writesFailed(groupId, parked)) continue;
      this.parts.guarded(parked.index, () => {
        const group = this.manager.group(groupId);
        if (group?.member(memberId) !== member) this.answers.give(parked.index, answer);
        else this.finish(group, parked, member, false);
      });
      this.unpark(groupId, parked);
    }
    return due.length;
  }

  /**
   * Step 4 for a parked heartbeat: `member` reconciled towards its target, its records written, and its
   * answer given; or, the `first` time only (a hold never starts again), held (true) while it waits
   * for partitions others must release.
   */
  private finish(group: ConsumerGroup, parked: Parked, member: ConsumerGroupMember, first: boolean): boolean {
    const { groupId } = group;
    const { index, join } = parked;
    join.prepared.group = group;
    const records: LogRecord[] = [];
    const resolved = (): ReadonlyMap<string, ReadonlySet<string>> =>
      this.resolved.get(groupId) ?? this.subscriptionOf(group).resolved;
    const finished = this.manager.finishJoin(join, member, resolved, records, this.now);
    this.manager.write(records, groupId);
    this.tells.answered(groupId, member.memberId);
    this.tells.released(group, first ? join.prepared.member : member, finished.member);
    const answer = { response: finished.response, waits: true };
    // The member as its reconciliation left it: what a hold compares later changes against.
    const reconciled = first ? group.member(member.memberId) : undefined;
    if (
      reconciled !== undefined &&
      this.holds.hold(group, reconciled, answer, parked, this.hooks.clock?.() ?? this.now)
    ) {
      // Its answer goes in a later step: should this step's writes fail, it gets their error.
      parked.writes = this.writes ??= {};
      return true;
    }
    this.answers.give(index, answer);
    return false;
  }

  /** The heartbeat's records were taken back with its step's failed writes: it gets their error. */
  private writesFailed(groupId: string, parked: Parked): boolean {
    const response = parked.writes?.failure;
    if (response === undefined) return false;
    this.answers.give(parked.index, { response, waits: false });
    this.unpark(groupId, parked);
    return true;
  }
}
