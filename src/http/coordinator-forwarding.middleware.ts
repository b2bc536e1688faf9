import { Inject, Injectable, Logger, type NestMiddleware, Optional } from '@nestjs/common';
import { ErrorCode, errorName, groupIdOfPathSegment } from '@cohort/protocol';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import type { NodeView } from '../node/cluster-status';
import { fetch, type Response as NodeResponse } from 'undici';
import { NodeHttpClient } from '../security/cluster/node-http-client';
import { FORWARDED_HEADER, NodeRequestSigner, signedBodyOf } from '../security/cluster/node-request-signer';
import { principalOfRequest } from '../security/principal';

/** What this middleware uses of Express's request and response (the project does not use @types/express). */
interface Request {
  method: string;
  originalUrl: string;
  headers: Record<string, string | string[] | undefined>;
  body?: unknown;
  principal?: string;
}
interface Response {
  status(code: number): Response;
  json(body: unknown): void;
  send(body: Buffer): void;
  setHeader(name: string, value: string): void;
}
type NextFunction = (error?: unknown) => void;

/** On a merged group list: nodes that did not answer, so their groups are missing. */
export const UNREACHABLE_HEADER = 'x-cohort-unreachable-nodes';
const FORWARD_TIMEOUT_MS = 10_000;

/**
 * In cluster mode an operator may ask any node about any group (docs/rest.md): a group's requests go to
 * the node that coordinates it, and `GET /v1/groups` asks every live node and merges their lists, as
 * Kafka's admin client does on the client side. Without this, a node answered only for the groups it
 * coordinates (503 NOT_COORDINATOR or a partial list elsewhere). Embedded mode has one node: nothing to do.
 */
@Injectable()
export class CoordinatorForwardingMiddleware implements NestMiddleware {
  private readonly logger = new Logger('Forwarding');

  constructor(
    @Inject(COHORT_NODE) private readonly node: CohortNode,
    /** With CLUSTER_SECRET_FILE, each call proves the secret and carries the caller's principal. */
    @Optional() private readonly signer?: NodeRequestSigner,
    /** Presents the node's TLS certificate, so that a peer's TLS_CLIENT_AUTH=required lets the call in. */
    @Optional() private readonly http?: NodeHttpClient,
  ) {}

  use(request: Request, response: Response, next: NextFunction): void {
    if (this.node.mode !== 'redis' || request.headers[FORWARDED_HEADER] !== undefined) return next();
    const groupId = groupIdOf(request.originalUrl.split('?')[0]);
    if (groupId === undefined) return next();
    if (groupId === null) {
      if (request.method !== 'GET') return next();
      void this.listEverywhere(request, response).catch(next);
      return;
    }
    const leader = this.node.cluster.leaderOf(this.node.coordinator.partitionFor(groupId));
    if (leader === null || leader.nodeId === this.node.cluster.nodeId) return next();
    void this.forward(leader, request, response).catch(next);
  }

  private async forward(leader: NodeView, request: Request, response: Response): Promise<void> {
    let answer: NodeResponse;
    try {
      answer = await this.send(leader, request);
    } catch (error) {
      const message = `the coordinator of this group, node ${leader.nodeId} at ${leader.url}, did not answer: ${describe(error)}`;
      response.status(503).json({
        statusCode: 503,
        errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE,
        error: errorName(ErrorCode.COORDINATOR_NOT_AVAILABLE),
        message,
      });
      return;
    }
    response.status(answer.status);
    const type = answer.headers.get('content-type');
    if (type) response.setHeader('content-type', type);
    response.send(Buffer.from(await answer.arrayBuffer()));
  }

  /** Every live node's own list, merged; a node that does not answer is named in a header. */
  private async listEverywhere(request: Request, response: Response): Promise<void> {
    const nodes = this.node.cluster.nodes().filter((n) => n.alive);
    const answers = await Promise.all(
      nodes.map(async (n) => {
        try {
          const answer = await this.send(n, request);
          return { node: n, status: answer.status, body: (await answer.json()) as unknown };
        } catch (error) {
          this.logger.warn(`group list: node ${n.nodeId} at ${n.url} did not answer: ${describe(error)}`);
          return { node: n, status: 0, body: null };
        }
      }),
    );
    // A refusal (a bad `state` filter, say) is the same on every node: pass the first one on.
    const refused = answers.find((a) => a.status !== 0 && a.status !== 200);
    if (refused) {
      response.status(refused.status).json(refused.body);
      return;
    }
    const unreachable = answers.filter((a) => a.status === 0).map((a) => a.node.nodeId);
    if (unreachable.length === answers.length) {
      const message = 'no node of the cluster answered the group list';
      response.status(503).json({
        statusCode: 503,
        errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE,
        error: errorName(ErrorCode.COORDINATOR_NOT_AVAILABLE),
        message,
      });
      return;
    }
    const merged = new Map<string, unknown>();
    for (const answer of answers) {
      if (!Array.isArray(answer.body)) continue;
      // During a leadership move two nodes may both list a group for a moment: keep the first.
      for (const group of answer.body as { groupId: string }[])
        if (!merged.has(group.groupId)) merged.set(group.groupId, group);
    }
    if (unreachable.length > 0) response.setHeader(UNREACHABLE_HEADER, unreachable.join(','));
    response
      .status(200)
      .json([...merged.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, group]) => group));
  }

  private send(target: NodeView, request: Request): Promise<NodeResponse> {
    const body = signedBodyOf(request.method, request.body);
    const nodeId = this.node.cluster.nodeId;
    const proof = this.signer?.headersFor(nodeId, {
      method: request.method,
      url: request.originalUrl,
      body,
      principal: principalOfRequest(request),
    });
    const init = {
      method: request.method,
      headers: {
        [FORWARDED_HEADER]: String(nodeId),
        ...(body ? { 'content-type': 'application/json' } : {}),
        ...proof,
      },
      body: body || undefined,
      signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
    };
    const url = new URL(request.originalUrl, target.url);
    return this.http ? this.http.fetch(url, init) : fetch(url, init);
  }
}

/**
 * The group a `/v1/groups/...` path names; null for the list itself; undefined for any other path
 * (or a group id that is not valid percent-encoding, which the controllers reject).
 */
export function groupIdOf(path: string): string | null | undefined {
  const match = /^\/v1\/groups(?:\/([^/]+)(?:\/.*)?)?\/?$/.exec(path);
  if (!match) return undefined;
  if (match[1] === undefined) return null;
  try {
    return groupIdOfPathSegment(match[1]);
  } catch {
    return undefined;
  }
}

function describe(error: unknown): string {
  return error instanceof Error
    ? error.cause instanceof Error
      ? `${error.message} (${error.cause.message})`
      : error.message
    : String(error);
}
