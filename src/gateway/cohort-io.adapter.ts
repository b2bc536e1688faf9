import type { INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { CohortConfig } from '../config/cohort-config';
import { withAuthenticatedRecovery } from '../security/socket/recovery-options';
import { EngineHandshakes } from '../security/socket/engine-handshakes';
import { SocketSecurity } from '../security/socket/socket-security';
import type { EngineConnection } from './socket-io-internals';
import { SocketInputLimits } from './input/socket-input-limits';
import { SocketOutputLimits } from './output/socket-output-limits';

/**
 * socket.io server options that come from the configuration, which a @WebSocketGateway decorator
 * cannot read. A message over MAX_PAYLOAD_BYTES makes socket.io close that one connection (its
 * `maxHttpBufferSize` rule); the process and every other connection carry on. Output that a connection
 * does not read is bounded the other way round (SocketOutputLimits), and what all connections hold of
 * messages not yet whole by SocketInputLimits.
 */
export class CohortIoAdapter extends IoAdapter {
  private readonly config: CohortConfig;
  private readonly security: SocketSecurity;
  private readonly handshakes: EngineHandshakes;
  private readonly outputLimits: SocketOutputLimits;
  private readonly inputLimits: SocketInputLimits;

  constructor(app: INestApplicationContext) {
    super(app);
    this.config = app.get(CohortConfig);
    this.security = app.get(SocketSecurity);
    this.handshakes = app.get(EngineHandshakes);
    this.outputLimits = app.get(SocketOutputLimits);
    this.inputLimits = app.get(SocketInputLimits);
  }

  // Typed through the base class: @nestjs/platform-socket.io bundles its own copy of socket.io.
  override createIOServer(
    ...[port, options]: Parameters<IoAdapter['createIOServer']>
  ): ReturnType<IoAdapter['createIOServer']> {
    // Recovery (if a gateway turns it on) must not skip authentication: withAuthenticatedRecovery.
    const withLimit = withAuthenticatedRecovery({
      ...options,
      maxHttpBufferSize: this.config.maxPayloadBytes,
      // Long-polling is not offered (docs/protocol.md): a session is one websocket, one TCP connection.
      transports: ['websocket'],
      allowRequest: this.handshakes.allowRequest,
    } as NonNullable<typeof options>);
    const server = super.createIOServer(port, withLimit);
    // First of the handshake middlewares: origin, protected mode, connection cap, authentication.
    this.security.attach(server as unknown as import('socket.io').Server);
    // Every engine.io connection's unsent output, and what it holds of messages not yet whole, are held
    // to their limits from its first packet on.
    (server as unknown as import('socket.io').Server).engine.on('connection', (connection: EngineConnection) => {
      this.outputLimits.watch(connection);
      this.inputLimits.watch(connection);
    });
    return server;
  }

  /**
   * The gateway subscribes to no message (SocketDispatch binds the protocol's events itself), so there is
   * nothing to bind: Nest's adapter would still make each connection a disconnect stream of its own (an
   * rxjs pipe, its subscribers and closures), kept for the connection's life and never used.
   */
  override bindMessageHandlers(...args: Parameters<IoAdapter['bindMessageHandlers']>): void {
    const [, handlers] = args;
    if (handlers.length > 0) super.bindMessageHandlers(...args);
  }
}
