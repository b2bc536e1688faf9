import { CohortError } from '../errors/cohort-error';
import type { ResolvedRetry } from '../runtime/backoff';
import type { Timers } from '../runtime/timers';
import { NodeConnection } from './node-connection';
import type { AuthProvider, SocketFactory } from './socket-like';

/** `http://h:1/` and `http://h:1` are one node. */
export function normalizeUrl(url: string): string {
  return url.replace(/\/+$/, '');
}

/**
 * One NodeConnection per node URL for a whole client, so members of one client share their sockets
 * (and the server binds each member to the one it last spoke on). Which node to ask is ClusterMetadata's
 * business; this only makes, finds and closes connections.
 */
export class ConnectionPool {
  private readonly connections = new Map<string, NodeConnection>();
  private closed = false;

  constructor(
    private readonly factory: SocketFactory,
    private readonly auth: AuthProvider,
    private readonly timers: Timers,
    private readonly retry: ResolvedRetry,
  ) {}

  /** The connection to `url`, opened on first use (and again after it was closed). */
  get(url: string): NodeConnection {
    if (this.closed) throw CohortError.of('NETWORK_EXCEPTION', 'the client is closed');
    const key = normalizeUrl(url);
    let connection = this.connections.get(key);
    if (!connection || connection.isClosed) {
      connection = new NodeConnection(key, this.factory, this.auth, this.timers, this.retry);
      this.connections.set(key, connection);
    }
    return connection;
  }

  /** The open connection to `url`, if there is one (without opening it). */
  peek(url: string): NodeConnection | undefined {
    const connection = this.connections.get(normalizeUrl(url));
    return connection && !connection.isClosed ? connection : undefined;
  }

  /**
   * Closes the idle connections to URLs not in `keep` (nodes that left the cluster, a bootstrap URL
   * once the nodes are known): no socket stays open, reconnecting for ever, to a node nobody needs.
   */
  prune(keep: ReadonlySet<string>): void {
    for (const [url, connection] of this.connections) {
      if (keep.has(url) || !connection.isIdle) continue;
      connection.close();
      this.connections.delete(url);
    }
  }

  /** Every open connection, e.g. to hear `visibilitychange` or close them. */
  all(): NodeConnection[] {
    return [...this.connections.values()];
  }

  close(): void {
    this.closed = true;
    for (const connection of this.connections.values()) connection.close();
    this.connections.clear();
  }
}
