import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { kafkaErrorOf } from '../../common/kafka-error-of';
import { REQUEST_ACLS, type RequestAcl } from '@cohort/security';
import { type Observable, tap } from 'rxjs';
import { AuditLogger } from '../audit-logger';
import type { PrincipalRequest } from '../principal';
import { callerOfRequest, routeOf } from './caller-of';
import { ROUTE_ACL, type RouteAcl, type RouteRequest } from './route-acl.decorator';

type HttpRequest = PrincipalRequest & RouteRequest & { method?: string; route?: { path?: string }; path?: string };

/**
 * One audit line per administrative change made over REST (a route declared with `change: true`:
 * offsets set, reset or deleted, a group deleted, a topic created or altered), once the change has
 * succeeded or failed, authorization on or not. ACL changes are written by AuthorizationService, one
 * line per binding.
 */
@Injectable()
export class AdminAuditInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly audit: AuditLogger,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const acl =
      context.getType() === 'http'
        ? this.reflector.get<RouteAcl | undefined>(ROUTE_ACL, context.getHandler())
        : undefined;
    if (!acl?.change) return next.handle();
    const request = context.switchToHttp().getRequest<HttpRequest>();
    const needs: RequestAcl = REQUEST_ACLS[acl.request];
    const groups = acl.group?.(request) ?? [];
    const topics = acl.topics?.(request) ?? [];
    const onGroup = needs.group !== undefined && groups.length > 0;
    const event = {
      ...callerOfRequest(request),
      operation: (onGroup ? needs.group : needs.topic) ?? 'ALTER',
      resourceType: onGroup ? 'GROUP' : 'TOPIC',
      resourceName: (onGroup ? groups : topics).join(','),
      request: routeOf(request),
      ...(onGroup && topics.length > 0 ? { detail: `topics ${topics.join(',')}` } : {}),
    };
    return next.handle().pipe(
      tap({
        next: () => this.audit.changed(event),
        error: (error: unknown) =>
          this.audit.changed(
            { ...event, detail: [event.detail, kafkaErrorOf(error).errorName].filter(Boolean).join('; ') },
            true,
          ),
      }),
    );
  }
}
