import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiForbiddenResponse } from '@nestjs/swagger';
import { REQUEST_ACLS, type RequestAcl, type RequestName } from '@cohort/security';
import { RestErrorResponse } from '../../common/rest-error.response';

/** The parts of an Express request a route's resource names are read from. */
export interface RouteRequest {
  params?: Record<string, unknown>;
  query?: Record<string, unknown>;
  body?: unknown;
}

/** Reads the resource names a request is about; names that are not strings are left out (the DTO refuses them). */
export type NameSource = (request: RouteRequest) => string[];

/**
 * What a REST route needs, read by AclGuard (the only guard that authorizes). `request` names the
 * row of the per-request table (REQUEST_ACLS) whose operations apply:
 * - `group` / `topics`: where the group and topic names are; each is checked as the row says
 *   (30 for the group, 29 for a topic). A row with a cluster operation and no names checks the cluster (31);
 *   a row with both (CreateTopic) passes on the cluster operation, else checks each topic. A row's
 *   group or topic requirement without a source is refused as a mistaken declaration (31)...
 * - `filtered`: ...unless the handler filters what it returns by that requirement (a list, the topics
 *   of an offsets read): the sources given are still checked.
 * - `change`: an administrative change; AdminAuditInterceptor writes its audit line.
 */
export interface RouteAcl {
  request: RequestName;
  group?: NameSource;
  topics?: NameSource;
  filtered?: boolean;
  change?: boolean;
}

export const ROUTE_ACL = 'cohort:route-acl';
export const PUBLIC_ROUTE = 'cohort:public-route';

/**
 * Declares what a route needs; a route without a declaration is refused while authorization is on.
 * The OpenAPI document shows the requirement as the route's 403 answer.
 */
export const RequireAcl = (acl: RouteAcl) =>
  acl.filtered
    ? SetMetadata(ROUTE_ACL, acl)
    : applyDecorators(
        SetMetadata(ROUTE_ACL, acl),
        ApiForbiddenResponse({ type: RestErrorResponse, description: requirementOf(acl) }),
      );

function requirementOf(acl: RouteAcl): string {
  const needs: RequestAcl = REQUEST_ACLS[acl.request];
  const parts = [
    needs.cluster &&
      (needs.topic
        ? `${needs.cluster} on the cluster, or`
        : `${needs.cluster} on the cluster (31 CLUSTER_AUTHORIZATION_FAILED)`),
    needs.group && `${needs.group} on the group (30 GROUP_AUTHORIZATION_FAILED)`,
    needs.topic && `${needs.topic} on each topic (29 TOPIC_AUTHORIZATION_FAILED)`,
  ].filter(Boolean);
  return `With authentication on, needs ${parts.join(' and ').replace(', or and', ', or')} (docs/security.md).`;
}

/** A route anyone may call, authorization on or not (health probes). */
export const PublicRoute = () => SetMetadata(PUBLIC_ROUTE, true);

/** The route parameter `name` (`:groupId`, `:name`). */
export const fromParam =
  (name: string): NameSource =>
  (request) =>
    strings([request.params?.[name]]);

/** The query parameter `name` (`?groupId=`, `?topic=`). */
export const fromQuery =
  (name: string): NameSource =>
  (request) =>
    strings([request.query?.[name]]);

/** The body field `name` (`{ name }` of a topic creation). */
export const fromBody =
  (name: string): NameSource =>
  (request) =>
    strings([(request.body as Record<string, unknown> | undefined)?.[name]]);

/** The names in a body's topic list (`{ topics: [{ name }] }`). */
export const fromBodyTopics =
  (field = 'topics'): NameSource =>
  (request) => {
    const topics = (request.body as Record<string, unknown> | undefined)?.[field];
    return Array.isArray(topics)
      ? strings(topics.map((topic: unknown) => (topic as { name?: unknown } | null)?.name))
      : [];
  };

function strings(values: unknown[]): string[] {
  return [...new Set(values.filter((value): value is string => typeof value === 'string'))];
}
