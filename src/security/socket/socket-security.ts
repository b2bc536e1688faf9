import { Injectable, Logger, type OnModuleDestroy } from '@nestjs/common';
import type { Server, Socket } from 'socket.io';
import { ErrorCode, type ErrorName } from '@cohort/protocol';
import { CohortConfig } from '../../config/cohort-config';
import { CohortMetrics } from '../../metrics/cohort-metrics';
import { AuditLogger } from '../audit-logger';
import { AuthenticationFailed, AUTHENTICATION_FAILED_MESSAGE, type Credential } from '../authentication/credential';
import { Authenticator } from '../authentication/authenticator';
import { certificateCnOf } from '../authentication/certificate-cn';
import { OriginPolicy } from '../origin/origin-policy';
import { protectedModeRefusal } from '../protected-mode';
import { EngineHandshakes, type EngineSession } from './engine-handshakes';
import { EventRateLimiter } from './event-rate-limiter';

/** Kafka's `connection.failed.authentication.delay.ms` (KIP-306): a refused credential is answered after this, which slows guessing. */
const FAILED_AUTHENTICATION_DELAY_MS = 100;
/** Node timers take at most 2^31-1 ms; a later expiry is re-armed when that fires. */
const MAX_TIMER_MS = 2_147_483_647;

interface Session {
  socket: Socket;
  credential: Credential;
  expiry: NodeJS.Timeout | null;
}

/**
 * The socket.io handshake gate, registered before any other middleware (CohortIoAdapter), after
 * EngineHandshakes let the engine.io session in (Host, MAX_CONNECTIONS_PER_IP, MAX_CONNECTIONS): the
 * `Origin` policy, protected mode, then authentication of `auth.token` (or
 * the TLS client certificate). Each refusal is a `connect_error` whose `data` carries the Kafka
 * code; an authentication failure is also one audit line. An accepted socket carries its principal
 * in `socket.data.principal` and stays under watch: a JWT's socket is closed at `exp`, a static
 * token's when AUTH_TOKENS_FILE no longer lists it, and each connection's events are limited to
 * RATE_LIMIT_SOCKET_EVENTS_PER_SECOND (over it, the ack says 89 and the socket stays).
 *
 * Every (re)connection runs this gate: connection-state recovery would skip middlewares, which
 * CohortIoAdapter prevents.
 */
@Injectable()
export class SocketSecurity implements OnModuleDestroy {
  private readonly logger = new Logger('SocketSecurity');
  private readonly sessions = new Map<string, Session>();
  private readonly stopWatching: () => void;

  constructor(
    private readonly config: CohortConfig,
    private readonly authenticator: Authenticator,
    private readonly origins: OriginPolicy,
    private readonly handshakes: EngineHandshakes,
    private readonly audit: AuditLogger,
    private readonly metrics: CohortMetrics,
  ) {
    this.stopWatching = authenticator.onCredentialsChanged(() => this.recheckSessions());
  }

  attach(server: Server): void {
    // Handshakes are counted and checked below socket.io (EngineHandshakes, engine.io's allowRequest);
    // each session then has SOCKET_AUTH_TIMEOUT_MS to pass this gate.
    server.engine.on('connection', (session: EngineSession) => this.handshakes.opened(session));
    server.use(
      (socket, next) =>
        void this.admit(socket).then(
          () => next(),
          (error: Error) => {
            // A refusal carries its Kafka code; anything else is a fault of ours: logged, and the connection refused (fail closed).
            if ((error as { data?: unknown }).data === undefined)
              this.logger.error(`handshake check failed: ${error.stack ?? error.message}`);
            next(
              (error as { data?: unknown }).data !== undefined
                ? error
                : refusal('SASL_AUTHENTICATION_FAILED', AUTHENTICATION_FAILED_MESSAGE),
            );
            // Then the underlying connection goes too (once the connect_error is flushed), as Kafka closes a
            // connection that failed authentication: a client that ignores the refusal holds nothing, so
            // MAX_CONNECTIONS_PER_IP bounds what one address can hold open.
            setImmediate(() => socket.conn.close());
          },
        ),
    );
  }

  onModuleDestroy(): void {
    this.stopWatching();
    for (const session of this.sessions.values()) if (session.expiry) clearTimeout(session.expiry);
    this.sessions.clear();
  }

