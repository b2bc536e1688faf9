import { type ExecutionContext, Injectable } from '@nestjs/common';
import { ThrottlerGuard, type ThrottlerLimitDetail } from '@nestjs/throttler';
import { KafkaError } from '@cohort/protocol';
import type { GateRequest } from './rest-security.gate';

/**
 * @nestjs/throttler on REST: RATE_LIMIT_REST_PER_MINUTE per client address (0: off), answered 429
 * with error 89 THROTTLING_QUOTA_EXCEEDED (and the guard's Retry-After / X-RateLimit headers).
 * Registered as APP_GUARD, which in this Nest version also runs on gateway handlers: those are
 * skipped here, socket events have their own per-connection rate. So are the health probes and calls
 * another node signed (they were counted where the client made them).
 */
@Injectable()
export class RestThrottlerGuard extends ThrottlerGuard {
  protected override async shouldSkip(context: ExecutionContext): Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<GateRequest>();
    return request.fromClusterNode !== undefined || request.originalUrl.startsWith('/health/');
  }

  protected override async throwThrottlingException(
    _context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const seconds = Math.max(1, Math.ceil(detail.timeToBlockExpire));
    throw KafkaError.of(
      'THROTTLING_QUOTA_EXCEEDED',
      `over ${detail.limit} requests a minute from this address (RATE_LIMIT_REST_PER_MINUTE); retry in ${seconds} s`,
    );
  }
}
