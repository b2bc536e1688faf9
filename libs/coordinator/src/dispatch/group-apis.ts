import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { deleteGroup, describeGroup, listGroups, notClassicGroup } from '../handlers/group-admin.handlers';
import { handleHeartbeat } from '../handlers/heartbeat.handler';
import { handleJoinGroup } from '../handlers/join-group.handler';
import { handleLeaveGroup } from '../handlers/leave-group.handler';
import { handleOffsetCommit } from '../handlers/offset-commit.handler';
import { handleOffsetDelete } from '../handlers/offset-delete.handler';
import { handleOffsetFetch } from '../handlers/offset-fetch.handler';
import { handleSyncGroup } from '../handlers/sync-group.handler';
import { consumerGroupNotFound, describeOneConsumerGroup, heartbeatError } from '../handlers/consumer-group.handlers';
import { classicJoinToConsumerGroup } from '../migration/classic-member-join';
import {
  classicHeartbeatToConsumerGroup,
  classicLeaveToConsumerGroup,
  classicSyncToConsumerGroup,
} from '../migration/classic-member-requests';
import { deleteShareGroup, listShareGroups } from '../handlers/share-group-handlers';
import { errorFields } from '../responses/error-fields';
import { joinError, syncError } from '../responses/group-responses';
import * as V from '../validation/request-validation';
import { PARKED } from '../runtime/coordinator-result';
import { enqueueConsumerHeartbeat, runQueuedConsumerHeartbeats } from '../handlers/consumer-heartbeat-queue';
import { runQueuedShareHeartbeats } from '../handlers/share-heartbeat-queue';
import { steadyConsumerHeartbeat } from '../handlers/steady-consumer-heartbeat';
import { type ApiSpec, describeEachGroup, errorFieldsOf } from './coordinator-dispatch';

export * from './share-group-apis';

/**
 * The coordinator's API table: one row per API (docs/protocol.md), run by `CoordinatorDispatch`. A
 * new API is a row here and a one-line method of `GroupCoordinator`. A row's `validate` holds only the
 * protocol's rules (validation/request-validation.ts): the request's shape is the transport's DTO's,
 * checked before any request reaches the coordinator. A handler that refuses the whole request throws
 * its KafkaError (as Kafka 4's handlers throw ApiExceptions) and the row's `errorResponse` makes the
 * answer; errors of single partitions or members stay in the response.
 */

const groupIdOf = (request: { groupId: string }): string => request?.groupId;

/** Offsets are not a share group's (Kafka's ShareGroup.validateOffsetCommit/Fetch/Delete): GROUP_ID_NOT_FOUND. */
function notShareGroup(shard: { shareGroup(groupId: string): unknown }, groupId: string): undefined {
  if (shard.shareGroup(groupId)) throw KafkaError.of('GROUP_ID_NOT_FOUND', `Group ${groupId} is not a consumer group.`);
  return undefined;
}

/** Kafka answers a failed OffsetCommit with the error on every partition (an invalid request has none to trust). */
function commitFailure(request: P.OffsetCommitRequest, error: KafkaError): P.OffsetCommitResponse {
  if (error.errorCode === ErrorCode.INVALID_REQUEST) return { ...errorFieldsOf(error), topics: [] };
  return {
    ...errorFieldsOf(error),
    topics: request.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: error.errorCode })),
    })),
  };
}

export const JOIN_GROUP: ApiSpec<P.JoinGroupRequest, P.JoinGroupResponse> = {
  name: 'JoinGroup',
  validate: V.validateJoinGroup,
  groupId: groupIdOf,
  emptyGroupIdAllowed: false,
  operation: {
    kind: 'parked',
    run: (shard, request, context, respond) => {
      // One id, one group type: a share group is not joined through the classic protocol.
      if (shard.shareGroup(request.groupId))
        throw KafkaError.of('GROUP_ID_NOT_FOUND', `Group ${request.groupId} is not a classic group.`);
      // A consumer group's classic members are answered from its state (Kafka's
      // classicGroupJoinToConsumerGroup); an Empty consumer group becomes a classic group at once.
      const consumerGroup = shard.consumerGroup(request.groupId);
      if (consumerGroup && consumerGroup.size > 0)
        return classicJoinToConsumerGroup(shard.classicMembers, consumerGroup, request, context);
      const gone = consumerGroup ? shard.consumer.deleteEmpty(consumerGroup) : undefined;
      const result = handleJoinGroup(shard.classic, request, context, respond);
      return gone ? { ...result, followUps: [gone, ...(result.followUps ?? [])] } : result;
    },
  },
  errorResponse: (request, error) => joinError(request.memberId, error.errorCode, errorMessage(error)),
};

