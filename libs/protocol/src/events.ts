/** socket.io event names and typed event maps (docs/protocol.md), shared by the gateway, tests and the SDK. */
import type * as Req from './requests';
import type * as Res from './responses';
import type * as CG from './consumer-group-protocol';
import type * as SA from './share-acquire-protocol';
import type * as SG from './share-group-protocol';

export const RequestEvent = {
  FindCoordinator: 'FindCoordinator',
  Metadata: 'Metadata',
  JoinGroup: 'JoinGroup',
  SyncGroup: 'SyncGroup',
  Heartbeat: 'Heartbeat',
  LeaveGroup: 'LeaveGroup',
  OffsetCommit: 'OffsetCommit',
  OffsetFetch: 'OffsetFetch',
  OffsetDelete: 'OffsetDelete',
  DescribeGroups: 'DescribeGroups',
  ListGroups: 'ListGroups',
  DeleteGroups: 'DeleteGroups',
  ConsumerGroupHeartbeat: 'ConsumerGroupHeartbeat',
  ConsumerGroupDescribe: 'ConsumerGroupDescribe',
  ShareAcquire: 'ShareAcquire',
  ShareAcknowledge: 'ShareAcknowledge',
  ShareGroupHeartbeat: 'ShareGroupHeartbeat',
  ShareGroupDescribe: 'ShareGroupDescribe',
} as const;

export type RequestEventName = keyof typeof RequestEvent;

/**
 * Whether `name` is one of the request events, by own property: `toString`, `__proto__` or
 * `constructor` are inherited names, not events.
 */
export function isRequestEvent(name: unknown): name is RequestEventName {
  return typeof name === 'string' && Object.hasOwn(RequestEvent, name);
}

export const PushEvent = {
  RebalanceInProgress: 'RebalanceInProgress',
  CoordinatorMoved: 'CoordinatorMoved',
  HeartbeatNow: 'HeartbeatNow',
} as const;

export interface RebalanceInProgressPush {
  groupId: string;
  generationId: number;
  reason: string;
}

export interface CoordinatorMovedPush {
  groupId: string;
}

/** Request → response, per event. */
export interface RequestResponseMap {
  FindCoordinator: [Req.FindCoordinatorRequest, Res.FindCoordinatorResponse];
  Metadata: [Req.MetadataRequest, Res.MetadataResponse];
  JoinGroup: [Req.JoinGroupRequest, Res.JoinGroupResponse];
  SyncGroup: [Req.SyncGroupRequest, Res.SyncGroupResponse];
  Heartbeat: [Req.HeartbeatRequest, Res.HeartbeatResponse];
  LeaveGroup: [Req.LeaveGroupRequest, Res.LeaveGroupResponse];
  OffsetCommit: [Req.OffsetCommitRequest, Res.OffsetCommitResponse];
  OffsetFetch: [Req.OffsetFetchRequest, Res.OffsetFetchResponse];
  OffsetDelete: [Req.OffsetDeleteRequest, Res.OffsetDeleteResponse];
  DescribeGroups: [Req.DescribeGroupsRequest, Res.DescribeGroupsResponse];
  ListGroups: [Req.ListGroupsRequest, Res.ListGroupsResponse];
  DeleteGroups: [Req.DeleteGroupsRequest, Res.DeleteGroupsResponse];
  ConsumerGroupHeartbeat: [CG.ConsumerGroupHeartbeatRequest, CG.ConsumerGroupHeartbeatResponse];
  ConsumerGroupDescribe: [CG.ConsumerGroupDescribeRequest, CG.ConsumerGroupDescribeResponse];
  ShareAcquire: [SA.ShareAcquireRequest, SA.ShareAcquireResponse];
  ShareAcknowledge: [SA.ShareAcknowledgeRequest, SA.ShareAcknowledgeResponse];
  ShareGroupHeartbeat: [SG.ShareGroupHeartbeatRequest, SG.ShareGroupHeartbeatResponse];
  ShareGroupDescribe: [SG.ShareGroupDescribeRequest, SG.ShareGroupDescribeResponse];
}

/** socket.io typed map for what clients emit (payload + ack). */
export type ClientToServerEvents = {
  [E in RequestEventName]: (
    payload: RequestResponseMap[E][0],
    ack: (response: RequestResponseMap[E][1]) => void,
  ) => void;
};

/** socket.io typed map for what the server pushes. */
export interface ServerToClientEvents {
  RebalanceInProgress: (push: RebalanceInProgressPush) => void;
  CoordinatorMoved: (push: CoordinatorMovedPush) => void;
  HeartbeatNow: (push: CG.HeartbeatNowPush) => void;
}
