import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import { CohortConfig } from '../../config/cohort-config';
import { CohortMetrics } from '../../metrics/cohort-metrics';
import { HostPolicy } from '../origin/host-policy';
import { ConnectionsPerAddress } from './connections-per-address';

/** What this class uses of engine.io's handshake request: the raw connection it came on. */
export interface HandshakeRequest {
  headers: Record<string, string | string[] | undefined>;
  socket: { remoteAddress?: string; once(event: 'close', listener: () => void): unknown };
}
/** What this class uses of an engine.io connection (a session). */
export interface EngineSession {
  id: string;
  remoteAddress: string;
  once(event: 'close', listener: () => void): unknown;
  close(): void;
}

/**
 * The socket edge below socket.io: engine.io handshakes, checked before engine.io opens a session and
 * so before any credential is looked at. A handshake is refused (HTTP 403, or 400 on a websocket
 * upgrade, with the message as body) when its Host is foreign in protected mode (HostPolicy), when its
 * address already holds MAX_CONNECTIONS_PER_IP connections, authenticated or not, as Kafka's
 * `max.connections.per.ip` is counted when a connection is accepted, or when the node already holds
 * MAX_CONNECTIONS from all addresses (Kafka's `max.connections`: many addresses, as an IPv6 prefix
 * gives, must not add up to more than the node's memory and file descriptors hold); each refusal is counted in
 * `cohort_socket_handshakes_refused_total{reason}`. A session that has not authenticated (socket.io's
 * CONNECT, admitted by SocketSecurity) within SOCKET_AUTH_TIMEOUT_MS is closed and counted in
 * `cohort_socket_auth_timeouts_total`: an idle handshake holds nothing for long.
 *
 * Counted per TCP connection from the moment a handshake is allowed until that connection closes:
 * the node serves only the websocket transport, so a session is exactly one TCP connection, and a
 * handshake that fails after being allowed releases its slot when engine.io destroys the connection.
 */
@Injectable()
export class EngineHandshakes implements OnModuleDestroy {
  private readonly logger = new Logger('SocketHandshakes');
  private readonly connections = new ConnectionsPerAddress();
  private readonly deadlines = new Map<EngineSession, NodeJS.Timeout>();
  private readonly maxPerAddress: number;
  private readonly maxConnections: number;
  private readonly authTimeoutMs: number;

  constructor(
    config: CohortConfig,
    private readonly hosts: HostPolicy,
    private readonly metrics: CohortMetrics,
  ) {
    this.maxPerAddress = config.security.maxConnectionsPerIp;
    this.maxConnections = config.security.maxConnections;
    this.authTimeoutMs = config.security.socketAuthTimeoutMs;
  }

  /** engine.io's `allowRequest`: run on each handshake (not on the packets of an open session). */
  readonly allowRequest = (
    request: HandshakeRequest,
    callback: (message: string | null, allowed: boolean) => void,
  ): void => {
    const foreignHost = this.hosts.refusal(request.headers.host);
    if (foreignHost) {
      this.metrics.edge.socketHandshakeRefused('host');
      return callback(foreignHost, false);
    }
    const address = request.socket.remoteAddress ?? '';
    if (this.maxPerAddress > 0 && this.connections.count(address) >= this.maxPerAddress) {
      this.metrics.edge.socketHandshakeRefused('max_connections_per_ip');
      return callback(
        `too many connections from ${address}: at most ${this.maxPerAddress} (MAX_CONNECTIONS_PER_IP)`,
        false,
      );
    }
    if (this.maxConnections > 0 && this.connections.total >= this.maxConnections) {
      this.metrics.edge.socketHandshakeRefused('max_connections');
      return callback(`too many connections on this node: at most ${this.maxConnections} (MAX_CONNECTIONS)`, false);
    }
    this.connections.opened(address);
    request.socket.once('close', () => this.connections.closed(address));
    callback(null, true);
  };

  /** An engine.io session opened: it has SOCKET_AUTH_TIMEOUT_MS to authenticate. */
  opened(session: EngineSession): void {
    if (this.authTimeoutMs <= 0) return;
    const deadline = setTimeout(() => {
      this.deadlines.delete(session);
      this.metrics.edge.socketAuthTimedOut();
      this.logger.debug(
        `closed session ${session.id} from ${session.remoteAddress}: not authenticated within ${this.authTimeoutMs} ms (SOCKET_AUTH_TIMEOUT_MS)`,
      );
      session.close();
    }, this.authTimeoutMs);
    deadline.unref();
    this.deadlines.set(session, deadline);
    session.once('close', () => this.authenticated(session));
  }

  /** The session's socket.io CONNECT was admitted (or the session closed): its deadline is off. */
  authenticated(session: object): void {
    const deadline = this.deadlines.get(session as EngineSession);
    if (deadline === undefined) return;
    clearTimeout(deadline);
    this.deadlines.delete(session as EngineSession);
  }

  onModuleDestroy(): void {
    for (const deadline of this.deadlines.values()) clearTimeout(deadline);
    this.deadlines.clear();
  }
}
