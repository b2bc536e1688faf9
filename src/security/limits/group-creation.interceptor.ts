import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { from, lastValueFrom, type Observable } from 'rxjs';
import { callerOfRequest, routeOf } from '../authorization/caller-of';
import { ROUTE_ACL, type RouteAcl, type RouteRequest } from '../authorization/route-acl.decorator';
import type { PrincipalRequest } from '../principal';
import { CreationLimits } from './creation-limits';

type HttpRequest = PrincipalRequest &
  RouteRequest & { method?: string; route?: { path?: string }; path?: string; body?: unknown };

/**
 * The REST routes that set a group's offsets (`POST /v1/groups/:groupId/offsets`, an executed
 * `.../offsets/reset`) create the group when it does not exist, as a commit with generation -1 does:
 * they count against MAX_GROUPS_PER_PRINCIPAL like the socket events (429 with error 89 over it).
 * Found by their declaration (the OffsetCommit row with a group), so a new such route is counted too.
 */
@Injectable()
export class GroupCreationInterceptor implements NestInterceptor {
  constructor(
    private readonly reflector: Reflector,
    private readonly limits: CreationLimits,
  ) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const acl =
      context.getType() === 'http'
        ? this.reflector.get<RouteAcl | undefined>(ROUTE_ACL, context.getHandler())
        : undefined;
    if (acl?.request !== 'OffsetCommit' || !acl.group) return next.handle();
    const request = context.switchToHttp().getRequest<HttpRequest>();
    const [groupId] = acl.group(request);
    const route = routeOf(request);
    // A reset is a dry run unless `dryRun: false`: it only reads.
    if (
      groupId === undefined ||
      (route.endsWith('/reset') && (request.body as { dryRun?: unknown } | undefined)?.dryRun !== false)
    )
      return next.handle();
    return from(
      this.limits.creatingGroup(callerOfRequest(request), groupId, route, () => lastValueFrom(next.handle())),
    );
  }
}
