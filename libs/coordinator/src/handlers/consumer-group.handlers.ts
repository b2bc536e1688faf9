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
import { decodeConsumerRecordKey } from '../consumer/consumer-records';
import { MemberState } from '../consumer/member-state';
import type { ConsumerGroupMember } from '../consumer/consumer-group-member';
import type { LogRecord } from '@cohort/replication';
import type { CoordinatorShard } from '../shard/coordinator-shard';
import { consumerDisconnectKey } from '../shard/shard-consumer-groups';
import type { Upgrade } from '../migration/group-migration';
import { ConsumerGroupError } from '../consumer/consumer-errors';
import { throwIfHeartbeatRequestIsInvalid } from '../consumer/heartbeat-validation';

/**
 * Kafka's `consumerGroupHeartbeat` on a shard. A group id names one group of one type. An Empty classic
 * group gives way to the consumer group its first heartbeat creates (its metadata record gets a
 * tombstone with the heartbeat's records; its offsets stay, as Kafka's offsets do not depend on the
 * group type). A classic group with members becomes a consumer group online when a member joins (epoch
 * 0) and GROUP_CONSUMER_MIGRATION_POLICY allows it (Kafka's `convertToConsumerGroup`; its records go
 * first in this heartbeat's write); otherwise it is not a consumer group (GROUP_ID_NOT_FOUND, as Kafka
 * answers). A heartbeat that writes nothing still answers only once the shard's pending writes are
 * committed (Kafka's write operation with no records), since it may have read their state.
 */
export function handleConsumerGroupHeartbeat(
  shard: CoordinatorShard,
  request: ConsumerGroupHeartbeatRequest,
  context: RequestContext,
): CoordinatorResult<ConsumerGroupHeartbeatResponse> {
  const classic = shard.groups.get(request.groupId);
  const converting = classic !== undefined && !classic.is('Dead') && !shard.consumerGroup(request.groupId);
  let upgrade: Upgrade | undefined;
  if (converting && !classic.is('Empty')) {
    if (!isValidHeartbeat(shard, request)) return shard.consumer.heartbeat(request, context);
    const refusal = request.memberEpoch === 0 ? shard.migration.upgradeRefusal(classic) : 'it is a classic group';
    if (refusal !== undefined)
      return answer(
        heartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${request.groupId} is not a consumer group: ${refusal}.`),
      );
    upgrade = shard.migration.upgrade(classic);
  }
  const ownedBefore = ownedCount(shard.consumerGroup(request.groupId)?.member(request.memberId));
  const result = shard.consumer.heartbeat(request, {
    clientId: context.clientId,
    clientHost: context.clientHost,
    aclCaller: context.aclCaller,
    principal: context.principal,
  });
  const response = result.response!;
  if (response.errorCode !== ErrorCode.NONE) {
    // The heartbeat was refused: the group stays classic (its parked replies were answered; members rejoin).
    upgrade?.settled(false);
    return result;
  }
  if (upgrade) withUpgrade(result, upgrade);
  // The Empty classic group's record goes once the consumer group exists (only if it was ever written).
  else if (converting && result.records.length > 0 && classic.generationId > 0)
    result.records.unshift(groupTombstone(request.groupId, shard.env.clock.now()));
  rememberConnection(shard, request, context.connectionId);
  const released = ownedCount(shard.consumerGroup(request.groupId)?.member(request.memberId)) < ownedBefore;
  const toTell = membersToTell(shard, request, result.records, released);
  if (toTell.size > 0) {
    const applied = result.appendFuture;
    result.appendFuture = (outcome) => {
      applied?.(outcome);
      if (outcome.ok) shard.heartbeatNow(request.groupId, toTell, 'target assignment changed');
    };
  }
  result.awaitsPendingWrites = true;
  result.onFailure = (outcome) => {
    const code = operationWriteError(outcome.storeError);
    return heartbeatError(code, outcome.message);
  };
  return result;
}

/** Whether the manager would take the request at all: an invalid one converts nothing and gets its error. */
function isValidHeartbeat(shard: CoordinatorShard, request: ConsumerGroupHeartbeatRequest): boolean {
  try {
    throwIfHeartbeatRequestIsInvalid(
      request,
      shard.env.consumerAssignors.map((assignor) => assignor.name),
    );
    return true;
  } catch (error) {
    if (error instanceof ConsumerGroupError) return false;
    throw error;
  }
}

/** The conversion's records go first in the heartbeat's write, and learn its outcome after the heartbeat's own. */
function withUpgrade(result: CoordinatorResult<ConsumerGroupHeartbeatResponse>, upgrade: Upgrade): void {
  result.records.unshift(...upgrade.records);
  const applied = result.appendFuture;
  result.appendFuture = (outcome) => {
    applied?.(outcome);
    upgrade.settled(outcome.ok);
  };
}

/** The connection a member heartbeats on is where its pushes go; a member that left has none. */
function rememberConnection(
  shard: CoordinatorShard,
  request: ConsumerGroupHeartbeatRequest,
  connectionId: string | undefined,
): void {
  const { groupId, memberId } = request;
  if (request.memberEpoch < 0) shard.consumerConnections.forget(groupId, memberId);
  // A member heard from on a new connection is back: a disconnect grace running for it ends.
  else if (connectionId !== undefined && shard.consumerConnections.bind(groupId, memberId, connectionId))
    shard.effects.cancel(consumerDisconnectKey(groupId, memberId));
}

/** The partitions a member holds, assigned or pending revocation (0 for none). */
function ownedCount(member: ConsumerGroupMember | undefined): number {
  if (!member) return 0;
  let count = 0;
  for (const partitions of member.assignedPartitions.values()) count += partitions.size;
  for (const partitions of member.partitionsPendingRevocation.values()) count += partitions.size;
  return count;
}

/**
 * The other members this heartbeat concerns (SPEC's HeartbeatNow): those whose target its records
 * changed, and, when the member gave partitions up (`released`), those waiting for unreleased
 * partitions, which may now be free.
 */
function membersToTell(
  shard: CoordinatorShard,
  request: ConsumerGroupHeartbeatRequest,
  records: readonly LogRecord[],
  released: boolean,
): Set<string> {
  const tell = new Set<string>();
  for (const record of records) {
    const key = decodeConsumerRecordKey(record.key);
    if (key?.type === 'consumer-group-target-assignment-member' && key.memberId !== request.memberId)
      tell.add(key.memberId);
  }
  const group = shard.consumerGroup(request.groupId);
  if (released && group) {
    for (const member of group.members.values())
      if (member.memberId !== request.memberId && member.state === MemberState.UNRELEASED_PARTITIONS)
        tell.add(member.memberId);
  }
  return tell;
}

/**
 * Kafka's ConsumerGroupDescribe for one group: an id that names no consumer group is GROUP_ID_NOT_FOUND,
 * whose message says whether it names a group of another type (Kafka's `consumerGroup(groupId)`).
 */
export function describeOneConsumerGroup(shard: CoordinatorShard, groupId: string): DescribedConsumerGroup {
  const group = shard.consumerGroup(groupId);
  if (!group) {
    const classic = shard.groups.get(groupId);
    const otherType = shard.shareGroup(groupId) !== undefined || (classic !== undefined && !classic.is('Dead'));
    return consumerGroupNotFound(
      groupId,
      otherType ? `Group ${groupId} is not a consumer group.` : `Group ${groupId} not found.`,
    );
  }
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
