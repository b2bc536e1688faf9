/**
 * The share-group events on the wire as the SDK uses them: the protocol package's types (docs/protocol.md,
 * share groups) under the names this folder reads best with, and Kafka's acknowledgement type ids.
 */
export type {
  ShareAcknowledgementBatch as AckBatch,
  ShareAcknowledgement as PartitionAcks,
  ShareLease as WireLease,
  ShareAcquireRequest,
  ShareAcquireResponse,
  ShareAcknowledgeRequest,
  ShareAcknowledgeResponse,
  ShareGroupHeartbeatRequest,
  ShareGroupHeartbeatResponse,
} from '@cohort/protocol';

/** Kafka's acknowledgement types (AcknowledgeType's wire ids). */
export const AckType = { gap: 0, accept: 1, release: 2, reject: 3, renew: 4 } as const;
export type AckTypeName = Exclude<keyof typeof AckType, 'renew'>;
export type AckTypeId = (typeof AckType)[keyof typeof AckType];