export const SYNC_GROUP: ApiSpec<P.SyncGroupRequest, P.SyncGroupResponse> = {
  name: 'SyncGroup',
  validate: V.validateSyncGroup,
  groupId: groupIdOf,
  emptyGroupIdAllowed: false,
  // The reply is parked on the member; the result carries the leader's write of the assignment.
  operation: {
    kind: 'parked',
    run: (shard, request, context, respond) => {
      const consumerGroup = shard.consumerGroup(request.groupId);
      if (!consumerGroup) return handleSyncGroup(shard.classic, request, context, respond);
      if (consumerGroup.size === 0) throw KafkaError.of('UNKNOWN_MEMBER_ID', `group ${request.groupId} has no members`);
      return classicSyncToConsumerGroup(shard.classicMembers, consumerGroup, request, context);
    },
  },
  // The rebalance in flight was lost with the old coordinator: rejoin without rediscovery (Kafka).
  errorResponse: (_request, error) =>
    error.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS
      ? syncError(ErrorCode.REBALANCE_IN_PROGRESS, error.message)
      : syncError(error.errorCode, errorMessage(error)),
};

export const HEARTBEAT: ApiSpec<P.HeartbeatRequest, P.HeartbeatResponse> = {
  name: 'Heartbeat',
  validate: V.validateHeartbeat,
  groupId: groupIdOf,
  emptyGroupIdAllowed: false,
  operation: {
    kind: 'write',
    run: (shard, request, context) => {
      const consumerGroup = shard.consumerGroup(request.groupId);
      return consumerGroup
        ? classicHeartbeatToConsumerGroup(shard.classicMembers, consumerGroup, request, context)
        : handleHeartbeat(shard.classic, request, context);
    },
  },
  // Kafka answers blindly while loading: the member's session restarts once the group is loaded.
  errorResponse: (_request, error) =>
    error.errorCode === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS ? errorFields(ErrorCode.NONE) : errorFieldsOf(error),
};

export const LEAVE_GROUP: ApiSpec<P.LeaveGroupRequest, P.LeaveGroupResponse> = {
  name: 'LeaveGroup',
  validate: V.validateLeaveGroup,
  groupId: groupIdOf,
  emptyGroupIdAllowed: false,
  operation: {
    kind: 'write',
    run: (shard, request) => {
      const consumerGroup = shard.consumerGroup(request.groupId);
      return consumerGroup
        ? classicLeaveToConsumerGroup(shard.classicMembers, consumerGroup, request)
        : handleLeaveGroup(shard.classic, request);
    },
  },
  errorResponse: (_request, error) => ({ ...errorFieldsOf(error), members: [] }),
};

export const OFFSET_COMMIT: ApiSpec<P.OffsetCommitRequest, P.OffsetCommitResponse> = {
  name: 'OffsetCommit',
  validate: V.validateOffsetCommit,
  groupId: groupIdOf,
  emptyGroupIdAllowed: true,
  operation: {
    kind: 'write',
    run: (shard, request, context) =>
      notShareGroup(shard, request.groupId) ??
      handleOffsetCommit(shard.classic, shard.offsets, request, context, {
        consumerGroup: shard.consumerGroup(request.groupId),
      }),
  },
  errorResponse: commitFailure,
};

