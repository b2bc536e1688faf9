import { CohortAdmin } from './admin/cohort-admin';
import { resolveRetry, type ResolvedRetry, type RetryOptions } from './runtime/backoff';
import { realTimers, type Timers } from './runtime/timers';
import { CohortMember } from './member/cohort-member';
import type { MemberOptions } from './member/member-options';
import { ConnectionPool, normalizeUrl } from './transport/connection-pool';
import { socketIoFactory, type SocketFactory } from './transport/socket-like';

export interface CohortClientOptions {
  /** Any nodes of the cluster; FindCoordinator locates each group's coordinator from them. */
  urls: string[];
  clientId?: string;
  /** A bearer token, or a function asked again on every (re)connect (e.g. to refresh a JWT). */
  token?: string | (() => string | Promise<string>);
  retry?: RetryOptions;
  /** For tests and special transports: how sockets are made (default socket.io-client over WebSocket). */
  socketFactory?: SocketFactory;
  /** For tests: the clock, timers and randomness the members use. */
  timers?: Timers;
}

/**
 * The entry point of @cohort/client: owns one socket per node, shared by the members it creates,
 * and hands out the admin client. `close()` stops every member and closes the sockets.
 */
export class CohortClient {
  private readonly pool: ConnectionPool;
  private readonly members = new Set<CohortMember>();
  private readonly retry: ResolvedRetry;
  private readonly timers: Timers;
  private closed = false;

  constructor(private readonly options: CohortClientOptions) {
    if (
      !Array.isArray(options?.urls) ||
      options.urls.length === 0 ||
      options.urls.some((u) => typeof u !== 'string' || u.length === 0)
    ) {
      throw new RangeError('CohortClient needs `urls`: a non-empty array of node URLs');
    }
    this.retry = resolveRetry(options.retry);
    this.timers = options.timers ?? realTimers;
    const auth = async (): Promise<Record<string, unknown>> => {
      const token = typeof options.token === 'function' ? await options.token() : options.token;
      return {
        ...(options.clientId !== undefined ? { clientId: options.clientId } : {}),
        ...(token !== undefined ? { token } : {}),
      };
    };
    this.pool = new ConnectionPool(
      options.urls.map(normalizeUrl),
      options.socketFactory ?? socketIoFactory,
      auth,
      this.timers,
      this.retry,
    );
  }

  /** A new member of `options.groupId`; call `start()` on it to join. */
  member(options: MemberOptions): CohortMember {
    if (this.closed) throw new RangeError('the client is closed');
    const member = new CohortMember(options, {
      pool: this.pool,
      timers: this.timers,
      retry: this.retry,
      onStopped: (m) => this.members.delete(m),
    });
    this.members.add(member);
    return member;
  }

  /** The operator calls over REST (same URLs and token). */
  admin(): CohortAdmin {
    return new CohortAdmin({
      urls: this.options.urls,
      ...(this.options.token !== undefined ? { token: this.options.token } : {}),
    });
  }

  /** Stops every member (commit, revoke, leave) and closes the sockets. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.all([...this.members].map((m) => m.stop().catch(() => undefined)));
    this.pool.close();
  }
}
