import { type ArgumentsHost, Catch, type ExceptionFilter, Logger } from '@nestjs/common';
import { ErrorCode } from '@cohort/protocol';
import { kafkaErrorOf } from '../common/kafka-error-of';

const logger = new Logger('CoordinatorGateway');

/**
 * The gateway's one exception filter: every failure of a request (validation, a coordinator KafkaError,
 * a bug) is answered on the request's acknowledgement as `{ errorCode, errorName, errorMessage }` (plus
 * the error's details, e.g. `memberId` on MEMBER_ID_REQUIRED), and the socket stays connected. Nest's
 * default WS filter would emit a separate `exception` event instead, leaving `emitWithAck` to time out.
 * Global filters do not apply to gateways, so the gateway names this one with @UseFilters.
 */
@Catch()
export class WsAckExceptionFilter implements ExceptionFilter {
  catch(exception: unknown, host: ArgumentsHost): void {
    answerFailure(exception, host.getArgByIndex(2));
  }
}

/** What the filter does, for the events the gateway answers without Nest's pipeline (lean-events.ts). */
export function answerFailure(exception: unknown, ack: unknown): void {
  const error = kafkaErrorOf(exception);
  if (error.errorCode === ErrorCode.UNKNOWN_SERVER_ERROR) {
    logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
  }
  if (typeof ack !== 'function') return; // the client asked for no answer
  ack({ ...error.details, errorCode: error.errorCode, errorName: error.errorName, errorMessage: error.message });
}
