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
 * (and the server binds each member to the one it last spoke on).
 */
export class ConnectionPool {
  private readonly connections = new Map<string, NodeConnection>();
  private bootstrapIndex = 0;
  private closed = false;

  constructor(
    private readonly bootstrapUrls: string[],
    private readonly factory: SocketFactory,
    private readonly auth: AuthProvider,
    private readonly timers: Timers,
    private readonly retry: ResolvedRetry,
  ) {
    if (bootstrapUrls.length === 0) throw new RangeError('CohortClient needs at least one URL in `urls`');
  }

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

  /**
   * A connection to some bootstrap node: one already connected if there is one, otherwise the next in
   * turn, so that one dead URL does not stop discovery (each failed call moves on to the next URL).
   */
  bootstrap(): NodeConnection {
    for (const url of this.bootstrapUrls) {
      const existing = this.connections.get(normalizeUrl(url));
      if (existing?.connected) return existing;
    }
    const url = this.bootstrapUrls[this.bootstrapIndex % this.bootstrapUrls.length];
    this.bootstrapIndex++;
    return this.get(url);
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
