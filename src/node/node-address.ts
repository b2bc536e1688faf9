import { Injectable } from '@nestjs/common';
import { HttpAdapterHost } from '@nestjs/core';
import type { AddressInfo } from 'node:net';
import { CohortConfig } from '../config/cohort-config';

/**
 * This node's URL as FindCoordinator and `/v1/cluster` give it: ADVERTISED_URL when set, otherwise
 * `http(s)://<host>:<port>` of the bound listener (so PORT=0 advertises the port actually chosen). A
 * wildcard host is not an address a client can use, so loopback stands in for it.
 */
@Injectable()
export class NodeAddress {
  constructor(
    private readonly config: CohortConfig,
    private readonly adapterHost: HttpAdapterHost,
  ) {}

  url(): string {
    if (this.config.advertisedUrl) return this.config.advertisedUrl;
    const bound = this.adapterHost.httpAdapter?.getHttpServer()?.address() as AddressInfo | string | null | undefined;
    const port = typeof bound === 'object' && bound ? bound.port : this.config.port;
    const scheme = this.config.security.tls ? 'https' : 'http';
    return `${scheme}://${formatHost(this.config.host)}:${port}`;
  }
}

function formatHost(host: string): string {
  if (host === '0.0.0.0') return '127.0.0.1';
  if (host === '::' || host === '::0') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
