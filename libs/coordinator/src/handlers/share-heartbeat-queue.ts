import type { ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse } from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import type { DeferredShareHeartbeats } from '../share/share-heartbeat-halves';
import { shareHeartbeatError } from '../share/share-group-validation';
import { carryAndTell, handleShareGroupHeartbeat, shareWriteFailure } from './share-group-handlers';

interface QueuedShareHeartbeat {
  request: ShareGroupHeartbeatRequest;
  context: RequestContext;
  respond: (response: ShareGroupHeartbeatResponse) => void;
}

/** Each shard's share heartbeats of the current turn. */
const queues = new WeakMap<CoordinatorShard, ShareHeartbeatQueue>();

/**
 * A ShareGroupHeartbeat for `shard`: it runs at the end of this turn of the event loop with the shard's
 * other share heartbeats of the turn, and `respond` gets its answer once what it wrote commits.
 */
export function enqueueShareHeartbeat(shard: CoordinatorShard, queued: QueuedShareHeartbeat): void {
  let queue = queues.get(shard);
  if (!queue) queues.set(shard, (queue = new ShareHeartbeatQueue(shard)));
  queue.enqueue(queued);
}

/**
 * Runs `shard`'s share heartbeats queued in this turn now: a request that arrived after them (an
 * acquire, an acknowledgement, a describe) sees what they change, as it would had they run as they arrived.
 */
export function runQueuedShareHeartbeats(shard: CoordinatorShard): void {
  queues.get(shard)?.drain();
}

/**
 * Kafka's `shareGroupHeartbeat` for the heartbeats of one turn at once. Each runs in arrival order up to
 * the target assignment (its member and the group epoch, applied at once, so the next one sees them);
 * those that need a new target wait, and once the turn's heartbeats have run each group's target is
 * computed once, at its latest epoch, and its waiting members take theirs (`finishDeferred`). A burst of
 * N joins to a share group then runs the assignor once instead of N times over a growing group (1,000
 * members joining at once ran it 1,000 times, seconds of the shard's time). The epochs stay Kafka's,
 * one bump per join. Leaves are written at once, their group's new target left to that one computation
 * too; a leave of a group whose joins of the turn wait for their target finishes them first, and a
 * member's second heartbeat of the turn runs after its first is finished.
 */
class ShareHeartbeatQueue {
  private queued: QueuedShareHeartbeat[] = [];
  private scheduled = false;

  constructor(private readonly shard: CoordinatorShard) {}

  enqueue(queued: QueuedShareHeartbeat): void {
    this.queued.push(queued);
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.drain();
    });
  }

  drain(): void {
    while (this.queued.length > 0) {
      const items = this.queued;
      this.queued = [];
      this.queued = this.runBatch(items).concat(this.queued);
    }
  }

  /** Runs `items`; returns those left for the next batch (a member's later heartbeats). */
  private runBatch(items: QueuedShareHeartbeat[]): QueuedShareHeartbeat[] {
    const later: QueuedShareHeartbeat[] = [];
    const seen = new Set<string>();
    const deferred = new Map<string, { heartbeats: DeferredShareHeartbeats; waiting: QueuedShareHeartbeat[] }>();
    const deferredOf = (groupId: string): DeferredShareHeartbeats => {
      let entry = deferred.get(groupId);
      if (!entry) {
        entry = { heartbeats: { firsts: [], write: null, records: [], timers: [], followUps: [] }, waiting: [] };
        deferred.set(groupId, entry);
      }
      return entry.heartbeats;
    };
    for (const queued of items) {
      const { groupId, memberId, memberEpoch } = queued.request;
      const key = `${groupId}\u0000${memberId}`;
      if (seen.has(key)) {
        later.push(queued);
        continue;
      }
      seen.add(key);
      // A leave writes at once: the heartbeats applied into the group's one write waiting for its target
      // are finished first (a group's writes go to the log in the order they were applied).
      const waiting = deferred.get(groupId);
      if (waiting?.heartbeats.write && memberEpoch < 0) {
        deferred.delete(groupId);
        this.finish(groupId, waiting.heartbeats, waiting.waiting);
      }
      if (this.runOne(queued, deferredOf)) deferred.get(groupId)!.waiting.push(queued);
    }
    for (const [groupId, { heartbeats, waiting }] of deferred) this.finish(groupId, heartbeats, waiting);
    return later;
  }

  /** One heartbeat, answered once what it wrote commits; true when it waits for its group's target. */
  private runOne(
    { request, context, respond }: QueuedShareHeartbeat,
    deferredOf: (groupId: string) => DeferredShareHeartbeats,
  ): boolean {
    const { shard } = this;
    if (!shard.isActive) {
      respond(shareHeartbeatError(KafkaError.of('NOT_COORDINATOR', 'this node no longer leads the group')));
      return false;
    }
    let result;
    try {
      result = handleShareGroupHeartbeat(shard, request, context, deferredOf);
    } catch (error) {
      shard.effects.discard();
      respond(this.failure(error));
      return false;
    }
    if (result === null) return true;
    shard.run(result).then(
      (response) => respond(response ?? shareHeartbeatError(KafkaError.of('UNKNOWN_SERVER_ERROR'))),
      (error: unknown) => respond(this.failure(error)),
    );
    return false;
  }

  /** The group's waiting heartbeats take their targets; their answers leave once their one write commits. */
  private finish(groupId: string, heartbeats: DeferredShareHeartbeats, waiting: QueuedShareHeartbeat[]): void {
    const { shard } = this;
    let finished;
    try {
      finished = shard.share.finishDeferred(groupId, heartbeats);
    } catch (error) {
      shard.effects.discard();
      for (const { respond } of waiting) respond(this.failure(error));
      return;
    }
    const { result, responses, changed } = finished;
    waiting.forEach(({ request, context }, i) => {
      if (responses[i].errorCode === ErrorCode.NONE)
        shard.shareConnections.remember(groupId, request.memberId, context.connectionId, shard.effects);
    });
    carryAndTell(shard, groupId, result, changed);
    void shard.run(result);
    // One wait for all of them: they wait for the same write (and those before it).
    void shard
      .run<ShareGroupHeartbeatResponse | null>({
        records: [],
        response: null,
        awaitsPendingWrites: true,
        onFailure: shareWriteFailure,
      })
      .then(
        (failure) => waiting.forEach(({ respond }, i) => respond(failure ?? responses[i])),
        (error: unknown) => waiting.forEach(({ respond }) => respond(this.failure(error))),
      );
  }

  /** A bug (not a Kafka error) is logged and answered UNKNOWN_SERVER_ERROR; a Kafka error is answered as it is. */
  private failure(error: unknown): ShareGroupHeartbeatResponse {
    if (error instanceof KafkaError) return shareHeartbeatError(error);
    this.shard.env.logger.error(
      `ShareGroupHeartbeat failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
    );
    return shareHeartbeatError(KafkaError.of('UNKNOWN_SERVER_ERROR', String(error)));
  }
}
