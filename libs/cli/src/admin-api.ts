import type { GroupLag, ResetOffsetsRequest, ResetOffsetsResult } from '@cohort/protocol';

/**
 * The admin calls the CLI makes, exactly as the SDK's `CohortAdmin` (`@cohort/client`) offers them, so
 * the CLI runs on the SDK's class and tests can pass a fake. The commands depend on this
 * interface only. Response types follow the REST API's field names (README "REST API").
 */
export type { GroupLag, ResetOffsetsRequest, ResetOffsetsResult };

export interface AdminOptions {
  urls: string[];
  token?: string | (() => string | Promise<string>);
  fetch?: typeof fetch;
  timeoutMs?: number;
}

export interface GroupListing {
  groupId: string;
  protocolType: string | null;
  state: string;
  members: number;
  coordinator: number | null;
}

export interface GroupMemberDescription {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  subscription: unknown;
  assignment: unknown;
}

export interface GroupDescription {
  groupId: string;
  state: string;
  protocolType: string | null;
  protocol: string | null;
  generationId: number;
  leader: string | null;
  coordinator: number | null;
  coordinatorPartition: number;
  members: GroupMemberDescription[];
}

export interface RebalanceRecord {
  generationId: number;
  reason: string;
  startedAt: number;
  completedAt: number | null;
  durationMs: number | null;
  members: number;
  protocol: string | null;
}

export interface GroupOffsetEntry {
  topic: string;
  partition: number;
  committedOffset: number;
  leaderEpoch: number;
  metadata: string | null;
  commitTimestamp: number;
  logEndOffset: number | null;
  lag: number | null;
}

export interface GroupOffsets {
  groupId: string;
  offsets: GroupOffsetEntry[];
  totalLag: number;
}

export interface TopicInfo {
  name: string;
  partitions: number;
  endOffsets: Record<string, number>;
  startOffsets?: Record<string, number>;
  reportedAt?: Record<string, number>;
}

export interface ClusterInfo {
  clusterId: string;
  controllerId: number | null;
  nodes: { nodeId: number; url: string; alive: boolean }[];
}

export interface PartitionInfo {
  partition: number;
  leader: number | null;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  highWatermark: number;
  logEndOffset: number;
  replicaStates: { nodeId: number; logEndOffset: number; lastCaughtUpMs: number }[];
}

export interface AclBinding {
  principal: string;
  host: string;
  resourceType: 'GROUP' | 'TOPIC' | 'CLUSTER';
  resourceName: string;
  patternType: 'LITERAL' | 'PREFIXED';
  operation: string;
  permission: 'ALLOW' | 'DENY';
}

export interface AssignorInfo {
  name: string;
  supportedProtocols: string[];
  builtIn: boolean;
}

export interface AdminApi {
  listGroups(options?: { states?: string[] }): Promise<GroupListing[]>;
  describeGroup(groupId: string): Promise<GroupDescription>;
  deleteGroup(groupId: string): Promise<void>;
  groupRebalances(groupId: string): Promise<RebalanceRecord[]>;
  groupLag(groupId: string): Promise<GroupLag>;
  fetchOffsets(groupId: string): Promise<GroupOffsets>;
  setOffsets(groupId: string, topics: { name: string; partitions: { partitionIndex: number; committedOffset: number }[] }[]): Promise<unknown>;
  resetOffsets(groupId: string, request: ResetOffsetsRequest): Promise<ResetOffsetsResult>;
  deleteOffsets(groupId: string, topic: string, partition?: number): Promise<unknown>;
  listTopics(): Promise<TopicInfo[]>;
  describeTopic(name: string): Promise<TopicInfo>;
  createTopic(name: string, partitions: number): Promise<TopicInfo>;
  alterTopic(name: string, partitions: number): Promise<TopicInfo>;
  reportOffsets(topic: string, partitions: { partition: number; endOffset: number; startOffset?: number }[]): Promise<unknown>;
  cluster(): Promise<ClusterInfo>;
  clusterPartitions(): Promise<PartitionInfo[]>;
  listAcls(filter?: Partial<AclBinding>): Promise<AclBinding[]>;
  createAcls(acls: AclBinding[]): Promise<unknown>;
  deleteAcls(filters: Partial<AclBinding>[]): Promise<{ deleted: AclBinding[] }>;
  listAssignors(): Promise<AssignorInfo[]>;
  assign(name: string, input: unknown): Promise<unknown>;
}
