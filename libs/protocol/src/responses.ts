/** socket.io responses (docs/protocol.md). Every response carries ErrorFields (errorCode 0 = NONE). */
import type { ErrorFields } from './error-codes';
import type { GroupStateName } from './group-state';

export interface FindCoordinatorResponse extends ErrorFields {
  nodeId: number;
  host: string;
  port: number;
  url: string;
  partition: number;
}

export interface MetadataTopic {
  name: string;
  partitions: number;
  errorCode: number;
}

/** A live node of the cluster, as Kafka's MetadataResponse lists its brokers: where clients reach it. */
export interface MetadataNode {
  nodeId: number;
  /** The node's advertised URL (its ADVERTISED_URL). */
  url: string;
}

export interface MetadataResponse extends ErrorFields {
  topics: MetadataTopic[];
  /** Every live node, so a client that reached one node learns the others (Kafka's `brokers`). */
  nodes: MetadataNode[];
}

export interface JoinGroupMember {
  memberId: string;
  groupInstanceId: string | null;
  metadata: unknown;
}

export interface JoinGroupResponse extends ErrorFields {
  generationId: number;
  protocolType: string | null;
  protocolName: string | null;
  leader: string;
  skipAssignment: boolean;
  memberId: string;
  /** Member metadata: only the leader receives it (empty for followers). */
  members: JoinGroupMember[];
  /** Present when the group uses a server-side assignor. */
  assignment?: unknown;
}

export interface SyncGroupResponse extends ErrorFields {
  protocolType: string | null;
  protocolName: string | null;
  assignment: unknown;
}

export type HeartbeatResponse = ErrorFields;

export interface LeaveGroupMemberResponse {
  memberId: string;
  groupInstanceId: string | null;
  errorCode: number;
}

export interface LeaveGroupResponse extends ErrorFields {
  members: LeaveGroupMemberResponse[];
}

export interface PartitionErrorResult {
  partitionIndex: number;
  errorCode: number;
}

export interface TopicPartitionErrors {
  name: string;
  partitions: PartitionErrorResult[];
}

export interface OffsetCommitResponse extends ErrorFields {
  topics: TopicPartitionErrors[];
}

export interface OffsetFetchPartition {
  partitionIndex: number;
  /** -1 when nothing is committed. */
  committedOffset: number;
  committedLeaderEpoch: number;
  metadata: string | null;
  errorCode: number;
}

export interface OffsetFetchResponse extends ErrorFields {
  topics: { name: string; partitions: OffsetFetchPartition[] }[];
}

export interface OffsetDeleteResponse extends ErrorFields {
  topics: TopicPartitionErrors[];
}

export interface DescribedMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  memberMetadata: unknown;
  memberAssignment: unknown;
}

/** One group's entry: its own error (GROUP_ID_NOT_FOUND, with why, for a group that is not a classic group). */
export interface DescribedGroup extends ErrorFields {
  groupId: string;
  groupState: GroupStateName | '';
  protocolType: string;
  protocolData: string;
  members: DescribedMember[];
}

export interface DescribeGroupsResponse extends ErrorFields {
  groups: DescribedGroup[];
}

export interface ListedGroup {
  groupId: string;
  protocolType: string;
  /** A consumer group's states are Kafka's too: Empty, Assigning, Reconciling, Stable. */
  groupState: GroupStateName | string;
  groupType: 'classic' | 'consumer' | 'share';
}

export interface ListGroupsResponse extends ErrorFields {
  groups: ListedGroup[];
}

export interface DeleteGroupsResponse extends ErrorFields {
  results: { groupId: string; errorCode: number }[];
}
