import { readFileSync } from 'node:fs';
import { Injectable, type OnApplicationShutdown } from '@nestjs/common';
import { Agent, fetch, type RequestInit, type Response } from 'undici';
import { CohortConfig } from '../../config/cohort-config';
import type { SecurityConfig } from '../../config/security-config';

/**
 * How a node calls another node's REST API (forwarded group requests, the merged group list). With
 * TLS_CERT_FILE / TLS_KEY_FILE the node presents its own certificate as a TLS client, and trusts the
 * servers TLS_CA_FILE signed, so node-to-node calls pass a peer's TLS_CLIENT_AUTH=required as any
 * client with a certificate does (Node's global `fetch` takes no client certificate). The cluster
 * secret's signature still says which node calls and for which principal; the certificate only gets
 * the call through the TLS handshake. Without TLS it is plain HTTP over undici's default agent.
 */
@Injectable()
export class NodeHttpClient implements OnApplicationShutdown {
  private readonly agent: Agent | undefined;

  constructor(config: CohortConfig) {
    this.agent = agentOf(config.security);
  }

  fetch(url: URL, init: RequestInit): Promise<Response> {
    return fetch(url, this.agent ? { ...init, dispatcher: this.agent } : init);
  }

  async onApplicationShutdown(): Promise<void> {
    await this.agent?.destroy();
  }
}

/** The TLS agent of a node with a certificate, or undefined for plain HTTP. */
export function agentOf(security: SecurityConfig): Agent | undefined {
  if (!security.tls) return undefined;
  return new Agent({
    connect: {
      cert: readFileSync(security.tls.certFile),
      key: readFileSync(security.tls.keyFile),
      ...(security.tls.caFile ? { ca: readFileSync(security.tls.caFile) } : {}),
    },
  });
}
