import type {
  DescribedShareGroup,
  ListedGroup,
  ShareGroupHeartbeatRequest,
  ShareGroupHeartbeatResponse,
} from '@cohort/protocol';
import { ErrorCode, type ErrorCodeValue, errorName, KafkaError } from '@cohort/protocol';
import { SIMPLE_SHARE_ASSIGNOR_NAME } from '@cohort/assignors';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { CoordinatorResult, WriteOutcome } from '../runtime/coordinator-result';
import { answer } from '../runtime/coordinator-result';
import { operationWriteError } from '../context/store-errors';
import { toTopicPartitionList } from '../consumer/topic-partitions';
import { shareHeartbeatError, throwIfShareHeartbeatIsInvalid } from '../share/share-group-validation';
import type { ShareGroup } from '../share/share-group-model';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import type { DeferredShareHeartbeats } from '../share/share-heartbeat-halves';

/**
 * Kafka's `shareGroupHeartbeat` on a shard. A group id names one group of one type: an id that names
 * a classic or consumer group is GROUP_ID_NOT_FOUND ("not a share group"; Kafka converts nothing to or
 * from share groups). Once the records commit, the other members whose target changed are told to
 * heartbeat now. A heartbeat that writes nothing still answers only once the shard's pending writes
 * are committed, since it may have read their state.
 */
export function handleShareGroupHeartbeat(
  shard: CoordinatorShard,
  request: ShareGroupHeartbeatRequest,
  context: RequestContext,
): CoordinatorResult<ShareGroupHeartbeatResponse>;
/**
 * In a batch (share-heartbeat-queue.ts): null when the heartbeat waits in `deferredOf(groupId)` for its
 * group's target, answered by `finishDeferredShareHeartbeats`.
 */
export function handleShareGroupHeartbeat(
  shard: CoordinatorShard,
  request: ShareGroupHeartbeatRequest,
  context: RequestContext,
  deferredOf: (groupId: string) => DeferredShareHeartbeats,
): CoordinatorResult<ShareGroupHeartbeatResponse> | null;
export function handleShareGroupHeartbeat(
  shard: CoordinatorShard,
  request: ShareGroupHeartbeatRequest,
  context: RequestContext,
  deferredOf?: (groupId: string) => DeferredShareHeartbeats,
): CoordinatorResult<ShareGroupHeartbeatResponse> | null {
  // Kafka checks the request (its ids, epoch and subscription) before it looks the group up.
  try {
    throwIfShareHeartbeatIsInvalid(request);
  } catch (error) {
    if (!(error instanceof KafkaError)) throw error;
    return answer(shareHeartbeatError(error));
  }
  const other = otherGroupType(shard, request.groupId);
  if (other && !shard.shareGroup(request.groupId))
    return answer(
      shareHeartbeatError(KafkaError.of('GROUP_ID_NOT_FOUND', `Group ${request.groupId} is not a share group.`)),
    );
  const from = { clientId: context.clientId, clientHost: context.clientHost, principal: context.principal };
  const step = deferredOf
    ? shard.share.heartbeatInBatch(request, from, deferredOf)
    : shard.share.heartbeat(request, from);
  if (step === null) return null;
  const { result, changed } = step;
  const response = result.response!;
  if (response.errorCode !== ErrorCode.NONE) return result;
  if (request.memberEpoch < 0) shard.shareConnections.forget(request.groupId, request.memberId, shard.effects);
  else shard.shareConnections.remember(request.groupId, request.memberId, context.connectionId, shard.effects);
  carryAndTell(shard, request.groupId, result, changed);
  result.awaitsPendingWrites = true;
  result.onFailure = shareWriteFailure;
  return result;
}

/**
 * A share heartbeat's write, completed: what the shard's effects recorded after the step (the
 * connections' timers) goes with it, and the members whose target changed are told to heartbeat now
 * once it commits.
 */
export function carryAndTell<T>(
  shard: CoordinatorShard,
  groupId: string,
  result: CoordinatorResult<T>,
  changed: string[],
): void {
  const late = shard.effects.take();
  result.timers = [...(result.timers ?? []), ...late.timers];
  if (late.followUps.length > 0) result.followUps = [...(result.followUps ?? []), ...late.followUps];
  if (changed.length === 0) return;
  const applied = result.appendFuture;
  result.appendFuture = (outcome) => {
    applied?.(outcome);
    if (outcome.ok) shard.shareHeartbeatNow(groupId, changed, 'target assignment changed');
  };
}

