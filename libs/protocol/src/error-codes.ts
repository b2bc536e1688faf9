/**
 * Kafka error codes used by Cohort (docs/protocol.md).
 * `retriable` drives client retry loops the way KafkaJS classifies errors: a retriable error means
 * "the same request may succeed later (possibly after FindCoordinator or a rejoin)".
 */
export const ErrorCode = {
  NONE: 0,
  UNKNOWN_SERVER_ERROR: -1,
  UNKNOWN_TOPIC_OR_PARTITION: 3,
  NOT_LEADER_OR_FOLLOWER: 6,
  REQUEST_TIMED_OUT: 7,
  OFFSET_METADATA_TOO_LARGE: 12,
  NETWORK_EXCEPTION: 13,
  COORDINATOR_LOAD_IN_PROGRESS: 14,
  COORDINATOR_NOT_AVAILABLE: 15,
  NOT_COORDINATOR: 16,
  NOT_ENOUGH_REPLICAS: 19,
  NOT_ENOUGH_REPLICAS_AFTER_APPEND: 20,
  ILLEGAL_GENERATION: 22,
  INCONSISTENT_GROUP_PROTOCOL: 23,
  INVALID_GROUP_ID: 24,
  UNKNOWN_MEMBER_ID: 25,
  INVALID_SESSION_TIMEOUT: 26,
  REBALANCE_IN_PROGRESS: 27,
  INVALID_COMMIT_OFFSET_SIZE: 28,
  TOPIC_AUTHORIZATION_FAILED: 29,
  GROUP_AUTHORIZATION_FAILED: 30,
  CLUSTER_AUTHORIZATION_FAILED: 31,
  /** A timestamp out of the accepted range (Kafka's InvalidTimestampException). */
  INVALID_TIMESTAMP: 32,
  /** A request this node does not serve (a consumer group protocol GROUP_COORDINATOR_REBALANCE_PROTOCOLS leaves out). */
  UNSUPPORTED_VERSION: 35,
  INVALID_REQUEST: 42,
  KAFKA_STORAGE_ERROR: 56,
  SASL_AUTHENTICATION_FAILED: 58,
  FENCED_LEADER_EPOCH: 74,
  UNKNOWN_LEADER_EPOCH: 75,
  NON_EMPTY_GROUP: 68,
  GROUP_ID_NOT_FOUND: 69,
  MEMBER_ID_REQUIRED: 79,
  GROUP_MAX_SIZE_REACHED: 81,
  FENCED_INSTANCE_ID: 82,
  GROUP_SUBSCRIBED_TO_TOPIC: 86,
  UNSTABLE_OFFSET_COMMIT: 88,
  THROTTLING_QUOTA_EXCEEDED: 89,
  /** KIP-848: the member's epoch is not the group's view of it; it must rejoin with epoch 0. */
  FENCED_MEMBER_EPOCH: 110,
  /** KIP-848: a static member's instance id is still held by a member that did not leave. */
  UNRELEASED_INSTANCE_ID: 111,
  UNSUPPORTED_ASSIGNOR: 112,
  /** KIP-848: an offset request carried a member epoch that is not the member's current one. */
  STALE_MEMBER_EPOCH: 113,
  /** KIP-848: `subscribedTopicRegex` is not a valid RE2 expression. */
  INVALID_REGULAR_EXPRESSION: 128,
} as const;

export type ErrorName = keyof typeof ErrorCode;
export type ErrorCodeValue = (typeof ErrorCode)[ErrorName];

/** Errors after which retrying the same request (after rediscovery or a rejoin) can succeed. */
const RETRIABLE: ReadonlySet<ErrorName> = new Set<ErrorName>([
  'UNKNOWN_TOPIC_OR_PARTITION',
  'NOT_LEADER_OR_FOLLOWER',
  'REQUEST_TIMED_OUT',
  'NETWORK_EXCEPTION',
  'COORDINATOR_LOAD_IN_PROGRESS',
  'COORDINATOR_NOT_AVAILABLE',
  'NOT_COORDINATOR',
  'NOT_ENOUGH_REPLICAS',
  'NOT_ENOUGH_REPLICAS_AFTER_APPEND',
  'REBALANCE_IN_PROGRESS',
  'UNSTABLE_OFFSET_COMMIT',
  'FENCED_LEADER_EPOCH',
  'UNKNOWN_LEADER_EPOCH',
  'KAFKA_STORAGE_ERROR',
  // Kafka's ThrottlingQuotaExceededException is retriable: the same request passes once the window moves on.
  'THROTTLING_QUOTA_EXCEEDED',
]);

const NAME_BY_CODE = new Map<number, ErrorName>(
  (Object.entries(ErrorCode) as [ErrorName, number][]).map(([name, code]) => [code, name]),
);

export function errorName(code: number): ErrorName {
  return NAME_BY_CODE.get(code) ?? 'UNKNOWN_SERVER_ERROR';
}

export function isRetriable(code: number): boolean {
  return RETRIABLE.has(errorName(code));
}

/**
 * An error that carries a Kafka error code. Libraries throw it; transports shape it into
 * `{ errorCode, errorName, errorMessage }` (socket.io) or `{ statusCode, errorCode, error, message }` (REST).
 */
export class KafkaError extends Error {
  readonly errorName: ErrorName;
  readonly retriable: boolean;

  constructor(
    readonly errorCode: ErrorCodeValue,
    message?: string,
    /** Extra response fields that travel with the error (e.g. `memberId` on MEMBER_ID_REQUIRED). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message ?? errorName(errorCode));
    this.name = 'KafkaError';
    this.errorName = errorName(errorCode);
    this.retriable = isRetriable(errorCode);
  }

  static of(name: ErrorName, message?: string, details?: Record<string, unknown>): KafkaError {
    return new KafkaError(ErrorCode[name], message, details);
  }
}

/** The error part of every response: `errorCode` always, the name and message when it is not NONE. */
export interface ErrorFields {
  errorCode: number;
  errorName?: ErrorName;
  errorMessage?: string;
}
