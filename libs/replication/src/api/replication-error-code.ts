import { ErrorCode } from '@cohort/protocol';

/**
 * Kafka error codes used between replicas and the controller (Fetch, AlterPartition). Those that can
 * reach clients live in `@cohort/protocol`; the others are internal to replication and never leave it.
 */
export const ReplicationErrorCode = {
  NONE: ErrorCode.NONE,
  UNKNOWN_SERVER_ERROR: ErrorCode.UNKNOWN_SERVER_ERROR,
  OFFSET_OUT_OF_RANGE: 1,
  UNKNOWN_TOPIC_OR_PARTITION: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  NOT_LEADER_OR_FOLLOWER: ErrorCode.NOT_LEADER_OR_FOLLOWER,
  REQUEST_TIMED_OUT: ErrorCode.REQUEST_TIMED_OUT,
  NOT_ENOUGH_REPLICAS: ErrorCode.NOT_ENOUGH_REPLICAS,
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND,
  NOT_CONTROLLER: 41,
  INVALID_REQUEST: ErrorCode.INVALID_REQUEST,
  OPERATION_NOT_ATTEMPTED: 55,
  KAFKA_STORAGE_ERROR: ErrorCode.KAFKA_STORAGE_ERROR,
  FENCED_LEADER_EPOCH: ErrorCode.FENCED_LEADER_EPOCH,
  UNKNOWN_LEADER_EPOCH: ErrorCode.UNKNOWN_LEADER_EPOCH,
  OFFSET_NOT_AVAILABLE: 78,
  INVALID_UPDATE_VERSION: 95,
  NEW_LEADER_ELECTED: 106,
  INELIGIBLE_REPLICA: 107,
} as const;

export type ReplicationErrorName = keyof typeof ReplicationErrorCode;

const NAMES = new Map<number, ReplicationErrorName>(
  (Object.entries(ReplicationErrorCode) as [ReplicationErrorName, number][]).map(([n, c]) => [c, n]),
);

export function replicationErrorName(code: number): ReplicationErrorName | `UNKNOWN(${number})` {
  return NAMES.get(code) ?? `UNKNOWN(${code})`;
}
