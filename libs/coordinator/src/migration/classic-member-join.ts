import type { JoinGroupRequest, JoinGroupResponse, Subscription } from '@cohort/protocol';
import { CONSUMER_PROTOCOL_TYPE, ErrorCode } from '@cohort/protocol';
import type { LogRecord } from '@cohort/replication';
import type { RequestContext } from '../ports/group-coordinator.api';
import { joinError } from '../responses/group-responses';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { answer } from '../runtime/coordinator-result';
import { operationWriteError } from '../context/store-errors';
import { ConsumerGroupError } from '../consumer/consumer-errors';
import type { ConsumerGroup } from '../consumer/consumer-group';
import {
  type ConsumerGroupMember,
  newConsumerGroupMember,
  updatedMember as withChanges,
} from '../consumer/consumer-group-member';
import { memberTombstones } from '../consumer/consumer-group-records';
import {
  currentAssignmentRecord,
  memberSubscriptionRecord,
  targetAssignmentRecord,
} from '../consumer/consumer-records';
import { throwIfGroupIsFull } from '../consumer/heartbeat-validation';
import { classicJoinTimeoutKey, classicSyncTimeoutKey } from './classic-member-timers';
import type { ClassicMemberDeps } from './classic-member-deps';
import { tellTargetsChanged } from './targets-changed';

/**
 * Kafka's `classicGroupJoinToConsumerGroup`: a classic member's JoinGroup to a consumer group with
 * members. The member (new, or rejoining) is updated from its embedded `consumer` subscription and
 * goes through the consumer protocol's steps (epoch, target assignment, reconciliation, with the
 * partitions its subscription says it owns); the reply — its member epoch as the generation, no leader,
 * no members, since the coordinator assigns — leaves once the records are committed, and the member
 * must then send its SyncGroup within its rebalance timeout.
 */
export function classicJoinToConsumerGroup(
  deps: ClassicMemberDeps,
  group: ConsumerGroup,
  request: JoinGroupRequest,
  context: RequestContext,
): CoordinatorResult<JoinGroupResponse> {
  const { consumer, env, effects } = deps;
  const config = env.config;
  const groupId = group.groupId;
  if (
    request.sessionTimeoutMs < config.groupMinSessionTimeoutMs ||
    request.sessionTimeoutMs > config.groupMaxSessionTimeoutMs
  ) {
    return answer(
      joinError(
        request.memberId,
        ErrorCode.INVALID_SESSION_TIMEOUT,
        `sessionTimeoutMs ${request.sessionTimeoutMs} is outside [${config.groupMinSessionTimeoutMs}, ${config.groupMaxSessionTimeoutMs}]`,
      ),
    );
  }
  // Kafka's `throwIfClassicMemberCannotJoinConsumerGroup` (KAFKA-20640): with migration disabled no classic
  // member joins or rejoins a consumer group, whatever else its request says.
  if (config.groupConsumerMigrationPolicy === 'disabled') {
    return answer(
      joinError(
        request.memberId,
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        `Cannot join the consumer group ${groupId} with the classic protocol because the group migration is disabled.`,
      ),
    );
  }
  const instanceId = request.groupInstanceId ?? null;
  const isUnknownMember = request.memberId === '';
  const memberId = isUnknownMember ? deps.generateMemberId(context.clientId, instanceId) : request.memberId;
  const now = env.clock.now();
  const records: LogRecord[] = [];
  let updated: ConsumerGroupMember;
  let before: ConsumerGroupMember | undefined;
  try {
    throwIfGroupIsFull(group, memberId, consumer.config.maxSize);
    const names = request.protocols.map((p) => p.name);
    if (!group.supportsClassicProtocols(request.protocolType, names))
      throw new ConsumerGroupError(
        'INCONSISTENT_GROUP_PROTOCOL',
        `The group's classic members support none of the protocols ${names.join(', ')} of type ${request.protocolType}.`,
      );
    // KIP-394: a dynamic member first learns its id, and joins again with it.
    if (isUnknownMember && instanceId === null)
      return answer(joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED, 'rejoin with the member id given'));
    const member = classicMember(group, memberId, instanceId, isUnknownMember, records, now);
    before = group.member(member.memberId);
    const subscription = request.protocols[0].metadata as Subscription;
    updated = consumer.progress.advance(
      {
        group,
        groupExists: true,
        member,
        owned: subscription.ownedPartitions ?? [],
        updated: withChanges(member, {
          instanceId,
          rackId: subscription.rackId ?? member.rackId,
          rebalanceTimeoutMs: request.rebalanceTimeoutMs ?? request.sessionTimeoutMs,
          subscribedTopicNames: new Set(subscription.topics),
          clientId: context.clientId,
          clientHost: context.clientHost,
          classicMemberMetadata: {
            sessionTimeoutMs: request.sessionTimeoutMs,
            supportedProtocols: request.protocols.map((p) => ({ name: p.name, metadata: p.metadata })),
          },
        }),
      },
      records,
      now,
    );
  } catch (error) {
    effects.discard();
    if (!(error instanceof ConsumerGroupError)) throw error;
    return answer(joinError(isUnknownMember ? '' : memberId, error.errorCode, error.message));
  }
  // A classic static member taking over the instance of the last consumer-protocol member: the group is classic.
  const replacedId = instanceId === null ? undefined : group.staticMemberId(instanceId);
  const downgrade =
    replacedId !== undefined && replacedId !== updated.memberId
      ? deps.migration.downgradeOnReplace(group, replacedId, updated)
      : undefined;
  if (downgrade) {
    const { fencing, classic } = downgrade;
    const joined: JoinGroupResponse = {
      errorCode: 0,
      generationId: classic.generationId,
      protocolType: CONSUMER_PROTOCOL_TYPE,
      protocolName: classic.protocolName,
      leader: '',
      skipAssignment: false,
      memberId: updated.memberId,
      members: [],
    };
    const written = consumer.written(fencing.records, joined, undefined, fencing.settled);
    written.onFailure = (outcome) =>
      joinError(updated.memberId, operationWriteError(outcome.storeError), outcome.message);
    return effects.attachTo(written);
  }
  // The member's session is its classic one; its SyncGroup must follow within its rebalance timeout.
  effects.cancel(classicJoinTimeoutKey(groupId, updated.memberId));
  consumer.fencing.scheduleSessionTimeout(groupId, updated.memberId, request.sessionTimeoutMs);
  consumer.fencing.fenceAfter(
    classicSyncTimeoutKey(groupId, updated.memberId),
    groupId,
    updated.memberId,
    updated.rebalanceTimeoutMs,
  );
  deps.remember(groupId, updated.memberId, context.connectionId);
  const response: JoinGroupResponse = {
    errorCode: 0,
    generationId: updated.memberEpoch,
    protocolType: CONSUMER_PROTOCOL_TYPE,
    // Kafka's: the member's first protocol, which its SyncGroup must then name.
    protocolName: request.protocols[0].name,
    leader: '',
    skipAssignment: false,
    memberId: updated.memberId,
    members: [],
  };
  const result = consumer.written(records, response, groupId);
  // A member that gave partitions up may have freed those another member waits for: it is told too.
  tellTargetsChanged(
    deps,
    groupId,
    updated.memberId,
    result,
    result.records,
    releasedAny(before, updated) ? group : null,
  );
  result.awaitsPendingWrites = true;
  result.onFailure = (outcome) => joinError(updated.memberId, operationWriteError(outcome.storeError), outcome.message);
  return effects.attachTo(result);
}

