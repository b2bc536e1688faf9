import type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import { HeartbeatBatch } from '../consumer/heartbeat-batch';
import { dropSupersededEpochRecords } from '../consumer/superseded-epoch-records';
import { operationWriteError } from '../context/store-errors';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import type { TimerOp } from '../timers/timer-op';
import type { TimerHandle } from '@cohort/replication';
import { consumerDisconnectKey } from '../shard/shard-consumer-groups';
import { handleConsumerGroupHeartbeat, heartbeatError } from './consumer-group.handlers';

interface Queued {
  request: ConsumerGroupHeartbeatRequest;
  context: RequestContext;
  respond: (response: ConsumerGroupHeartbeatResponse) => void;
}

/**
 * How many batches may be under way at once. A batch started while an older one is still being
 * reconciled runs first in each turn: it holds what arrived since (a member revoking what the older
 * batch's target gave away, told to as soon as that target committed), and the older batch's members
 * still waiting then find those partitions released in their own answer instead of being pushed again.
 * More than two: a burst that arrives in waves leaves two big batches being answered at once, and with
 * room for only those the revocation that frees their partitions waited in the queue until one ended,
 * so nearly every joiner of both was answered without its partitions and had to be pushed again.
 */
const BATCHES_UNDER_WAY = 4;

/**
 * While every batch under way only holds answers (`HeldAnswers`: members waiting for partitions others
 * revoke) and nothing is queued, how often the held answers are looked at again: a release by a heartbeat
 * starts a turn at once, but one by a timer (a fenced member) or an operator's change does not.
 */
const HELD_POLL_MS = 10;

type Failed = { storeError: number; message: string };

const writeFailure = (failed: Failed) => heartbeatError(operationWriteError(failed.storeError), failed.message);

/**
 * Runs a batch step's results in order. Consecutive ones that only arm or cancel timers (a steady
 * heartbeat's session, one per heartbeat) go as one result, their timers in the same order: one run
 * and one promise per step instead of one per heartbeat.
 */
function runInOrder(shard: CoordinatorShard, runs: CoordinatorResult<unknown>[]): void {
  let timers: TimerOp[] | null = null;
  for (const run of runs) {
    if (onlyTimers(run)) {
      timers ??= [];
      for (const op of run.timers!) timers.push(op);
      continue;
    }
    if (timers) void shard.run({ records: [], timers });
    timers = null;
    void shard.run(run);
  }
  if (timers) void shard.run({ records: [], timers });
}

/** A result that writes nothing, answers nothing and learns nothing: only timer operations. */
function onlyTimers(run: CoordinatorResult<unknown>): boolean {
  return (
    run.records.length === 0 &&
    run.timers !== undefined &&
    (run.followUps === undefined || run.followUps.length === 0) &&
    run.response === undefined &&
    run.appendFuture === undefined &&
    run.onFailure === undefined &&
    run.unwritable === undefined &&
    !run.awaitsPendingWrites
  );
}

/** A batch under way over several turns, and the heartbeats it answers (by index). */
interface Running {
  batch: HeartbeatBatch;
  items: Queued[];
}

/** Each shard's heartbeats of the current turn. */
const queues = new WeakMap<CoordinatorShard, ConsumerHeartbeatQueue>();

/**
 * A ConsumerGroupHeartbeat for `shard`: it runs at the end of this turn of the event loop together with
 * the shard's other heartbeats of the turn, and `respond` gets its answer once what they wrote commits.
 */
export function enqueueConsumerHeartbeat(shard: CoordinatorShard, queued: Queued): void {
  let queue = queues.get(shard);
  if (!queue) queues.set(shard, (queue = new ConsumerHeartbeatQueue(shard)));
  queue.enqueue(queued);
}

/**
 * A member left or was fenced from the group (a leave, a session or rebalance timeout, a closed
 * connection): `shard`'s next heartbeat batch, at the end of this turn even with no heartbeat in it,
 * computes the group's target at its new epoch, and the members it concerns are told to heartbeat now
 * (HeartbeatNow, docs/protocol.md) instead of learning of it at their next interval. Fencings of one turn share
 * one computation.
 */
export function retargetConsumerGroupSoon(shard: CoordinatorShard, groupId: string): void {
  let queue = queues.get(shard);
  if (!queue) queues.set(shard, (queue = new ConsumerHeartbeatQueue(shard)));
  queue.retarget(groupId);
}

/** Whether a heartbeat arriving now may run at once, ahead of `shard`'s queued or under way (`ConsumerHeartbeatQueue.mayRunNow`). */
export function consumerHeartbeatMayRunNow(shard: CoordinatorShard, request: ConsumerGroupHeartbeatRequest): boolean {
  return queues.get(shard)?.mayRunNow(request) ?? true;
}

