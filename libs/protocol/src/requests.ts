/**
 * socket.io request payloads (docs/protocol.md). Field names are Kafka's, in camelCase. These are the shapes a
 * well-behaved client sends; the gateway validates untrusted input against its DTOs before anything
 * reaches the coordinator.
 */

export interface FindCoordinatorRequest {
  key: string;
  keyType?: 0;
}

export interface MetadataRequest {
  topics: string[] | null;
}

export interface JoinGroupProtocol {
  name: string;
  metadata: unknown;
}

export interface JoinGroupRequest {
  groupId: string;
  sessionTimeoutMs: number;
  rebalanceTimeoutMs?: number;
  memberId: string;
  groupInstanceId?: string | null;
  protocolType: string;
  protocols: JoinGroupProtocol[];
  reason?: string | null;
  serverAssignor?: string | null;
}

export interface SyncGroupAssignment {
  memberId: string;
  assignment: unknown;
}

export interface SyncGroupRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId?: string | null;
  protocolType?: string | null;
  protocolName?: string | null;
  assignments: SyncGroupAssignment[];
}

export interface HeartbeatRequest {
  groupId: string;
  generationId: number;
  memberId: string;
  groupInstanceId?: string | null;
}

export interface LeaveGroupMember {
  memberId: string;
  groupInstanceId?: string | null;
  reason?: string | null;
}

export interface LeaveGroupRequest {
  groupId: string;
  members: LeaveGroupMember[];
}

export interface OffsetCommitPartition {
  partitionIndex: number;
  committedOffset: number;
  committedLeaderEpoch?: number;
  committedMetadata?: string | null;
}

export interface OffsetCommitTopic {
  name: string;
  partitions: OffsetCommitPartition[];
}

export interface OffsetCommitRequest {
  groupId: string;
  /** -1 for a simple (non-member) consumer. */
  generationId: number;
  memberId?: string;
  groupInstanceId?: string | null;
  topics: OffsetCommitTopic[];
}

export interface OffsetFetchTopic {
  name: string;
  partitionIndexes: number[];
}

export interface OffsetFetchRequest {
  groupId: string;
  /** null fetches every committed offset of the group. */
  topics: OffsetFetchTopic[] | null;
  requireStable?: boolean;
  /** A consumer group's member fetching (KIP-848): checked with `memberEpoch` as a commit's are. */
  memberId?: string | null;
  /** -1 (the default) with no member id: a fetch from outside the group. */
  memberEpoch?: number;
}

export interface OffsetDeleteTopic {
  name: string;
  partitions: { partitionIndex: number }[];
}

export interface OffsetDeleteRequest {
  groupId: string;
  topics: OffsetDeleteTopic[];
}

export interface DescribeGroupsRequest {
  groups: string[];
}

export interface ListGroupsRequest {
  statesFilter?: string[];
  /** Only groups of these types (`classic`, `consumer`, `share`), matched case-insensitively as Kafka's KIP-848 does. */
  typesFilter?: string[];
}

export interface DeleteGroupsRequest {
  groupsNames: string[];
}