/** REST `POST /v1/groups/:groupId/offsets`: a generation -1 commit that only an Empty group accepts. */
export const ADMIN_OFFSET_COMMIT: ApiSpec<P.OffsetCommitRequest, P.OffsetCommitResponse> = {
  ...OFFSET_COMMIT,
  name: 'OffsetCommit (admin)',
  operation: {
    kind: 'write',
    run: (shard, request) =>
      handleOffsetCommit(
        shard.classic,
        shard.offsets,
        request,
        { clientId: 'admin', clientHost: '' },
        { adminReset: true, consumerGroup: shard.consumerGroup(request.groupId) },
      ),
  },
};

export const OFFSET_FETCH: ApiSpec<P.OffsetFetchRequest, P.OffsetFetchResponse> = {
  name: 'OffsetFetch',
  validate: () => null,
  groupId: groupIdOf,
  emptyGroupIdAllowed: true,
  operation: {
    kind: 'read',
    run: (shard, request) =>
      notShareGroup(shard, request.groupId) ??
      handleOffsetFetch(shard.groups, request, shard.consumerGroup(request.groupId)),
  },
  errorResponse: (_request, error) => ({ ...errorFieldsOf(error), topics: [] }),
};

export const OFFSET_DELETE: ApiSpec<P.OffsetDeleteRequest, P.OffsetDeleteResponse> = {
  name: 'OffsetDelete',
  validate: () => null,
  groupId: groupIdOf,
  emptyGroupIdAllowed: false,
  operation: {
    kind: 'write',
    run: (shard, request) => {
      notShareGroup(shard, request.groupId);
      const consumerGroup = shard.consumerGroup(request.groupId);
      return handleOffsetDelete(shard.groups, consumerGroup, shard.offsets, shard.env.topics, request, (topic) =>
        shard.consumer.progress.subscribesTo(consumerGroup!, topic),
      );
    },
  },
  errorResponse: (_request, error) => ({ ...errorFieldsOf(error), topics: [] }),
};

/** DescribeGroups for one of its groups: a failure is that group's entry (Kafka's per-group error). */
const DESCRIBE_ONE_GROUP: ApiSpec<string, P.DescribedGroup> = {
  name: 'DescribeGroups',
  validate: () => null,
  groupId: (groupId) => groupId,
  emptyGroupIdAllowed: true,
  operation: {
    kind: 'read',
    // A share group is not a classic group: Kafka answers it as it answers a consumer group.
    run: (shard, groupId) =>
      shard.shareGroup(groupId) ? notClassicGroup(groupId) : describeGroup(shard.groups, shard.consumerGroups, groupId),
  },
  errorResponse: (groupId, error) => ({
    errorCode: error.errorCode,
    groupId,
    groupState: '',
    protocolType: '',
    protocolData: '',
    members: [],
  }),
};

export const DESCRIBE_GROUPS: ApiSpec<P.DescribeGroupsRequest, P.DescribeGroupsResponse> = describeEachGroup(
  'DescribeGroups',
  DESCRIBE_ONE_GROUP,
  (request: P.DescribeGroupsRequest) => request.groups,
);

/** DeleteGroups for one of its groups: the group's error code (KIP-229). */
const DELETE_ONE_GROUP: ApiSpec<string, number> = {
  name: 'DeleteGroups',
  validate: () => null,
  groupId: (groupId) => groupId,
  emptyGroupIdAllowed: true,
  operation: {
    kind: 'write',
    run: (shard, groupId) => {
      // A share group's heartbeats of this turn (its last member leaving) run before it is looked at.
      runQueuedShareHeartbeats(shard);
      const share = shard.shareGroup(groupId);
      return share ? deleteShareGroup(shard, share) : deleteGroup(shard.groups, shard.consumer, shard.offsets, groupId);
    },
  },
  errorResponse: (_groupId, error) => error.errorCode,
};

export const DELETE_GROUPS: ApiSpec<P.DeleteGroupsRequest, P.DeleteGroupsResponse> = {
  name: 'DeleteGroups',
  validate: () => null,
  groupId: () => '',
  emptyGroupIdAllowed: true,
  operation: {
    kind: 'fan-out',
    run: async (dispatch, request, context) => ({
      errorCode: 0,
      results: await Promise.all(
        [...new Set(request.groupsNames)].map(async (groupId) => ({
          groupId,
          errorCode: await dispatch.run(DELETE_ONE_GROUP, groupId, context),
        })),
      ),
    }),
  },
  errorResponse: (_request, error) => ({ ...errorFieldsOf(error), results: [] }),
};

