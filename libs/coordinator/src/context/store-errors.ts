import { ErrorCode } from '@cohort/protocol';

/**
 * How a failed write to `__consumer_offsets` is reported to clients, as Kafka maps append errors
 * (group writes: `GroupMetadataManager.storeGroup`; offset writes: `maybeConvertOffsetCommitError`).
 * They differ only for a timeout, whose outcome is unknown: an offset commit passes it through
 * (REQUEST_TIMED_OUT), a group write makes the members rejoin (REBALANCE_IN_PROGRESS).
 *
 * One departure from Kafka: a storage fault (the disk is full or failing) stays KAFKA_STORAGE_ERROR
 * (56, retriable), where Kafka answers NOT_COORDINATOR because its broker gives the partition up.
 * Here the node keeps the partition and serves its reads, and takes writes again once the storage
 * heals, so the client should retry the same coordinator rather than look for another.
 */
export function groupWriteError(storeError: number): number {
  return (
    coordinatorError(storeError) ??
    (storeError === ErrorCode.REQUEST_TIMED_OUT ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.UNKNOWN_SERVER_ERROR)
  );
}

export function offsetWriteError(storeError: number): number {
  return (
    coordinatorError(storeError) ??
    (storeError === ErrorCode.REQUEST_TIMED_OUT ? ErrorCode.REQUEST_TIMED_OUT : ErrorCode.UNKNOWN_SERVER_ERROR)
  );
}

/** Errors that mean "ask the coordinator again" (15) or "find the coordinator again" (16). */
function coordinatorError(storeError: number): number | undefined {
  switch (storeError) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.FENCED_LEADER_EPOCH:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.KAFKA_STORAGE_ERROR;
    default:
      return undefined;
  }
}

/**
 * Whether a failed write is worth a line of its own: a storage fault fails every write until it heals,
 * and the store reports the fault once (and its end), so each write it fails is counted, not logged.
 */
export function logsEachFailedWrite(storeError: number): boolean {
  return storeError !== ErrorCode.KAFKA_STORAGE_ERROR;
}

/**
 * Kafka's `handleOperationException` for the consumer group APIs: a write that failed answers the
 * request with the error a client knows how to recover from (rediscover the coordinator, or retry).
 */
export function operationWriteError(storeError: number): number {
  return (
    coordinatorError(storeError) ??
    (storeError === ErrorCode.REQUEST_TIMED_OUT ? ErrorCode.COORDINATOR_NOT_AVAILABLE : ErrorCode.UNKNOWN_SERVER_ERROR)
  );
}
