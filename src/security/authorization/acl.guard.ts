import { type CanActivate, type ExecutionContext, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { CLUSTER_RESOURCE_NAME, KafkaError } from '@cohort/protocol';
import { REQUEST_ACLS, type RequestAcl } from '@cohort/security';
import { AuditLogger } from '../audit-logger';
import type { PrincipalRequest } from '../principal';
import { AuthorizationService, type Caller } from './authorization.service';
import { callerOfRequest, routeOf } from './caller-of';
import { PUBLIC_ROUTE, ROUTE_ACL, type RouteAcl, type RouteRequest } from './route-acl.decorator';

type HttpRequest = PrincipalRequest & RouteRequest & { method?: string; route?: { path?: string }; path?: string };

/**
 * REST authorization, declarative and fail-closed: every route says what it needs (@RequireAcl or
 * @PublicRoute); while authorization is on, a route that says nothing is refused with 31, so a new
 * route cannot be reachable by accident. Runs before the pipes and the handler, as Kafka's KafkaApis
 * checks before the coordinator is called; a refusal is 403 with the table's code and one audit line.
 * socket.io handlers pass through here (global guards run on gateways); the gateway checks its events
 * itself, per group and per partition.
 */
@Injectable()
export class AclGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly authorization: AuthorizationService,
    private readonly audit: AuditLogger,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http' || !this.authorization.enabled) return true;
    const targets = [context.getHandler(), context.getClass()];
    if (this.reflector.getAllAndOverride<boolean>(PUBLIC_ROUTE, targets)) return true;
    const request = context.switchToHttp().getRequest<HttpRequest>();
    const caller = callerOfRequest(request);
    const route = routeOf(request);
    const acl = this.reflector.getAllAndOverride<RouteAcl | undefined>(ROUTE_ACL, targets);
    if (!acl) {
      if (this.authorization.isSuperUser(caller)) return true;
      this.audit.denied({
        ...caller,
        operation: 'ALL',
        resourceType: 'CLUSTER',
        resourceName: CLUSTER_RESOURCE_NAME,
        request: route,
        detail: 'the route declares no ACL requirement',
      });
      throw KafkaError.of(
        'CLUSTER_AUTHORIZATION_FAILED',
        `${route} declares no ACL requirement, so only super users may call it`,
      );
    }
    this.authorize(caller, acl, request, route);
    return true;
  }

  private authorize(caller: Caller, acl: RouteAcl, request: HttpRequest, route: string): void {
    const needs: RequestAcl = REQUEST_ACLS[acl.request];
    if (needs.cluster && !needs.group && !needs.topic) {
      if (!this.authorization.checkCluster(caller, needs.cluster, route)) {
        throw KafkaError.of(
          'CLUSTER_AUTHORIZATION_FAILED',
          `${caller.principal} may not ${needs.cluster} the cluster (${route})`,
        );
      }
      return;
    }
    // A requirement of the row with no names to check it on is a mistake in the declaration: refuse
    // rather than let the route through unchecked (unless the handler filters what it returns).
    const unchecked = !acl.filtered && ((needs.group && !acl.group) || (needs.topic && !acl.topics));
    if (unchecked && !this.authorization.isSuperUser(caller)) {
      this.audit.denied({
        ...caller,
        operation: 'ALL',
        resourceType: 'CLUSTER',
        resourceName: CLUSTER_RESOURCE_NAME,
        request: route,
        detail: `the route's ${acl.request} declaration names no resource`,
      });
      throw KafkaError.of(
        'CLUSTER_AUTHORIZATION_FAILED',
        `${route} declares ${acl.request} without saying where its resource names are, so only super users may call it`,
      );
    }
    if (needs.group) {
      for (const group of acl.group?.(request) ?? []) {
        if (!this.authorization.check(caller, needs.group, 'GROUP', group, route)) {
          throw KafkaError.of(
            'GROUP_AUTHORIZATION_FAILED',
            `${caller.principal} may not ${needs.group} group '${group}'`,
          );
        }
      }
    }
    const topicOperation = needs.topic;
    if (topicOperation) {
      // A wider grant on the cluster (CREATE CLUSTER for a topic creation) makes the topic check unnecessary.
      if (needs.cluster && this.authorization.allows(caller, needs.cluster, 'CLUSTER', CLUSTER_RESOURCE_NAME)) return;
      const denied = [
        ...this.authorization.refusedOf(caller, topicOperation, 'TOPIC', acl.topics?.(request) ?? [], route),
      ];
      if (denied.length > 0) {
        throw KafkaError.of(
          'TOPIC_AUTHORIZATION_FAILED',
          `${caller.principal} may not ${topicOperation} topic${denied.length > 1 ? 's' : ''} ${denied.map((t) => `'${t}'`).join(', ')}`,
        );
      }
    }
  }
}
