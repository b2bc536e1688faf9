import { ErrorCode, errorName, isRetriable, type ErrorName } from '@cohort/protocol';

/** What a socket.io response carries when it fails. */
export interface WireErrorFields {
  errorCode: number;
  errorName?: string;
  errorMessage?: string;
}

/** What a REST error body carries (`{ statusCode, errorCode, error, message }`). */
export interface RestErrorBody {
  statusCode?: number;
  errorCode?: number;
  error?: string;
  message?: string | string[];
}

/**
 * Every error the SDK reports: a Kafka error code, its Kafka name (`name`, e.g. `REBALANCE_IN_PROGRESS`)
 * and whether the same call may succeed later. The member's retry loop is driven by `retriable`, as
 * KafkaJS's is; applications can use it the same way.
 */
export class CohortError extends Error {
  override name: string;
  readonly code: number;
  readonly retriable: boolean;
  /** HTTP status when the error came from REST. */
  readonly status?: number;
  /** Extra fields of the response the error came in (e.g. `memberId` on MEMBER_ID_REQUIRED). */
  readonly details?: Record<string, unknown>;

  constructor(
    code: number,
    message?: string,
    options: {
      name?: string;
      status?: number;
      details?: Record<string, unknown>;
      cause?: unknown;
      retriable?: boolean;
    } = {},
  ) {
    const name = options.name ?? errorName(code);
    super(message ?? name, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = name;
    this.code = code;
    this.retriable = options.retriable ?? isRetriable(code);
    if (options.status !== undefined) this.status = options.status;
    if (options.details !== undefined) this.details = options.details;
  }

  /** From a failed socket.io response; the rest of the response travels as `details`. */
  static fromResponse(response: WireErrorFields & Record<string, unknown>): CohortError {
    const { errorCode, errorName: name, errorMessage, ...details } = response;
    return new CohortError(errorCode, errorMessage ?? name ?? errorName(errorCode), {
      name: name ?? errorName(errorCode),
      details,
    });
  }

  /** From a REST error body and its HTTP status. */
  static fromRest(body: RestErrorBody | undefined, status: number): CohortError {
    const code = typeof body?.errorCode === 'number' ? body.errorCode : codeForStatus(status);
    const message = Array.isArray(body?.message) ? body.message.join('; ') : body?.message;
    // 5xx and 429 answers are worth another try whatever their code says; a client mistake is not.
    const retriable = isRetriable(code) || status === 429 || status === 502 || status === 503 || status === 504;
    return new CohortError(code, message ?? body?.error ?? `HTTP ${status}`, {
      name: body?.error ?? errorName(code),
      status,
      retriable,
    });
  }

  /** An error the SDK raises itself (a timeout, a lost connection, a bad option). */
  static of(name: ErrorName, message?: string, cause?: unknown): CohortError {
    return new CohortError(ErrorCode[name], message ?? name, { name, cause });
  }

  /** `error` itself when it is a CohortError, else one wrapping it (code -1, not retriable). */
  static from(error: unknown): CohortError {
    if (error instanceof CohortError) return error;
    return new CohortError(-1, error instanceof Error ? error.message : String(error), {
      name: 'UNKNOWN_SERVER_ERROR',
      retriable: false,
      cause: error,
    });
  }

  /** `true` when `error` is a CohortError with one of the given Kafka names. */
  static is(error: unknown, ...names: ErrorName[]): error is CohortError {
    return error instanceof CohortError && (names.length === 0 || names.includes(error.name as ErrorName));
  }
}

function codeForStatus(status: number): number {
  if (status === 429) return ErrorCode.THROTTLING_QUOTA_EXCEEDED;
  if (status === 401) return ErrorCode.SASL_AUTHENTICATION_FAILED;
  if (status === 403) return ErrorCode.CLUSTER_AUTHORIZATION_FAILED;
  if (status === 408 || status === 504) return ErrorCode.REQUEST_TIMED_OUT;
  if (status === 503) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
  if (status >= 400 && status < 500) return ErrorCode.INVALID_REQUEST;
  return ErrorCode.UNKNOWN_SERVER_ERROR;
}
