import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { normalizeIp, ThrottlerStorageService } from '@nestjs/throttler';
import { ErrorCode } from '@cohort/protocol';
import { CohortConfig } from '../../config/cohort-config';
import { CohortMetrics } from '../../metrics/cohort-metrics';

const WINDOW_MS = 60_000;

/** What the limiter uses of Express's request and response. */
interface LimitedRequest {
  ip?: string;
  socket: { remoteAddress?: string };
}
interface LimitedResponse {
  status(code: number): LimitedResponse;
  setHeader(name: string, value: string): void;
  json(body: unknown): void;
}

/**
 * RATE_LIMIT_REST_PER_MINUTE per client address (an IPv6 client by its /64, as @nestjs/throttler
 * groups them), counted by RestSecurityGate where a request enters the cluster: before this node
 * forwards it to a group's coordinator or asks every node for the group list, and never again on the
 * node a signed call from another node lands on. Every path counts but the health probes, so a client
 * cannot spend one allowance per route. @nestjs/throttler's storage keeps the count (a minute of hits,
 * then blocked for a minute, as its guard does); over it the answer is 429 with error 89
 * THROTTLING_QUOTA_EXCEEDED and `Retry-After`, counted in `cohort_rate_limited_total{limit="rest"}`.
 */
@Injectable()
export class RestRateLimiter implements OnApplicationShutdown {
  private readonly storage = new ThrottlerStorageService();
  private readonly limit: number;

  constructor(
    config: CohortConfig,
    private readonly metrics: CohortMetrics,
  ) {
    this.limit = config.security.restRequestsPerMinute;
  }

  /** Counts the request; false when it is over the limit, and then the 429 has been answered. */
  async admit(request: LimitedRequest, response: LimitedResponse): Promise<boolean> {
    if (this.limit <= 0) return true;
    const address = request.ip ?? request.socket.remoteAddress ?? '';
    const record = await this.storage.increment(
      `rest:${address === '' ? address : normalizeIp(address)}`,
      WINDOW_MS,
      this.limit,
      WINDOW_MS,
      'default',
    );
    if (!record.isBlocked) {
      response.setHeader('X-RateLimit-Limit', String(this.limit));
      response.setHeader('X-RateLimit-Remaining', String(Math.max(0, this.limit - record.totalHits)));
      response.setHeader('X-RateLimit-Reset', String(record.timeToExpire));
      return true;
    }
    this.metrics.edge.rateLimited('rest');
    const seconds = Math.max(1, record.timeToBlockExpire);
    response.setHeader('Retry-After', String(seconds));
    response.status(429).json({
      statusCode: 429,
      errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED,
      error: 'THROTTLING_QUOTA_EXCEEDED',
      message: `over ${this.limit} requests a minute from this address (RATE_LIMIT_REST_PER_MINUTE); retry in ${seconds} s`,
    });
    return false;
  }

  onApplicationShutdown(): void {
    this.storage.onApplicationShutdown();
  }
}
