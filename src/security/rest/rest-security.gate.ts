import { Injectable, Logger } from '@nestjs/common';
import { ErrorCode, type ErrorName } from '@cohort/protocol';
import { CohortConfig } from '../../config/cohort-config';
import { AuditLogger } from '../audit-logger';
import { Authenticator } from '../authentication/authenticator';
import { certificateCnOf } from '../authentication/certificate-cn';
import { AuthenticationFailed, AUTHENTICATION_FAILED_MESSAGE, type Credential } from '../authentication/credential';
import {
  FORWARDED_HEADER,
  FORWARDED_PRINCIPAL_HEADER,
  NODE_AUTH_HEADER,
  NodeRequestSigner,
  signedBodyOf,
} from '../cluster/node-request-signer';
import { HostPolicy } from '../origin/host-policy';
import { OriginPolicy } from '../origin/origin-policy';
import { ANONYMOUS_PRINCIPAL, hostOfRequest } from '../principal';
import { protectedModeRefusal } from '../protected-mode';
import { isProbe, isPublicDocument } from './public-paths';
import { RestRateLimiter } from './rest-rate-limiter';

/** What the gate uses of Express's request and response. */
export interface GateRequest {
  method: string;
  originalUrl: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  ip?: string;
  socket: { remoteAddress?: string };
  principal?: string;
  /** Set on a call another node signed with the cluster secret (not rate-limited again). */
  fromClusterNode?: number;
}
interface GateResponse {
  status(code: number): GateResponse;
  setHeader(name: string, value: string): void;
  json(body: unknown): void;
}
type Next = (error?: unknown) => void;

const BEARER = /^Bearer[ \t]+(\S+)[ \t]*$/i;

/**
 * The REST edge, the first Express middleware after CORS (configureCohortApp): refuses a foreign
 * `Origin` (403), checks a node-to-node call's signature, applies protected mode and its `Host`
 * check (403, HostPolicy) and, with
 * authentication on, `Authorization: Bearer <token>` or the TLS client certificate (401, with one
 * audit line) on everything but the probes and what a browser loads first (public-paths.ts). It leaves the principal on `request.principal` for authorization; every refusal is
 * `{ statusCode, errorCode, error, message }` with error 58.
 */
@Injectable()
export class RestSecurityGate {
  private readonly logger = new Logger('RestSecurity');

  constructor(
    private readonly config: CohortConfig,
    private readonly authenticator: Authenticator,
    private readonly origins: OriginPolicy,
    private readonly hosts: HostPolicy,
    private readonly signer: NodeRequestSigner,
    private readonly rateLimiter: RestRateLimiter,
    private readonly audit: AuditLogger,
  ) {}

  readonly handle = (request: GateRequest, response: GateResponse, next: Next): void => {
    void this.admit(request, response).then(
      (admitted) => admitted && next(),
      (error: unknown) => {
        // A fault of ours, not the client's credential: logged, and the request refused (fail closed).
        this.logger.error(
          `authentication check failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`,
        );
        refuse(response, 401, AUTHENTICATION_FAILED_MESSAGE);
      },
    );
  };

  private async admit(request: GateRequest, response: GateResponse): Promise<boolean> {
    if (isProbe(request.originalUrl)) return true;
    // A call another node signed was counted where the client made it; anything else is counted here,
    // where it enters, before it is forwarded or fanned out, and before any credential is looked at.
    const fromNode =
      request.headers[FORWARDED_HEADER] !== undefined && this.signer.enabled ? this.verifyNode(request) : null;
    if (fromNode !== null && !('refused' in fromNode)) return true;
    if (!(await this.rateLimiter.admit(request, response))) return false;
    if (fromNode !== null && 'refused' in fromNode) {
      this.audit.denied({ ...this.auditFields(request), detail: `node-to-node call: ${fromNode.refused}` });
      return refuse(response, 401, `node-to-node call refused: ${fromNode.refused}`);
    }
    if (!this.origins.allows(request.headers.origin)) {
      return refuse(
        response,
        403,
        `Origin ${String(request.headers.origin)} is not allowed (allowed: this node's own origin and CORS_ORIGINS)`,
      );
    }
    const protectedMode = protectedModeRefusal(this.config.security, hostOfRequest(request));
    if (protectedMode) return refuse(response, 403, protectedMode);
    const foreignHost = this.hosts.refusal(request.headers.host);
    if (foreignHost) return refuse(response, 403, foreignHost);
    if (!this.authenticator.enabled || isPublicDocument(request.method, request.originalUrl)) return true;
    try {
      request.principal = (await this.authenticate(request)).principal;
      return true;
    } catch (error) {
      if (!(error instanceof AuthenticationFailed)) throw error;
      this.audit.denied({ ...this.auditFields(request), detail: `${error.credentialKind}: ${error.reason}` });
      response.setHeader('WWW-Authenticate', 'Bearer');
      return refuse(response, 401, AUTHENTICATION_FAILED_MESSAGE);
    }
  }

  private authenticate(request: GateRequest): Promise<Credential> {
    const header = request.headers.authorization;
    let token: string | undefined;
    if (header !== undefined) {
      const match = typeof header === 'string' ? BEARER.exec(header) : null;
      if (!match) throw new AuthenticationFailed('the Authorization header is not "Bearer <token>"', 'header');
      token = match[1];
    }
    return this.authenticator.authenticate({ token, certificateCn: certificateCnOf(request.socket) });
  }

  /**
   * A call that says it comes from another node: it must prove the cluster secret; the caller's
   * principal travels with it and is left on the request when it does.
   */
  private verifyNode(request: GateRequest): { nodeId: number } | { refused: string } {
    const principalHeader = request.headers[FORWARDED_PRINCIPAL_HEADER];
    const principal =
      typeof principalHeader === 'string' && principalHeader !== '' ? principalHeader : ANONYMOUS_PRINCIPAL;
    const verified = this.signer.verify(request.headers[NODE_AUTH_HEADER], {
      method: request.method,
      url: request.originalUrl,
      body: signedBodyOf(request.method, request.body),
      principal,
    });
    if ('refused' in verified) return { refused: verified.refused };
    request.principal = principal;
    request.fromClusterNode = verified.nodeId;
    return { nodeId: verified.nodeId };
  }

  private auditFields(request: GateRequest) {
    return {
      principal: ANONYMOUS_PRINCIPAL,
      host: hostOfRequest(request),
      operation: 'AUTHENTICATE',
      resourceType: 'CLUSTER',
      resourceName: 'kafka-cluster',
      request: `${request.method} ${request.originalUrl.split('?')[0]}`,
    };
  }
}

function refuse(response: GateResponse, status: 401 | 403, message: string): false {
  const name: ErrorName = 'SASL_AUTHENTICATION_FAILED';
  response.status(status).json({ statusCode: status, errorCode: ErrorCode[name], error: name, message });
  return false;
}
