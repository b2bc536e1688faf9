import type { ErrorFields } from './error-codes';

/**
 * Share groups' data plane on the wire (KIP-932's ShareFetch and ShareAcknowledge over offsets,
 * docs/protocol.md): a member leases offset ranges of the partitions assigned to it and acknowledges
 * each offset.
 */

/**
 * Offsets `firstOffset`–`lastOffset` (inclusive) acknowledged with Kafka's types: 0 GAP, 1 ACCEPT,
 * 2 RELEASE, 3 REJECT, 4 RENEW; one type for the whole batch, or one per offset.
 */
export interface ShareAcknowledgementBatch {
  firstOffset: number;
  lastOffset: number;
  acknowledgeTypes: number[];
}

export interface ShareAcknowledgement {
  topic: string;
  partition: number;
  batches: ShareAcknowledgementBatch[];
}

export interface ShareAcquireRequest {
  groupId: string;
  memberId: string;
  /** The most offsets leased by this request, across partitions. */
  maxRecords: number;
  /** The longest range in one lease (default `maxRecords`). */
  batchSize?: number;
  /** How long to hold the request while nothing can be leased (default 0: answer at once). */
  maxWaitMs?: number;
  /** Applied before anything is leased; their outcome is each partition's `acknowledgeErrorCode`. */
  acknowledgements?: ShareAcknowledgement[];
}

/** A lease: the offsets are the member's until the lock ends, unless acknowledged or renewed. */
export interface ShareLease {
  firstOffset: number;
  lastOffset: number;
  deliveryCount: number;
}

export interface ShareAcquirePartition {
  topic: string;
  partition: number;
  errorCode: number;
  /** What went wrong, for people: present when `errorCode` is not 0 (Kafka's ErrorMessage). */
  errorMessage?: string;
  acknowledgeErrorCode: number;
  /** What went wrong with this partition's acknowledgements: present when `acknowledgeErrorCode` is not 0. */
  acknowledgeErrorMessage?: string;
  leases: ShareLease[];
}

export interface ShareAcquireResponse extends ErrorFields {
  acquisitionLockTimeoutMs: number;
  partitions: ShareAcquirePartition[];
}

export interface ShareAcknowledgeRequest {
  groupId: string;
  memberId: string;
  acknowledgements: ShareAcknowledgement[];
}

export interface ShareAcknowledgePartition {
  topic: string;
  partition: number;
  errorCode: number;
  /** What went wrong, for people: present when `errorCode` is not 0 (Kafka's ErrorMessage). */
  errorMessage?: string;
}

export interface ShareAcknowledgeResponse extends ErrorFields {
  partitions: ShareAcknowledgePartition[];
}
