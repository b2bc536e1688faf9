import { ErrorCode, isRetriable, type ConsumerGroupHeartbeatResponse } from '@cohort/protocol';
import { CohortError } from '../../errors/cohort-error';

/**
 * What a consumer-protocol member does with each ConsumerGroupHeartbeat answer, as Kafka's
 * AbstractHeartbeatRequestManager.onErrorResponse and ConsumerHeartbeatRequestManager decide it (pure:
 * the member applies the action).
 */
export type ConsumerHeartbeatAction =
  | { kind: 'ok'; response: ConsumerGroupHeartbeatResponse }
  /** 110 FENCED_MEMBER_EPOCH, 25 UNKNOWN_MEMBER_ID: the partitions are lost; join again at epoch 0 at once. */
  | { kind: 'fenced'; reason: string }
  /** 15, 16: find the coordinator again and heartbeat (a full request) as soon as it is found. */
  | { kind: 'rediscover'; error: CohortError }
  /**
   * A retriable failure (14, a timeout, a dropped socket, and the replication codes the node answers a
   * write it could not make with, such as 56 when its disk is full): back off, then a full request.
   */
  | { kind: 'retry'; error: CohortError }
  /** Anything else (82, 111, 112, 128, 30, 29, 42, 81, 35, ...): the member cannot go on. */
  | { kind: 'fatal'; error: CohortError };

export function consumerHeartbeatAction(response: ConsumerGroupHeartbeatResponse): ConsumerHeartbeatAction {
  const code = response.errorCode;
  if (code === ErrorCode.NONE) return { kind: 'ok', response };
  const error = CohortError.fromResponse(response as never);
  switch (code) {
    case ErrorCode.FENCED_MEMBER_EPOCH:
    case ErrorCode.UNKNOWN_MEMBER_ID:
      return { kind: 'fenced', reason: `ConsumerGroupHeartbeat answered ${error.name}: ${error.message}` };
    case ErrorCode.NOT_COORDINATOR:
    case ErrorCode.COORDINATOR_NOT_AVAILABLE:
      return { kind: 'rediscover', error };
    default:
      // The codes Kafka's consumer retries with back-off (14, 7, 13, 89) are retriable, and so are the
      // replication codes a Cohort node answers a group write it could not make with, which Kafka's
      // consumer would fail on (docs/protocol.md: 56 KAFKA_STORAGE_ERROR while its disk is full, and it
      // takes writes again once the disk has room): the member waits them out.
      if (isRetriable(code)) return { kind: 'retry', error };
      return {
        kind: 'fatal',
        error:
          code === ErrorCode.UNSUPPORTED_VERSION
            ? new CohortError(
                code,
                `the coordinator does not serve the consumer group protocol (${error.message}); use groupProtocol 'classic'`,
                { retriable: false },
              )
            : new CohortError(code, error.message, { name: error.name, retriable: false, details: error.details }),
      };
  }
}

/** A request that failed without an answer (dropped socket, timeout): retried, as Kafka retries a RetriableException. */
export function failedHeartbeat(error: unknown): ConsumerHeartbeatAction {
  const failure = CohortError.from(error);
  return failure.retriable ? { kind: 'retry', error: failure } : { kind: 'fatal', error: failure };
}
