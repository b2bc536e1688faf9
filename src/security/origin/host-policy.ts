import { Injectable } from '@nestjs/common';
import { CohortConfig } from '../../config/cohort-config';
import { NodeAddress } from '../../node/node-address';
import { hostNameOf, isIpLiteral } from '../../common/hosts';

/**
 * DNS rebinding: a page at `http://attacker.example:<port>` whose name the attacker then resolves to
 * 127.0.0.1 reaches a loopback-only node from the victim's browser, as the same origin (so no CORS
 * check and, on a GET, no `Origin` header), with `Host: attacker.example:<port>`. While protected mode
 * is what guards the node (no authentication), only names that are this node's own are answered, as
 * Redis and Jupyter do: an IP literal (no DNS involved), `localhost`, the advertised URL's host and
 * ALLOWED_HOSTS. With authentication on, a rebound page holds no credential and the check is off.
 * A request without Host (HTTP/1.0 from a script) is not a browser's and passes.
 */
@Injectable()
export class HostPolicy {
  private readonly configured: ReadonlySet<string>;
  private readonly enforced: boolean;

  constructor(
    config: CohortConfig,
    private readonly address: NodeAddress,
  ) {
    this.configured = new Set(config.security.allowedHosts);
    this.enforced = config.security.protectedMode && !config.security.authenticationEnabled;
  }

  /** Null when the Host header may be answered, else the refusal's message. */
  refusal(host: string | string[] | undefined): string | null {
    if (!this.enforced || host === undefined) return null;
    const name = typeof host === 'string' ? hostNameOf(host) : null;
    if (name !== null && this.allows(name)) return null;
    return (
      `Host ${JSON.stringify(String(host)).slice(0, 300)} is not a name of this node: in protected mode only an IP address, localhost, ` +
      `${this.advertisedHost()} (the advertised host) and the names in ALLOWED_HOSTS are answered, so that a web page cannot rebind its own name to this node. ` +
      'Add the name to ALLOWED_HOSTS (comma-separated), or connect by IP address.'
    );
  }

  private allows(name: string): boolean {
    return isIpLiteral(name) || name === 'localhost' || name === this.advertisedHost() || this.configured.has(name);
  }

  private advertisedHost(): string {
    return new URL(this.address.url()).hostname;
  }
}