/** A share heartbeat's answer when its write failed. */
export function shareWriteFailure(outcome: Extract<WriteOutcome, { ok: false }>): ShareGroupHeartbeatResponse {
  return shareHeartbeatError(
    new KafkaError(operationWriteError(outcome.storeError) as ErrorCodeValue, outcome.message),
  );
}

/** Whether the id names a live classic group or a consumer group of this shard. */
export function otherGroupType(shard: CoordinatorShard, groupId: string): 'classic' | 'consumer' | undefined {
  if (shard.consumerGroup(groupId)) return 'consumer';
  const classic = shard.groups.get(groupId);
  return classic && !classic.is('Dead') ? 'classic' : undefined;
}

/** Kafka's ShareGroupDescribe for one group: an id that names no share group is GROUP_ID_NOT_FOUND. */
export function describeOneShareGroup(shard: CoordinatorShard, groupId: string): DescribedShareGroup {
  if (groupId === '') return shareGroupNotFound(groupId, 'The group id is empty.', ErrorCode.INVALID_GROUP_ID);
  const group = shard.shareGroup(groupId);
  if (!group) {
    const message = otherGroupType(shard, groupId)
      ? `Group ${groupId} is not a share group.`
      : `Group ${groupId} not found.`;
    return shareGroupNotFound(groupId, message);
  }
  return describeShareGroup(group);
}

/** Kafka's `ShareGroup.asDescribedGroup`. */
export function describeShareGroup(group: ShareGroup): DescribedShareGroup {
  return {
    errorCode: 0,
    groupId: group.groupId,
    groupState: group.state,
    groupEpoch: group.groupEpoch,
    assignmentEpoch: group.assignmentEpoch,
    assignorName: SIMPLE_SHARE_ASSIGNOR_NAME,
    members: [...group.members.values()].map((m) => ({
      memberId: m.memberId,
      rackId: m.rackId,
      memberEpoch: m.memberEpoch,
      clientId: m.clientId,
      clientHost: m.clientHost,
      subscribedTopicNames: [...m.subscribedTopicNames].sort(),
      assignment: { topicPartitions: toTopicPartitionList(m.assignedPartitions) },
    })),
  };
}

export function shareGroupNotFound(
  groupId: string,
  message: string,
  code: number = ErrorCode.GROUP_ID_NOT_FOUND,
): DescribedShareGroup {
  return {
    errorCode: code,
    errorName: errorName(code),
    errorMessage: message,
    groupId,
    groupState: '',
    groupEpoch: -1,
    assignmentEpoch: -1,
    assignorName: '',
    members: [],
  };
}

/** ListGroups entries of the shard's share groups (protocol type `share`, as Kafka lists them). */
export function listShareGroups(
  shard: CoordinatorShard,
  statesFilter: string[] | undefined,
  typesFilter: string[] | undefined,
): ListedGroup[] {
  const states = new Set((statesFilter ?? []).map((s) => s.toLowerCase()));
  const types = new Set((typesFilter ?? []).map((t) => t.toLowerCase()));
  if (types.size > 0 && !types.has('share')) return [];
  return shard.shareGroups
    .list()
    .filter((g) => states.size === 0 || states.has(g.state.toLowerCase()))
    .map((g) => ({ groupId: g.groupId, protocolType: 'share', groupState: g.state, groupType: 'share' }));
}

/** DeleteGroups of a share group: only when Empty (Kafka's `validateDeleteGroup`), its state with it. */
export function deleteShareGroup(shard: CoordinatorShard, group: ShareGroup): CoordinatorResult<number> {
  if (group.state !== 'Empty') throw KafkaError.of('NON_EMPTY_GROUP', `group ${group.groupId} is ${group.state}`);
  const gone = shard.share.deleteEmpty(group);
  return {
    records: gone.records,
    response: ErrorCode.NONE,
    onFailure: (outcome) => operationWriteError(outcome.storeError),
    appendFuture: gone.appendFuture,
  };
}
