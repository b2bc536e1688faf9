import { HttpException, HttpStatus } from '@nestjs/common';
import { KafkaError } from '@cohort/protocol';

/**
 * Any exception as a KafkaError, for the transports' filters. A framework HttpException in the 4xx range
 * (unparsable body, unknown route) is the client's mistake, INVALID_REQUEST; a 503 (terminus reporting
 * not ready) is COORDINATOR_NOT_AVAILABLE; anything unexpected is an UNKNOWN_SERVER_ERROR whose details
 * stay in the log, not on the wire.
 */
export function kafkaErrorOf(exception: unknown): KafkaError {
  if (exception instanceof KafkaError) return exception;
  if (exception instanceof HttpException) {
    const status = exception.getStatus();
    if (status < 500) return KafkaError.of('INVALID_REQUEST', exception.message);
    if (status === HttpStatus.SERVICE_UNAVAILABLE)
      return KafkaError.of('COORDINATOR_NOT_AVAILABLE', unavailableMessage(exception));
  }
  return KafkaError.of('UNKNOWN_SERVER_ERROR', 'internal error; see the server log');
}

/** terminus puts the failing indicators under `error`; name them rather than "Service Unavailable". */
function unavailableMessage(exception: HttpException): string {
  const response = exception.getResponse();
  const failing =
    typeof response === 'object' && response !== null ? (response as { error?: unknown }).error : undefined;
  return failing && typeof failing === 'object' ? `not ready: ${JSON.stringify(failing)}` : exception.message;
}
