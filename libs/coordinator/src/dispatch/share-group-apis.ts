import type * as P from '@cohort/protocol';
import { describeOneShareGroup, shareGroupNotFound } from '../handlers/share-group-handlers';
import { enqueueShareHeartbeat, runQueuedShareHeartbeats } from '../handlers/share-heartbeat-queue';
import { PARKED } from '../runtime/coordinator-result';
import { shareHeartbeatError } from '../share/share-group-validation';
import { type ApiSpec, describeEachGroup } from './coordinator-dispatch';

/** Share group membership (KIP-932) in the coordinator's API table: ShareGroupHeartbeat and ShareGroupDescribe. */

export const SHARE_GROUP_HEARTBEAT: ApiSpec<P.ShareGroupHeartbeatRequest, P.ShareGroupHeartbeatResponse> = {
  name: 'ShareGroupHeartbeat',
  // The request's shape is its DTO's; the protocol's rules are the manager's (answered with Kafka's codes).
  validate: () => null,
  groupId: (request) => request?.groupId,
  // As ConsumerGroupHeartbeat: its own checks answer an empty group id 42, as Kafka's do.
  emptyGroupIdAllowed: true,
  // Parked until the end of the turn: the turn's share heartbeats run together, each group's target
  // computed once (handlers/share-heartbeat-queue.ts).
  operation: {
    kind: 'parked',
    run: (shard, request, context, respond) => {
      enqueueShareHeartbeat(shard, { request, context, respond });
      return PARKED;
    },
  },
  errorResponse: (_request, error) => shareHeartbeatError(error),
};

/** ShareGroupDescribe for one of its groups: a failure is that group's entry. */
const SHARE_GROUP_DESCRIBE_ONE: ApiSpec<string, P.DescribedShareGroup> = {
  name: 'ShareGroupDescribe',
  validate: () => null,
  groupId: (groupId) => groupId,
  emptyGroupIdAllowed: true,
  // The heartbeats that arrived before it run first, and the answer waits for what they wrote.
  operation: {
    kind: 'read',
    run: (shard, groupId) => {
      runQueuedShareHeartbeats(shard);
      return describeOneShareGroup(shard, groupId);
    },
    afterPendingWrites: true,
  },
  errorResponse: (groupId, error) => shareGroupNotFound(groupId, error.message, error.errorCode),
};

export const SHARE_GROUP_DESCRIBE: ApiSpec<P.ShareGroupDescribeRequest, P.ShareGroupDescribeResponse> =
  describeEachGroup(
    'ShareGroupDescribe',
    SHARE_GROUP_DESCRIBE_ONE,
    (request: P.ShareGroupDescribeRequest) => request.groupIds,
  );