  private async admit(socket: Socket): Promise<void> {
    const { address, headers } = socket.handshake;
    const security = this.config.security;
    if (!this.origins.allows(headers.origin)) {
      throw refusal(
        'SASL_AUTHENTICATION_FAILED',
        `Origin ${String(headers.origin)} is not allowed to connect (allowed: this node's own origin and CORS_ORIGINS)`,
      );
    }
    const protectedMode = protectedModeRefusal(security, address);
    if (protectedMode) throw refusal('SASL_AUTHENTICATION_FAILED', protectedMode);
    const credential = await this.authenticate(socket);
    (socket.data as { principal?: string }).principal = credential.principal;
    this.handshakes.authenticated(socket.conn);
    this.watch(socket, credential);
    if (security.socketEventsPerSecond > 0) this.limitEvents(socket, security.socketEventsPerSecond);
  }

  private async authenticate(socket: Socket): Promise<Credential> {
    const auth: unknown = socket.handshake.auth;
    const token = typeof auth === 'object' && auth !== null ? (auth as { token?: unknown }).token : undefined;
    try {
      return await this.authenticator.authenticate({ token, certificateCn: certificateCnOf(socket.request.socket) });
    } catch (error) {
      if (!(error instanceof AuthenticationFailed)) throw error;
      this.audit.denied({
        principal: 'User:ANONYMOUS',
        host: socket.handshake.address,
        operation: 'AUTHENTICATE',
        resourceType: 'CLUSTER',
        resourceName: 'kafka-cluster',
        request: 'socket.io handshake',
        detail: `${error.credentialKind}: ${error.reason}`,
      });
      await new Promise((resolve) => setTimeout(resolve, FAILED_AUTHENTICATION_DELAY_MS));
      throw refusal('SASL_AUTHENTICATION_FAILED', AUTHENTICATION_FAILED_MESSAGE);
    }
  }

  private watch(socket: Socket, credential: Credential): void {
    if (credential.kind !== 'static-token' && credential.kind !== 'jwt') return;
    const session: Session = { socket, credential, expiry: null };
    if (credential.kind === 'jwt') this.armExpiry(session, credential.expiresAtMs);
    this.sessions.set(socket.id, session);
    socket.once('disconnect', () => {
      if (session.expiry) clearTimeout(session.expiry);
      this.sessions.delete(socket.id);
    });
  }

  private armExpiry(session: Session, expiresAtMs: number): void {
    const delay = expiresAtMs - Date.now();
    if (delay <= 0) return this.close(session, 'its JWT expired');
    session.expiry = setTimeout(
      () => (delay > MAX_TIMER_MS ? this.armExpiry(session, expiresAtMs) : this.close(session, 'its JWT expired')),
      Math.min(delay, MAX_TIMER_MS),
    );
    session.expiry.unref();
  }

  /** After AUTH_TOKENS_FILE changed: close every socket whose static token is no longer listed. */
  private recheckSessions(): void {
    for (const session of this.sessions.values()) {
      if (!this.authenticator.stillValid(session.credential)) this.close(session, 'its token was revoked');
    }
  }

  private close(session: Session, why: string): void {
    this.logger.log(`closing socket ${session.socket.id} of ${session.credential.principal}: ${why}`);
    this.sessions.delete(session.socket.id);
    session.socket.disconnect(true);
  }

  private limitEvents(socket: Socket, perSecond: number): void {
    const limiter = new EventRateLimiter(perSecond);
    socket.use((packet, next) => {
      if (limiter.tryTake()) return next();
      this.metrics.edge.rateLimited('socket_events');
      const ack: unknown = packet[packet.length - 1];
      if (typeof ack === 'function') {
        ack({
          errorCode: ErrorCode.THROTTLING_QUOTA_EXCEEDED,
          errorName: 'THROTTLING_QUOTA_EXCEEDED',
          errorMessage: `over ${perSecond} events a second on this connection (RATE_LIMIT_SOCKET_EVENTS_PER_SECOND); retry later`,
        });
      }
    });
  }
}

/** The error socket.io turns into `connect_error` with `message` and `data`. */
function refusal(name: ErrorName, message: string): Error {
  return Object.assign(new Error(message), { data: { errorCode: ErrorCode[name], errorName: name } });
}
