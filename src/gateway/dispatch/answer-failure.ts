import { Logger } from '@nestjs/common';
import { ErrorCode } from '@cohort/protocol';
import { kafkaErrorOf } from '../../common/kafka-error-of';

const logger = new Logger('CoordinatorGateway');

/**
 * Every failure of a socket request (validation, a coordinator KafkaError, an ACL refusal, a bug) is
 * answered on the request's acknowledgement as `{ errorCode, errorName, errorMessage }` (plus the error's
 * details, e.g. `memberId` on MEMBER_ID_REQUIRED), and the socket stays connected; only an
 * UNKNOWN_SERVER_ERROR (a bug) is logged, with its stack.
 */
export function answerFailure(exception: unknown, ack: unknown): void {
  const error = kafkaErrorOf(exception);
  if (error.errorCode === ErrorCode.UNKNOWN_SERVER_ERROR) {
    logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
  }
  if (typeof ack !== 'function') return; // the client asked for no answer
  ack({ ...error.details, errorCode: error.errorCode, errorName: error.errorName, errorMessage: error.message });
}
