import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  DescribedConsumerGroup,
} from '@cohort/protocol';
import { ErrorCode, errorName } from '@cohort/protocol';
import { groupTombstone } from '../records/record-builders';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { answer } from '../runtime/coordinator-result';
import { operationWriteError } from '../context/store-errors';
import { describeConsumerGroup } from '../consumer/consumer-group-rules';
import type { CoordinatorShard } from '../shard/coordinator-shard';

/**
 * Kafka's `consumerGroupHeartbeat` on a shard. A group id names one group of one type: a classic group
 * with members is not a consumer group (GROUP_ID_NOT_FOUND, as Kafka answers without a migration), an
 * Empty classic group gives way to the consumer group its first heartbeat creates (its metadata record
 * gets a tombstone with the heartbeat's records; its offsets stay, as Kafka's offsets do not depend on
 * the group type). A heartbeat that writes nothing still answers only once the shard's pending writes
 * are committed (Kafka's write operation with no records), since it may have read their state.
 */
export function handleConsumerGroupHeartbeat(
  shard: CoordinatorShard,
  request: ConsumerGroupHeartbeatRequest,
  context: RequestContext,
): CoordinatorResult<ConsumerGroupHeartbeatResponse> {
  const classic = shard.groups.get(request.groupId);
  const converting = classic !== undefined && !classic.is('Dead') && !shard.consumerGroup(request.groupId);
  if (converting && !classic.is('Empty')) {
    return answer(heartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${request.groupId} is not a consumer group.`));
  }
  const result = shard.consumer.heartbeat(request, { clientId: context.clientId, clientHost: context.clientHost });
  const response = result.response!;
  if (response.errorCode !== ErrorCode.NONE) return result;
  // The Empty classic group's record goes once the consumer group exists (only if it was ever written).
  if (converting && result.records.length > 0 && classic.generationId > 0)
    result.records.unshift(groupTombstone(request.groupId, shard.env.clock.now()));
  result.awaitsPendingWrites = true;
  result.onFailure = (outcome) => {
    const code = operationWriteError(outcome.storeError);
    return heartbeatError(code, outcome.message);
  };
  return result;
}

/** Kafka's ConsumerGroupDescribe for one group: an id that names no consumer group is GROUP_ID_NOT_FOUND. */
export function describeOneConsumerGroup(shard: CoordinatorShard, groupId: string): DescribedConsumerGroup {
  const group = shard.consumerGroup(groupId);
  if (!group) return consumerGroupNotFound(groupId, `Group ${groupId} not found.`);
  return describeConsumerGroup(group, shard.env.consumerAssignors[0]?.name ?? '');
}

/** A ConsumerGroupDescribe entry for a group that could not be described. */
export function consumerGroupNotFound(
  groupId: string,
  message: string,
  code: number = ErrorCode.GROUP_ID_NOT_FOUND,
): DescribedConsumerGroup {
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

export function heartbeatError(code: number, message: string | undefined): ConsumerGroupHeartbeatResponse {
  return {
    errorCode: code,
    errorName: errorName(code),
    ...(message === undefined ? {} : { errorMessage: message }),
    memberId: null,
    memberEpoch: 0,
    heartbeatIntervalMs: 0,
    assignment: null,
  };
}
