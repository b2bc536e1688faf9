import type { ConsumerGroupHeartbeatRequest, ConsumerGroupHeartbeatResponse } from '@cohort/protocol';
import { operationWriteError } from '../context/store-errors';
import { steadyHeartbeat } from '../consumer/steady-heartbeat';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { CoordinatorResult, WriteOutcome } from '../runtime/coordinator-result';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import { consumerDisconnectKey } from '../shard/shard-consumer-groups';
import { heartbeatError } from './consumer-group.handlers';
import { consumerHeartbeatMayRunNow } from './consumer-heartbeat-queue';

/**
 * A steady ConsumerGroupHeartbeat (`steadyMember`: a member at its target that changes nothing) run
 * at once, as one request, instead of through the turn's batch (consumer-heartbeat-queue.ts), which a
 * steady heartbeat does not need: it writes nothing, moves no epoch and is not reconciled. Its effects
 * are the batch's for it: the member is heard from (a push is owed to it again), bound to the
 * connection it came on (a disconnect grace for it ends), its session restarts, and its answer leaves
 * once the shard's pending writes are committed (it read their state), or is their failure. Null
 * when the heartbeat must take the batch: it is not steady, or a heartbeat before it that it must not
 * overtake is still queued or under way (`consumerHeartbeatMayRunNow`: one of its member, or a change to
 * its group not applied yet). Others it passes: a member acknowledging its assignment while a burst of
 * joins is being answered is answered at once, not after them.
 */
export function steadyConsumerHeartbeat(
  shard: CoordinatorShard,
  request: ConsumerGroupHeartbeatRequest,
  context: RequestContext,
): CoordinatorResult<ConsumerGroupHeartbeatResponse> | null {
  if (!shard.isActive || !consumerHeartbeatMayRunNow(shard, request)) return null;
  const response = steadyHeartbeat(shard.consumer, request, context);
  if (response === null) return null;
  const { groupId, memberId } = request;
  shard.consumerConnections.heard(groupId, memberId);
  const { connectionId } = context;
  if (connectionId !== undefined && shard.consumerConnections.bind(groupId, memberId, connectionId))
    shard.effects.cancel(consumerDisconnectKey(groupId, memberId));
  return shard.effects.attachTo({ records: [], response, awaitsPendingWrites: true, onFailure: writeFailure });
}

/** The pending writes it waited for failed: their error, as the batch answers it. */
function writeFailure(outcome: Extract<WriteOutcome, { ok: false }>): ConsumerGroupHeartbeatResponse {
  return heartbeatError(operationWriteError(outcome.storeError), outcome.message);
}
