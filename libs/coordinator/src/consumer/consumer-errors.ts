import { ErrorCode, type ErrorName } from '@cohort/protocol';
import type { ConsumerGroupHeartbeatResponse } from './consumer-heartbeat.types';

/**
 * An error a consumer group operation answers with (Kafka throws `ApiException`s from the same places):
 * the heartbeat turns it into `{ errorCode, errorMessage }` and writes nothing. The codes, the KIP-848
 * ones included (110, 111, 112, 113, 128, 35), are Kafka's, listed in `@cohort/protocol`.
 */
export class ConsumerGroupError extends Error {
  readonly errorCode: number;

  constructor(
    readonly errorName: ErrorName,
    message: string,
  ) {
    super(message);
    this.name = 'ConsumerGroupError';
    this.errorCode = ErrorCode[errorName];
  }
}

/** The heartbeat's answer to `error`: nothing written, no member. */
export function heartbeatErrorResponse(error: ConsumerGroupError): ConsumerGroupHeartbeatResponse {
  return {
    errorCode: error.errorCode,
    errorName: error.errorName,
    errorMessage: error.message,
    memberId: null,
    memberEpoch: 0,
    heartbeatIntervalMs: 0,
    assignment: null,
  };
}
