import { applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiResponse } from '@nestjs/swagger';
import { RestErrorResponse } from '../../common/rest-error.response';

/** The name of the bearer scheme in the OpenAPI document (`components.securitySchemes`). */
export const BEARER_SCHEME = 'bearer';

export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 429 | 503;

/** What each status means on any route; a route adds what it means there. */
const MEANING: Record<ErrorStatus, string> = {
  400: 'INVALID_REQUEST (42): a malformed body, query or path, naming the bad field; nothing changed.',
  401: 'SASL_AUTHENTICATION_FAILED (58): authentication is on and the bearer token is missing, unknown or expired.',
  403: 'An ACL the request needs is missing (29 TOPIC_, 30 GROUP_ or 31 CLUSTER_AUTHORIZATION_FAILED, docs/security.md), or protected mode or a foreign Origin refused it (58).',
  404: 'Not found.',
  409: 'Refused in the current state.',
  429: 'THROTTLING_QUOTA_EXCEEDED (89): over RATE_LIMIT_REST_PER_MINUTE or a creation limit; retry later.',
  503: 'Retriable: the coordinator or the metadata store cannot answer now (NOT_COORDINATOR, COORDINATOR_NOT_AVAILABLE, COORDINATOR_LOAD_IN_PROGRESS).',
};

/**
 * Error answers of a route (or of every route of a controller), each `{ statusCode, errorCode, error,
 * message }` (RestErrorResponse); a description says what the status means there (else its general meaning).
 */
export function ApiErrors(errors: Partial<Record<ErrorStatus, string | true>>) {
  return applyDecorators(
    ...Object.entries(errors).map(([status, text]) =>
      ApiResponse({
        status: Number(status),
        type: RestErrorResponse,
        description: text === true ? MEANING[Number(status) as ErrorStatus] : (text as string),
      }),
    ),
  );
}

/**
 * A controller behind authentication and ACLs: the bearer scheme, and the answers every such route may
 * give (401, 403, 429; docs/security.md).
 */
export function ApiProtected() {
  return applyDecorators(ApiBearerAuth(BEARER_SCHEME), ApiErrors({ 401: true, 403: true, 429: true }));
}
