import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { type Observable, tap } from 'rxjs';
import { kafkaErrorOf } from '../common/kafka-error-of';
import { CohortMetrics } from './cohort-metrics';

/**
 * Counts and times every REST request by route pattern and outcome (the Kafka error of what was
 * thrown, NONE otherwise). Applied to the REST controllers; socket.io requests are measured at their
 * acknowledgement (socket-ack-metrics), which costs less per request than an interceptor.
 */
@Injectable()
export class RequestMetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: CohortMetrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const api = routeOf(context);
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    return next.handle().pipe(
      tap({
        next: () => this.metrics.requestAnswered('http', api, 0, seconds()),
        error: (error: unknown) => this.metrics.requestAnswered('http', api, kafkaErrorOf(error).errorCode, seconds()),
      }),
    );
  }
}

/** `GET /v1/groups/:groupId`: the route pattern, never the concrete path, so label values stay few. */
function routeOf(context: ExecutionContext): string {
  const request = context.switchToHttp().getRequest<{ method: string; route?: { path?: string } }>();
  return `${request.method} ${request.route?.path ?? 'unknown'}`;
}
