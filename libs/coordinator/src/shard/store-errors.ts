import { ErrorCode } from '@cohort/protocol';

/**
 * How a failed write to `__consumer_offsets` is reported to clients, as Kafka maps append errors.
 * Group writes follow `GroupMetadataManager.storeGroup`, offset writes `maybeConvertOffsetCommitError`.
 */
export function groupWriteError(storeError: number): number {
  switch (storeError) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.KAFKA_STORAGE_ERROR:
    case ErrorCode.FENCED_LEADER_EPOCH:
      return ErrorCode.NOT_COORDINATOR;
    // The outcome of a timed-out write is unknown: make the members rejoin.
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.REBALANCE_IN_PROGRESS;
    default:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}

export function offsetWriteError(storeError: number): number {
  switch (storeError) {
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_OR_FOLLOWER:
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.KAFKA_STORAGE_ERROR:
    case ErrorCode.FENCED_LEADER_EPOCH:
      return ErrorCode.NOT_COORDINATOR;
    // Passed through, as Kafka does: the commit may still have happened.
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.REQUEST_TIMED_OUT;
    default:
      return ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}