/**
 * Runs `shard`'s heartbeats queued in this turn now: a read that arrived after them (ConsumerGroupDescribe)
 * sees what they change, and waits for their writes, as it would had they run as they arrived.
 */
export function runQueuedConsumerHeartbeats(shard: CoordinatorShard): void {
  queues.get(shard)?.drain();
}

/**
 * Kafka's `consumerGroupHeartbeat` on a shard, for the heartbeats queued in one turn at once
 * (`HeartbeatBatch`: a group's target assignment is computed once per batch, not once per join). The
 * batch runs in the check phase, over turns (`consumerHeartbeatPartsPerTurn`); heartbeats arriving meanwhile
 * form the next batch, which starts at once beside it (BATCHES_UNDER_WAY) unless one of them is of a
 * member still waiting for its answer in a running batch (then they wait for that batch to end). What
 * each part writes joins the log at once, and every answer leaves only once the writes before it are
 * committed (a heartbeat that wrote nothing may have read their state, as Kafka's write operation
 * without records waits), an error at once. A heartbeat whose group id names a classic group runs alone,
 * through `handleConsumerGroupHeartbeat` (the conversion's records go with it). Members whose target
 * changed, or who wait for a partition a member released, are told to heartbeat now (HeartbeatNow) once
 * the writes so far are committed (after each part, those not waiting for an answer of the batch), once
 * until they heartbeat (`MemberConnections.tell`). A member left waiting for partitions others must
 * first revoke has its answer held until they are released (`HeldAnswers`, a bounded time): the batch
 * stays under way meanwhile without counting against BATCHES_UNDER_WAY (the revocations it waits for
 * come in newer batches), a later request of the member or a read ends the hold at once, and when only
 * held answers are left the queue looks at them every HELD_POLL_MS instead of every turn.
 */
class ConsumerHeartbeatQueue {
  private queued: Queued[] = [];
  /** The batches running over several turns, oldest first, with their heartbeats. */
  private running: Running[] = [];
  private scheduled = false;
  /** The look at held answers set for later while nothing else is to run (HELD_POLL_MS). */
  private poll: TimerHandle | null = null;
  /** `groupId\u0000memberId` of each member with a heartbeat queued (not yet in a batch). */
  private readonly queuedMembers = new Set<string>();
  /** The groups with a heartbeat queued (not yet in a batch). */
  private readonly queuedGroups = new Set<string>();
  /** Groups a member left or was fenced from since the last batch started: the next one computes their targets. */
  private moved = new Set<string>();

  constructor(private readonly shard: CoordinatorShard) {
    shard.consumerHeartbeatWaiting = (groupId, memberId) => this.waiting(groupId, memberId);
  }

  /** A heartbeat of the member arrived and is not answered yet: queued, or waiting in a running batch. */
  private waiting(groupId: string, memberId: string): boolean {
    return (
      this.queuedMembers.has(`${groupId}\u0000${memberId}`) ||
      this.running.some(({ batch }) => batch.awaits(groupId, memberId))
    );
  }

  get idle(): boolean {
    return this.queued.length === 0 && this.running.length === 0 && this.moved.size === 0;
  }

  /**
   * Whether a heartbeat arriving now may run ahead of the heartbeats queued or under way. Those of other
   * groups, and the reconciliation of other members of its own, change nothing it reads: members' requests
   * come on their own connections and carry no order between them. What it may not pass: a request of its
   * own member (one member's requests keep their order), and a change to its group not applied yet — a
   * heartbeat of the group queued or put off to a batch's next round, or a member gone whose group's target
   * is still to be computed. A static member's instance may be taken over by a join under another member
   * id, so its heartbeats wait until nothing is queued or under way.
   */
  mayRunNow({ groupId, memberId, instanceId }: ConsumerGroupHeartbeatRequest): boolean {
    if (this.idle) return true;
    if ((instanceId !== undefined && instanceId !== null) || this.queuedGroups.has(groupId) || this.moved.has(groupId))
      return false;
    return !this.running.some(({ batch }) => batch.defers(groupId) || batch.awaits(groupId, memberId));
  }

  retarget(groupId: string): void {
    this.moved.add(groupId);
    this.schedule();
  }

  enqueue(queued: Queued): void {
    this.arrived(queued);
    // An answer held for this member goes first: its new request runs after it, as it arrived.
    const { groupId, memberId, instanceId } = queued.request;
    for (const { batch } of this.running) batch.holds.wake(groupId, memberId, instanceId);
    this.queuedMembers.add(`${queued.request.groupId}\u0000${queued.request.memberId}`);
    this.queuedGroups.add(queued.request.groupId);
    this.queued.push(queued);
    this.schedule();
  }

