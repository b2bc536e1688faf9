import { Injectable } from '@nestjs/common';
import { CohortConfig } from '../../config/cohort-config';
import { NodeAddress } from '../../node/node-address';
import { normalizeOrigin } from '../../common/origins';

/**
 * Which `Origin` headers may drive this node: CORS_ORIGINS plus the node's own origin (its dashboard):
 * the advertised URL's origin and, for the bound port, the loopback names a developer opens it by
 * (localhost, 127.0.0.1, [::1]). A request without `Origin` (Node, the CLI, another server) is not a
 * browser's cross-site request and is unaffected. The own origin is not derived from the request's
 * Host header: a page on another site that rebinds its DNS name to 127.0.0.1 sends a matching Host,
 * which is exactly the attack this guards against.
 */
@Injectable()
export class OriginPolicy {
  private readonly configured: ReadonlySet<string>;

  constructor(
    config: CohortConfig,
    private readonly address: NodeAddress,
  ) {
    this.configured = new Set(config.security.corsOrigins);
  }

  /** True when there is no Origin header or it is allowed. */
  allows(origin: string | string[] | undefined): boolean {
    if (origin === undefined) return true;
    if (typeof origin !== 'string') return false;
    const normalized = normalizeOrigin(origin);
    if (normalized === null) return false;
    return this.configured.has(normalized) || this.ownOrigins().has(normalized);
  }

  private ownOrigins(): Set<string> {
    const own = new URL(this.address.url());
    const origins = new Set([own.origin]);
    const port = own.port ? `:${own.port}` : '';
    for (const host of ['localhost', '127.0.0.1', '[::1]']) origins.add(`${own.protocol}//${host}${port}`);
    return origins;
  }
}
