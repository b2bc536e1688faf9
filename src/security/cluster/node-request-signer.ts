import { Injectable } from '@nestjs/common';
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { CohortConfig } from '../../config/cohort-config';
import { loadClusterSecret } from './cluster-secret';

/** Set on a request one node sends another: it is answered where it lands, never forwarded again. */
export const FORWARDED_HEADER = 'x-cohort-forwarded-by';
/** On a node-to-node REST call: `v1 node=<id>,ts=<ms>,nonce=<hex>,mac=<hex>`. */
export const NODE_AUTH_HEADER = 'x-cohort-node-auth';
/** The caller's principal, which the landing node authorizes (Kafka's Envelope, KIP-590), trusted only with a valid NODE_AUTH_HEADER. */
export const FORWARDED_PRINCIPAL_HEADER = 'x-cohort-principal';
/** How far a signed request's time may be from the receiver's clock; also how long nonces are remembered. */
const FRESHNESS_MS = 30_000;

export interface SignedRequest {
  method: string;
  /** The path and query as sent (`originalUrl`). */
  url: string;
  /** The JSON body as sent, '' for none. */
  body: string;
  principal: string;
}

/**
 * Node-to-node REST calls (group forwarding and the group-list merge) prove CLUSTER_SECRET_FILE with an
 * HMAC-SHA256 over the request — method, URL, body digest, the forwarded principal, a timestamp and a
 * nonce — instead of a challenge first: a forwarded call then costs one round trip, as it did, and a
 * replay is refused by the timestamp window and the nonce memory. docs/security.md argues the choice.
 */
@Injectable()
export class NodeRequestSigner {
  private readonly secret: Buffer | null;
  private readonly seen = new Map<string, number>();

  /** Milliseconds since the epoch; replaceable in tests. */
  now: () => number = Date.now;

  constructor(config: CohortConfig) {
    this.secret = config.security.clusterSecretFile ? loadClusterSecret(config.security.clusterSecretFile) : null;
  }

  get enabled(): boolean {
    return this.secret !== null;
  }

  /** The headers that authenticate this call as coming from node `nodeId` (none without a secret). */
  headersFor(nodeId: number, request: SignedRequest): Record<string, string> {
    if (!this.secret) return {};
    const ts = String(this.now());
    const nonce = randomBytes(16).toString('hex');
    const mac = this.mac(String(nodeId), ts, nonce, request).toString('hex');
    return {
      [NODE_AUTH_HEADER]: `v1 node=${nodeId},ts=${ts},nonce=${nonce},mac=${mac}`,
      [FORWARDED_PRINCIPAL_HEADER]: request.principal,
    };
  }

  /** The sending node's id when `header` proves the secret for this request; otherwise the reason it does not. */
  verify(header: string | string[] | undefined, request: SignedRequest): { nodeId: number } | { refused: string } {
    if (!this.secret) return { refused: 'this node has no cluster secret' };
    if (typeof header !== 'string') return { refused: `no ${NODE_AUTH_HEADER} header` };
    const match = /^v1 node=(\d{1,10}),ts=(\d{1,16}),nonce=([0-9a-f]{32}),mac=([0-9a-f]{64})$/.exec(header);
    if (!match) return { refused: `malformed ${NODE_AUTH_HEADER} header` };
    const [, node, ts, nonce, mac] = match;
    const now = this.now();
    if (Math.abs(now - Number(ts)) > FRESHNESS_MS)
      return { refused: 'stale signature (clocks more than 30 s apart, or a replay)' };
    if (!timingSafeEqual(this.mac(node, ts, nonce, request), Buffer.from(mac, 'hex')))
      return { refused: 'the signature does not prove the cluster secret' };
    this.forgetOld(now);
    if (this.seen.has(nonce)) return { refused: 'replayed request' };
    this.seen.set(nonce, now);
    return { nodeId: Number(node) };
  }

  private mac(node: string, ts: string, nonce: string, request: SignedRequest): Buffer {
    const bodyDigest = createHash('sha256').update(request.body).digest('hex');
    const text = [
      'cohort-node-request-v1',
      node,
      ts,
      nonce,
      request.method.toUpperCase(),
      request.url,
      bodyDigest,
      request.principal,
    ].join('\n');
    return createHmac('sha256', this.secret!).update(text).digest();
  }

  private forgetOld(now: number): void {
    for (const [nonce, at] of this.seen) {
      if (now - at <= 2 * FRESHNESS_MS) break; // insertion order is time order
      this.seen.delete(nonce);
    }
  }
}

/** The body text a forwarding node signs and sends for a parsed JSON body ('' when there is none). */
export function signedBodyOf(method: string, body: unknown): string {
  const hasBody =
    method !== 'GET' && method !== 'HEAD' && typeof body === 'object' && body !== null && Object.keys(body).length > 0;
  return hasBody ? JSON.stringify(body) : '';
}
