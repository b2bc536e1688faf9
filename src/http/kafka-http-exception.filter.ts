import { type ArgumentsHost, Catch, type ExceptionFilter, HttpException, Logger } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import { ErrorCode } from '@cohort/protocol';
import { kafkaErrorOf } from '../common/kafka-error-of';
import { httpStatusOf } from './http-status-of';

/**
 * REST's one exception filter (docs/rest.md): HTTP status plus `{ statusCode, errorCode, error, message }`.
 * Registered as APP_FILTER; it never sees socket.io requests (global filters skip gateways).
 */
@Catch()
export class KafkaHttpExceptionFilter implements ExceptionFilter {
  private readonly logger = new Logger('Http');

  constructor(private readonly adapterHost: HttpAdapterHost) {}

  catch(exception: unknown, host: ArgumentsHost): void {
    const error = kafkaErrorOf(exception);
    if (error.errorCode === ErrorCode.UNKNOWN_SERVER_ERROR && !(exception instanceof HttpException)) {
      this.logger.error(exception instanceof Error ? (exception.stack ?? exception.message) : String(exception));
    }
    // A framework exception keeps its own status (404 for an unknown route, 413 for a body over the
    // limit, 503 from a failing readiness check).
    const statusCode = exception instanceof HttpException ? exception.getStatus() : httpStatusOf(error.errorName);
    const body = { statusCode, errorCode: error.errorCode, error: error.errorName, message: error.message };
    this.adapterHost.httpAdapter.reply(host.switchToHttp().getResponse(), body, statusCode);
  }
}