/**
 * Kafka's `getOrMaybeSubscribe*ConsumerGroupMember` with `useClassicProtocol`: no epoch to check. A
 * static member that joins without its member id takes over its instance under a new id (the old
 * member's records are replaced, keeping its assignment and target); one with another member's id is
 * fenced.
 */
function classicMember(
  group: ConsumerGroup,
  memberId: string,
  instanceId: string | null,
  isUnknownMember: boolean,
  records: LogRecord[],
  now: number,
): ConsumerGroupMember {
  if (instanceId === null) return group.member(memberId) ?? newConsumerGroupMember(memberId);
  const existing = group.staticMember(instanceId);
  if (!existing) return group.member(memberId) ?? newConsumerGroupMember(memberId);
  if (existing.memberId === memberId) return existing;
  if (!isUnknownMember)
    throw new ConsumerGroupError(
      'FENCED_INSTANCE_ID',
      `Static member ${memberId} with instance id ${instanceId} is not the member of that instance.`,
    );
  const replacement = withChanges(existing, { memberId });
  records.push(
    ...memberTombstones(group.groupId, existing.memberId, now),
    memberSubscriptionRecord(group.groupId, replacement, now),
    targetAssignmentRecord(group.groupId, memberId, group.targetAssignmentOf(existing.memberId), now),
    currentAssignmentRecord(group.groupId, replacement, now),
  );
  return replacement;
}

/** Whether the member holds less than it did (a partition assigned or pending revocation is gone). */
function releasedAny(before: ConsumerGroupMember | undefined, after: ConsumerGroupMember): boolean {
  if (!before) return false;
  const holds = (member: ConsumerGroupMember, topic: string, partition: number): boolean =>
    member.assignedPartitions.get(topic)?.has(partition) === true ||
    member.partitionsPendingRevocation.get(topic)?.has(partition) === true;
  for (const held of [before.assignedPartitions, before.partitionsPendingRevocation])
    for (const [topic, partitions] of held) for (const p of partitions) if (!holds(after, topic, p)) return true;
  return false;
}
