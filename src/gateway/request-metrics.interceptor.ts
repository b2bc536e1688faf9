import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { type Observable, tap } from 'rxjs';
import { CohortMetrics } from '../metrics/cohort-metrics';
import { kafkaErrorOf } from '../common/kafka-error-of';

/** Counts and times every socket.io request by API and outcome (the ack's errorCode, or the thrown error's). */
@Injectable()
export class RequestMetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: CohortMetrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const api = context.switchToWs().getPattern();
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    return next.handle().pipe(
      tap({
        next: (response) => this.metrics.requestAnswered('socket.io', api, errorCodeOf(response), seconds()),
        error: (error: unknown) => this.metrics.requestAnswered('socket.io', api, kafkaErrorOf(error).errorCode, seconds()),
      }),
    );
  }
}

function errorCodeOf(response: unknown): number {
  const code = (response as { errorCode?: unknown } | null)?.errorCode;
  return typeof code === 'number' ? code : 0;
}
