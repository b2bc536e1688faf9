import type { TopicPartitions } from '@cohort/protocol';

/**
 * The share-group events on the wire (docs/protocol.md, share groups; Kafka's KIP-932 RPCs with topics
 * named), as the SDK sends and reads them. Field names are the protocol's.
 */

/** Kafka's acknowledgement types (AcknowledgeType's wire ids). */
export const AckType = { gap: 0, accept: 1, release: 2, reject: 3, renew: 4 } as const;
export type AckTypeName = Exclude<keyof typeof AckType, 'renew'>;
export type AckTypeId = (typeof AckType)[keyof typeof AckType];

/** One run of offsets and its type(s): one type for the whole run, or one per offset. */
export interface AckBatch {
  firstOffset: number;
  lastOffset: number;
  acknowledgeTypes: number[];
}

/** The acknowledgements of one partition. */
export interface PartitionAcks {
  topic: string;
  partition: number;
  batches: AckBatch[];
}

export interface ShareGroupHeartbeatRequest {
  groupId: string;
  memberId: string;
  /** 0 joins, -1 leaves (giving every lease back), above 0 the member's current epoch. */
  memberEpoch: number;
  rackId?: string | null;
  /** Left out (unchanged) on ordinary beats; sent on joining and after an error or a reconnect. */
  subscribedTopicNames?: string[] | null;
}

export interface ShareGroupHeartbeatResponse {
  errorCode: number;
  errorName?: string;
  errorMessage?: string;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** The member's whole assignment; null when unchanged. */
  assignment: { topicPartitions: TopicPartitions[] } | null;
}

export interface ShareAcquireRequest {
  groupId: string;
  memberId: string;
  maxRecords: number;
  batchSize?: number;
  /** How long the coordinator may hold the request while nothing is leasable. */
  maxWaitMs?: number;
  acknowledgements?: PartitionAcks[];
}

export interface WireLease {
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
}

export interface ShareAcquirePartition {
  topic: string;
  partition: number;
  errorCode: number;
  /** The outcome of this partition's piggy-backed acknowledgements. */
  acknowledgeErrorCode: number;
  leases: WireLease[];
}

export interface ShareAcquireResponse {
  errorCode: number;
  errorName?: string;
  errorMessage?: string;
  acquisitionLockTimeoutMs: number;
  partitions: ShareAcquirePartition[];
}

export interface ShareAcknowledgeRequest {
  groupId: string;
  memberId: string;
  acknowledgements: PartitionAcks[];
}

export interface ShareAcknowledgeResponse {
  errorCode: number;
  errorName?: string;
  errorMessage?: string;
  partitions: { topic: string; partition: number; errorCode: number }[];
}

/** Request → response, per share event. */
export interface ShareRequestMap {
  ShareGroupHeartbeat: [ShareGroupHeartbeatRequest, ShareGroupHeartbeatResponse];
  ShareAcquire: [ShareAcquireRequest, ShareAcquireResponse];
  ShareAcknowledge: [ShareAcknowledgeRequest, ShareAcknowledgeResponse];
}
