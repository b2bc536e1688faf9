import type * as P from '@cohort/protocol';
import type { GroupLagSummary } from './group-lag-summary';

/** Who sent a request: used for DescribeGroups and to bind members to their connection. */
export interface RequestContext {
  clientId: string;
  clientHost: string;
  /** The socket the request came on; a dynamic member is removed MEMBER_DISCONNECT_GRACE_MS after it closes. */
  connectionId?: string;
  /**
   * Who is asking, when it is counted against the per-principal membership limits
   * (MAX_MEMBERS_PER_PRINCIPAL, MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL); absent for callers that are not (super users).
   */
  principal?: string;
  /**
   * The caller as the ACLs know it (principal and address; super users too), when ACLs are on: a
   * consumer-protocol member's `subscribedTopicRegex` gives it only the topics this caller may DESCRIBE.
   */
  aclCaller?: { principal: string; host: string };
}

/**
 * Where the coordinator sends server pushes (docs/protocol.md). Implemented by the gateway; the coordinator
 * addresses members by the connection they last used.
 */
export interface PushSink {
  rebalanceInProgress(connectionIds: string[], push: P.RebalanceInProgressPush): void;
  coordinatorMoved(connectionIds: string[], push: P.CoordinatorMovedPush): void;
  /** A consumer group member's target changed or a partition it waits for was released: heartbeat now. */
  heartbeatNow(connectionId: string, push: P.HeartbeatNowPush): void;
}

/** A member as operators see it over REST (docs/rest.md `GET /v1/groups/:groupId`). */
export type GroupMemberView = P.GroupMemberDescription;

/** The REST group description without `coordinator`, which the node that answers adds. */
export type GroupView = Omit<P.GroupDescription, 'coordinator'>;

/** A REST group listing without `coordinator`, which the node that answers adds. */
export type GroupSummaryView = Omit<P.GroupListing, 'coordinator'>;

export interface CommittedOffsetView {
  topic: string;
  partition: number;
  committedOffset: number;
  leaderEpoch: number;
  metadata: string | null;
  commitTimestamp: number;
}

export type RebalanceView = P.RebalanceRecord;

/** A consumer group's epochs and reconciliation, for the metrics scrape (docs/operations.md). */
export interface ConsumerGroupStat {
  groupId: string;
  state: P.ConsumerGroupStateName;
  groupEpoch: number;
  assignmentEpoch: number;
  members: number;
  /** Members that still hold partitions they must give up. */
  membersPendingRevocation: number;
}

/**
 * What the app (gateway and REST controllers) asks of the group coordinator. Every method answers with
 * a full response whose errorCode says what went wrong (never throws for a protocol error); replies
 * that write records resolve only after the records are committed (docs/guarantees.md).
 */
