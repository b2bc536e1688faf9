/**
 * Shapes of the REST answers the dashboard reads (docs/dashboard.md lists which page reads which).
 * The operator endpoints' shapes (lag, offset reset) are the protocol library's, shared with the server.
 */
import type { GroupStateName, TopicPartitions } from '@cohort/protocol';

export type { GroupLag, LagSample, LagStatus, PartitionLag, ResetOffsetsRequest, ResetOffsetsResult, ResetStrategy } from '@cohort/protocol';
export type { GroupStateName };

/** `GET /v1/groups` */
export interface GroupListing {
  groupId: string;
  protocolType: string | null;
  state: GroupStateName;
  members: number;
  coordinator: number | null;
}

export interface GroupMember {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  /** `consumer` groups: `{ topics }`; other protocol types: whatever their members sent. */
  subscription: unknown;
  assignment: unknown;
}

/** `GET /v1/groups/:groupId` */
export interface GroupDescription {
  groupId: string;
  state: GroupStateName;
  protocolType: string | null;
  protocol: string | null;
  generationId: number;
  leader: string | null;
  coordinator: number | null;
  coordinatorPartition: number;
  members: GroupMember[];
}

/** `GET /v1/groups/:groupId/rebalances` */
export interface RebalanceRecord {
  generationId: number;
  reason: string;
  startedAt: number;
  completedAt: number | null;
  durationMs: number | null;
  members: number;
  protocol: string | null;
}

/** `GET /v1/topics` */
export interface TopicInfo {
  name: string;
  partitions: number;
  endOffsets: Record<string, number>;
  /** Reported log start offsets, where producers sent them. */
  startOffsets?: Record<string, number>;
  /** When the latest report of each partition arrived (ms since the epoch). */
  reportedAt?: Record<string, number>;
}

/** `GET /v1/cluster` */
export interface ClusterInfo {
  clusterId: string;
  controllerId: number | null;
  nodes: { nodeId: number; url: string; alive: boolean }[];
}

/** `GET /v1/cluster/partitions` */
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

export type { TopicPartitions };
