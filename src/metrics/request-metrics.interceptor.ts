import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { type Observable, tap } from 'rxjs';
import { kafkaErrorOf } from '../common/kafka-error-of';
import { CohortMetrics } from './cohort-metrics';

/**
 * Counts and times every request of both transports (registered as APP_INTERCEPTOR, which reaches
 * gateways too) by API and outcome: the socket.io event name or the HTTP route pattern, and the Kafka
 * error of the answer (its errorCode, or the thrown error's).
 */
@Injectable()
export class RequestMetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: CohortMetrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const transport = context.getType() === 'ws' ? 'socket.io' : 'http';
    const api = transport === 'socket.io' ? context.switchToWs().getPattern() : routeOf(context);
    const started = process.hrtime.bigint();
    const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
    return next.handle().pipe(
      tap({
        next: (response) => this.metrics.requestAnswered(transport, api, errorCodeOf(response), seconds()),
        error: (error: unknown) => this.metrics.requestAnswered(transport, api, kafkaErrorOf(error).errorCode, seconds()),
      }),
    );
  }
}

/** `GET /v1/groups/:groupId`: the route pattern, never the concrete path, so label values stay few. */
function routeOf(context: ExecutionContext): string {
  const request = context.switchToHttp().getRequest<{ method: string; route?: { path?: string } }>();
  return `${request.method} ${request.route?.path ?? 'unknown'}`;
}

function errorCodeOf(response: unknown): number {
  const code = (response as { errorCode?: unknown } | null)?.errorCode;
  return typeof code === 'number' ? code : 0;
}