export interface GroupCoordinatorApi {
  joinGroup(request: P.JoinGroupRequest, context: RequestContext): Promise<P.JoinGroupResponse>;
  syncGroup(request: P.SyncGroupRequest, context: RequestContext): Promise<P.SyncGroupResponse>;
  heartbeat(request: P.HeartbeatRequest, context: RequestContext): Promise<P.HeartbeatResponse>;
  leaveGroup(request: P.LeaveGroupRequest, context: RequestContext): Promise<P.LeaveGroupResponse>;
  offsetCommit(request: P.OffsetCommitRequest, context: RequestContext): Promise<P.OffsetCommitResponse>;
  offsetFetch(request: P.OffsetFetchRequest): Promise<P.OffsetFetchResponse>;
  offsetDelete(request: P.OffsetDeleteRequest): Promise<P.OffsetDeleteResponse>;
  describeGroups(request: P.DescribeGroupsRequest): Promise<P.DescribeGroupsResponse>;
  listGroups(request: P.ListGroupsRequest): Promise<P.ListGroupsResponse>;
  deleteGroups(request: P.DeleteGroupsRequest): Promise<P.DeleteGroupsResponse>;
  /** Kafka 4's consumer group protocol (KIP-848): the member's heartbeat, which joins, reconciles and leaves. */
  consumerGroupHeartbeat(
    request: P.ConsumerGroupHeartbeatRequest,
    context: RequestContext,
  ): Promise<P.ConsumerGroupHeartbeatResponse>;
  consumerGroupDescribe(request: P.ConsumerGroupDescribeRequest): Promise<P.ConsumerGroupDescribeResponse>;
  /**
   * Share groups' data plane (KIP-932): leases of offsets of the member's partitions, and their
   * acknowledgements. `readable` says which topics the caller may read (29 for the others' partitions).
   */
  shareAcquire(
    request: P.ShareAcquireRequest,
    context: RequestContext,
    readable?: (topic: string) => boolean,
  ): Promise<P.ShareAcquireResponse>;
  shareAcknowledge(
    request: P.ShareAcknowledgeRequest,
    context: RequestContext,
    readable?: (topic: string) => boolean,
  ): Promise<P.ShareAcknowledgeResponse>;
  /** Share groups (KIP-932): the member's heartbeat, which joins, takes its assignment and leaves. */
  shareGroupHeartbeat(
    request: P.ShareGroupHeartbeatRequest,
    context: RequestContext,
  ): Promise<P.ShareGroupHeartbeatResponse>;
  shareGroupDescribe(request: P.ShareGroupDescribeRequest): Promise<P.ShareGroupDescribeResponse>;

  /** The socket closed: dynamic members bound to it leave after the grace period. */
  connectionClosed(connectionId: string): void;

  /** The `__consumer_offsets` partition of a group (docs/protocol.md). */
  partitionFor(groupId: string): number;
  /** Whether this node currently serves `partition` (leader and loaded). */
  isServing(partition: number): boolean;
  /** Partitions this node leads but is still loading (readiness: loaded and serving when empty). */
  loadingPartitions?(): number[];
  /** Partitions this node leads and serves. */
  servingPartitions?(): number[];

  /** Operator views (REST). Throw KafkaError GROUP_ID_NOT_FOUND / NOT_COORDINATOR where they apply. */
  describeGroup(groupId: string): Promise<GroupView>;
  /** With `topic`, only the groups consuming it: a committed offset on it, or a member subscribed to it. */
  listGroupSummaries(states?: P.AnyGroupStateName[], topic?: string): Promise<GroupSummaryView[]>;
  committedOffsets(groupId: string): Promise<CommittedOffsetView[]>;
  /** Sets offsets of an Empty group (else NON_EMPTY_GROUP → HTTP 409). */
  resetOffsets(groupId: string, topics: P.OffsetCommitTopic[]): Promise<P.OffsetCommitResponse>;
  rebalanceHistory(groupId: string): Promise<RebalanceView[]>;
  /** Lag with Burrow's evaluation (docs/lag.md); GROUP_ID_NOT_FOUND for an unknown group. */
  groupLag(groupId: string): Promise<P.GroupLag>;
  /** The lag of the groups this node serves that have offsets (the `limit` largest), for the metrics scrape. */
  lagSummaries(withPartitions?: boolean, limit?: number): GroupLagSummary[];
  /**
   * The consumer groups this node serves, for the metrics scrape: at most `limit`, those with the most
   * members pending revocation first, then by id.
   */
  consumerGroupStats?(limit?: number): ConsumerGroupStat[];
  /** A share group's dead letters (archived by a reject or the delivery limit). */
  shareDeadLetters(groupId: string): Promise<P.DeadLetterRange[]>;
  /** Dead letters made available again, counted from zero; resolves once written (69 without state for the partition). */
  redeliverDeadLetters(
    call: P.RedeliverDeadLettersRequest & { groupId: string },
  ): Promise<{ errorCode: number; redelivered: number }>;
  /** Plans a reset by strategy and, unless `dryRun` is not false, commits the plan (Empty groups only). */
  resetOffsetsTo(groupId: string, request: P.ResetOffsetsRequest): Promise<P.ResetOffsetsResult>;
}
