import type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import { type BatchOutcome, runHeartbeatBatch } from '../consumer/heartbeat-batch';
import { operationWriteError } from '../context/store-errors';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import { consumerDisconnectKey } from '../shard/coordinator-shard';
import { handleConsumerGroupHeartbeat, heartbeatError } from './consumer-group.handlers';

interface Queued {
  request: ConsumerGroupHeartbeatRequest;
  context: RequestContext;
  respond: (response: ConsumerGroupHeartbeatResponse) => void;
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
 * Runs `shard`'s heartbeats queued in this turn now: a read that arrived after them (ConsumerGroupDescribe)
 * sees what they change, and waits for their writes, as it would had they run as they arrived.
 */
export function runQueuedConsumerHeartbeats(shard: CoordinatorShard): void {
  queues.get(shard)?.drain();
}

/**
 * Kafka's `consumerGroupHeartbeat` on a shard, for every heartbeat of one turn at once
 * (`runHeartbeatBatch`: a group's target assignment is computed once per turn, not once per join). The
 * turn's heartbeats run in its check phase, as one step; every answer leaves only once the step's writes
 * are committed (a heartbeat that wrote nothing may have read their state, as Kafka's write operation
 * without records waits), an error at once. A heartbeat whose group id names a classic group runs alone,
 * through `handleConsumerGroupHeartbeat` (the conversion's records go with it). Members whose target
 * changed, or who wait for a partition a member released, are told to heartbeat now (HeartbeatNow) once
 * the writes are committed.
 */
class ConsumerHeartbeatQueue {
  private queued: Queued[] = [];

  constructor(private readonly shard: CoordinatorShard) {}

  enqueue(queued: Queued): void {
    this.queued.push(queued);
    if (this.queued.length === 1) setImmediate(() => this.drain());
  }

  drain(): void {
    const items = this.queued;
    if (items.length === 0) return;
    this.queued = [];
    const { shard } = this;
    if (!shard.isActive) {
      for (const { respond } of items)
        respond(heartbeatError(ErrorCode.NOT_COORDINATOR, 'this node no longer leads the group'));
      return;
    }
    let outcome: BatchOutcome;
    try {
      outcome = runHeartbeatBatch(shard.consumer, items, shard.env.clock.now(), {
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
      });
    } catch (error) {
      // A bug outside any one heartbeat: nothing of the batch is written, every heartbeat is answered.
      shard.effects.discard();
      shard.env.logger.error(`ConsumerGroupHeartbeat batch failed: ${String(error)}`);
      for (const { respond } of items) respond(heartbeatError(ErrorCode.UNKNOWN_SERVER_ERROR, String(error)));
      return;
    }
    items.forEach(({ request, context }, index) => {
      if (outcome.answers[index].waits) this.rememberConnection(request, context.connectionId);
    });
    // What the batch computed, in order; then each answer waits for the last write.
    for (const run of outcome.runs) void shard.run(run);
    const onFailure = (failed: { storeError: number; message: string }) =>
      heartbeatError(operationWriteError(failed.storeError), failed.message);
    items.forEach(({ respond }, index) => {
      const { response, waits } = outcome.answers[index];
      if (!waits) respond(response);
      else
        void shard
          .run({ records: [], response, awaitsPendingWrites: true, onFailure })
          .then((answer) => respond(answer ?? response));
    });
    if (outcome.tell.size > 0)
      void shard
        .run({ records: [], response: true, awaitsPendingWrites: true, onFailure: () => false })
        .then((committed) => {
          if (!committed) return;
          for (const [groupId, members] of outcome.tell)
            shard.heartbeatNow(groupId, members, 'target assignment changed');
        });
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