export const LIST_GROUPS: ApiSpec<P.ListGroupsRequest, P.ListGroupsResponse> = {
  name: 'ListGroups',
  validate: () => null,
  groupId: () => '',
  emptyGroupIdAllowed: true,
  operation: {
    kind: 'fan-out',
    run: async (dispatch, request) => {
      dispatch.requireStarted();
      const shards = dispatch.shards.all();
      const groups = shards
        .filter((s) => s.isActive)
        .flatMap((s) => [
          ...listGroups(s.groups, s.consumerGroups, request?.statesFilter, request?.typesFilter),
          ...listShareGroups(s, request?.statesFilter, request?.typesFilter),
        ]);
      // Kafka: while any partition loads, the loaded groups come with COORDINATOR_LOAD_IN_PROGRESS.
      const loading = shards.some((s) => s.status === 'LOADING');
      return { ...errorFields(loading ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE), groups };
    },
  },
  errorResponse: (_request, error) => ({ ...errorFieldsOf(error), groups: [] }),
};

export const CONSUMER_GROUP_HEARTBEAT: ApiSpec<P.ConsumerGroupHeartbeatRequest, P.ConsumerGroupHeartbeatResponse> = {
  name: 'ConsumerGroupHeartbeat',
  // The request's shape is its DTO's; the protocol's rules are the manager's (answered with Kafka's codes).
  validate: () => null,
  groupId: groupIdOf,
  // Kafka's heartbeat checks its ids itself: an empty group id is 42 "GroupId can't be empty." (after an
  // empty member id), not the 24 INVALID_GROUP_ID of the classic APIs.
  emptyGroupIdAllowed: true,
  // Parked until the end of the turn: the turn's heartbeats run together (handlers/consumer-heartbeat-queue.ts);
  // a steady one, with none queued before it, runs at once (handlers/steady-consumer-heartbeat.ts).
  operation: {
    kind: 'parked',
    run: (shard, request, context, respond) => {
      if (shard.shareGroup(request.groupId))
        respond(heartbeatError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${request.groupId} is not a consumer group.`));
      else {
        const steady = steadyConsumerHeartbeat(shard, request, context);
        if (steady !== null) return steady;
        enqueueConsumerHeartbeat(shard, { request, context, respond });
      }
      return PARKED;
    },
  },
  errorResponse: (_request, error) => heartbeatError(error.errorCode, errorMessage(error)),
};

/** ConsumerGroupDescribe for one of its groups: a failure is that group's entry. */
const CONSUMER_GROUP_DESCRIBE_ONE: ApiSpec<string, P.DescribedConsumerGroup> = {
  name: 'ConsumerGroupDescribe',
  validate: () => null,
  groupId: (groupId) => groupId,
  emptyGroupIdAllowed: true,
  // A consumer group's changes are applied before they commit: the answer waits for them (and for the
  // heartbeats that arrived before it, run first).
  operation: {
    kind: 'read',
    run: (shard, groupId) => {
      runQueuedConsumerHeartbeats(shard);
      return describeOneConsumerGroup(shard, groupId);
    },
    afterPendingWrites: true,
  },
  errorResponse: (groupId, error) => consumerGroupNotFound(groupId, error.message, error.errorCode),
};

export const CONSUMER_GROUP_DESCRIBE: ApiSpec<P.ConsumerGroupDescribeRequest, P.ConsumerGroupDescribeResponse> =
  describeEachGroup(
    'ConsumerGroupDescribe',
    CONSUMER_GROUP_DESCRIBE_ONE,
    (request: P.ConsumerGroupDescribeRequest) => request.groupIds,
  );

/** The message an error body carries: the error's own, or Kafka's default when it has none. */
function errorMessage(error: KafkaError): string | undefined {
  return error.message === error.errorName ? undefined : error.message;
}