  /**
   * SPEC (MEMBER_DISCONNECT_GRACE_MS): a member whose socket closed keeps its place if a request of it
   * arrives on a new connection within the grace, which binds it there. Bound as it arrives, not once
   * answered: behind a batch under way (after a pause of the node, whose sockets all closed), its answer
   * may come after the grace, and fencing a member whose request is already here only brought it back as a
   * new member, two group epoch bumps and two target computations for nothing. Only a request the epoch
   * check would let in (a rejoin, the member's epoch or its previous one) binds early: a stale one from a
   * zombie connection moves nothing until it is answered, as before.
   */
  private arrived({ request, context }: Queued): void {
    const { groupId, memberId, memberEpoch } = request;
    const { connectionId } = context;
    if (memberEpoch < 0 || connectionId === undefined) return;
    const { shard } = this;
    const member = shard.consumerGroup(groupId)?.member(memberId);
    if (!member) return;
    if (memberEpoch !== 0 && memberEpoch !== member.memberEpoch && memberEpoch !== member.previousMemberEpoch) return;
    if (shard.consumerConnections.bind(groupId, memberId, connectionId))
      shard.effects.cancel(consumerDisconnectKey(groupId, memberId));
  }

  /** The running batches to their end, then every queued heartbeat as one batch, now (a read must see them all). */
  drain(): void {
    for (const { batch } of this.running) batch.holds.end();
    for (const running of [...this.running]) this.continue(running, Infinity);
    const started = this.start();
    if (started) this.continue(started, Infinity);
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    this.poll?.cancel();
    this.poll = null;
    setImmediate(() => {
      this.scheduled = false;
      // A batch that only holds answers waits for others' heartbeats: it must not keep them from starting.
      const underWay = this.running.filter(({ batch }) => !batch.onlyHolds).length;
      if (underWay < BATCHES_UNDER_WAY && !this.waitsForRunning()) this.start();
      // Newest first: it holds what arrived since the older batches began (see BATCHES_UNDER_WAY). The
      // turn's parts are shared, so two batches under way do not make a turn twice as long; an older one
      // still gets a share each turn, so a stream of new batches cannot starve it.
      const perTurn = this.shard.env.config.consumerHeartbeatPartsPerTurn;
      let left = perTurn;
      for (const running of [...this.running].reverse())
        left -= this.continue(running, Math.max(left, perTurn / BATCHES_UNDER_WAY / 2));
      if (this.queued.length > 0 || this.moved.size > 0 || this.running.some(({ batch }) => !batch.onlyHolds))
        this.schedule();
      else if (this.running.length > 0) this.pollHeld();
    });
  }

  /** Nothing to run but held answers: they are looked at again in a while, or by the next turn that runs. */
  private pollHeld(): void {
    const { clock } = this.shard.env;
    const now = clock.now();
    let next = now + HELD_POLL_MS;
    for (const { batch } of this.running) next = Math.min(next, batch.holds.nextDeadline() ?? next);
    this.poll = clock.schedule(Math.max(0, next - now), () => {
      this.poll = null;
      this.schedule();
    });
  }

  /** A queued heartbeat's member (or instance) still waits for its answer in a running batch: the queue waits for that batch. */
  private waitsForRunning(): boolean {
    if (this.running.length === 0) return false;
    return this.queued.some(({ request }) =>
      this.running.some(({ batch }) => batch.awaits(request.groupId, request.memberId, request.instanceId)),
    );
  }

