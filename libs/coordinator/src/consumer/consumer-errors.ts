import { ErrorCode, type ErrorName } from '@cohort/protocol';

/**
 * The KIP-848 error codes (Kafka's `Errors`), beside the classic ones of `@cohort/protocol`.
 * Kept here until the protocol library lists them; the numbers are Kafka's.
 */
export const ConsumerErrorCode = {
  UNSUPPORTED_VERSION: 35,
  FENCED_MEMBER_EPOCH: 110,
  UNRELEASED_INSTANCE_ID: 111,
  UNSUPPORTED_ASSIGNOR: 112,
  STALE_MEMBER_EPOCH: 113,
  INVALID_REGULAR_EXPRESSION: 128,
} as const;

export type ConsumerErrorName = keyof typeof ConsumerErrorCode | ErrorName;

/**
 * An error a consumer group operation answers with (Kafka throws `ApiException`s from the same places):
 * the heartbeat turns it into `{ errorCode, errorMessage }` and writes nothing.
 */
export class ConsumerGroupError extends Error {
  readonly errorCode: number;

  constructor(
    readonly errorName: ConsumerErrorName,
    message: string,
  ) {
    super(message);
    this.name = 'ConsumerGroupError';
    this.errorCode =
      errorName in ConsumerErrorCode
        ? ConsumerErrorCode[errorName as keyof typeof ConsumerErrorCode]
        : ErrorCode[errorName as ErrorName];
  }
}