  /** The queued heartbeats become a running batch (those arriving meanwhile wait for the next one). */
  private start(): Running | null {
    const items = this.queued;
    const moved = this.moved;
    if (items.length === 0 && moved.size === 0) return null;
    this.queued = [];
    this.moved = new Set();
    // In the batch now: `batch.awaits` knows them until they are answered.
    this.queuedMembers.clear();
    this.queuedGroups.clear();
    const { shard } = this;
    // Each member heard from reads the group as this batch leaves it: a push it is owed goes again.
    for (const { request } of items) shard.consumerConnections.heard(request.groupId, request.memberId);
    const batch = new HeartbeatBatch(shard.consumer, items, shard.env.clock.now(), {
      clock: shard.env.config.consumerHoldsUnreleasedAnswers ? () => shard.env.clock.now() : undefined,
      alone: ({ request, context }) =>
        this.namesClassicGroup(request.groupId) ? handleConsumerGroupHeartbeat(shard, request, context) : null,
      onBug: (error) =>
        shard.env.logger.error(
          `ConsumerGroupHeartbeat failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        ),
      onTargetFailed: (groupId, heartbeats, error) =>
        shard.env.logger.error(
          `consumer group ${groupId}: no target assignment, ${heartbeats} heartbeat(s) failed and nothing of them was written: ${error instanceof Error ? error.message : String(error)}`,
        ),
      moved,
    });
    const running = { batch, items };
    this.running.push(running);
    return running;
  }

  /** Runs about `budget` parts of a running batch, then hands out what they wrote, answered and must push; returns the parts run. */
  private continue(running: Running, budget: number): number {
    const { batch, items } = running;
    const { shard } = this;
    let done: boolean;
    if (!shard.isActive) {
      batch.abandon(heartbeatError(ErrorCode.NOT_COORDINATOR, 'this node no longer leads the group'));
      done = true;
    } else {
      try {
        done = batch.step(budget);
      } catch (error) {
        // A bug outside any one heartbeat: what it recorded is dropped, every heartbeat left is answered.
        shard.effects.discard();
        shard.env.logger.error(`ConsumerGroupHeartbeat batch failed: ${String(error)}`);
        batch.abandon(heartbeatError(ErrorCode.UNKNOWN_SERVER_ERROR, String(error)));
        done = true;
      }
    }
    // What the step computed, in order, before anything else writes (one append: an epoch record a later
    // one of the same group replaces goes unwritten); then its answers wait for the last write.
    const runs = batch.runs.splice(0);
    dropSupersededEpochRecords(runs);
    runInOrder(shard, runs);
    const waiting: Queued[] = [];
    const responses: ConsumerGroupHeartbeatResponse[] = [];
    for (const index of batch.answers.fresh.splice(0)) {
      const queued = items[index];
      const { response, waits } = batch.answers.handOut(index);
      if (!waits) {
        queued.respond(response);
        continue;
      }
      this.rememberConnection(queued.request, queued.context.connectionId);
      waiting.push(queued);
      responses.push(response);
    }
    // The heartbeats these writes carry that a later step answers (`StepWrites`): should the writes fail,
    // they get the failure too, not the group without them.
    const written = done ? null : batch.takeWrites();
    // One wait for all of them (they wait for the same writes): not a promise and a closure per answer.
    if (waiting.length > 0 || written)
      void shard
        .run<Failed | null>({ records: [], response: null, awaitsPendingWrites: true, onFailure: (failed) => failed })
        .then((failed) => {
          const failure = failed ? writeFailure(failed) : undefined;
          if (written && failure) written.failure = failure;
          for (let i = 0; i < waiting.length; i++) waiting[i].respond(failure ?? responses[i]);
        });
    if (done) this.running = this.running.filter((r) => r !== running);
    // Members not waiting for an answer of this batch are pushed once what it wrote so far commits; the
    // others once their answer is out (those still told when the batch ends).
    const tell = this.notAwaited(done ? batch.tell : batch.takeTells());
    if (tell.size > 0)
      void shard
        .run({ records: [], response: true, awaitsPendingWrites: true, onFailure: () => false })
        .then((committed) => {
          if (!committed) return;
          for (const [groupId, members] of tell) shard.heartbeatNow(groupId, members, 'target assignment changed');
        });
    return batch.stepParts;
  }

  /**
   * `tell` without the members still waiting for an answer in a running batch: that answer reconciles
   * them with the group as it is then, so a push would only bring one more heartbeat.
   */
  private notAwaited(tell: Map<string, Set<string>>): Map<string, Set<string>> {
    if (this.running.length === 0) return tell;
    for (const [groupId, members] of tell) {
      for (const memberId of members)
        if (this.running.some(({ batch }) => batch.awaits(groupId, memberId))) members.delete(memberId);
      if (members.size === 0) tell.delete(groupId);
    }
    return tell;
  }

  /** A classic group (not Dead) holds the id and no consumer group does yet: the heartbeat may convert it. */
  private namesClassicGroup(groupId: string): boolean {
    const classic = this.shard.groups.get(groupId);
    return classic !== undefined && !classic.is('Dead') && !this.shard.consumerGroup(groupId);
  }

  /** The connection a member heartbeats on is where its pushes go; a member that left has none. */
  private rememberConnection(request: ConsumerGroupHeartbeatRequest, connectionId: string | undefined): void {
    const { groupId, memberId } = request;
    const { shard } = this;
    if (request.memberEpoch < 0) shard.consumerConnections.forget(groupId, memberId);
    // A member heard from on a new connection is back: a disconnect grace running for it ends.
    else if (connectionId !== undefined && shard.consumerConnections.bind(groupId, memberId, connectionId))
      shard.effects.cancel(consumerDisconnectKey(groupId, memberId));
  }
}
