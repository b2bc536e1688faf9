import type { INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { CohortConfig } from '../config/cohort-config';
import { withAuthenticatedRecovery } from '../security/socket/recovery-options';
import { SocketSecurity } from '../security/socket/socket-security';

/**
 * socket.io server options that come from the configuration, which a @WebSocketGateway decorator
 * cannot read. A message over MAX_PAYLOAD_BYTES makes socket.io close that one connection (its
 * `maxHttpBufferSize` rule); the process and every other connection carry on.
 */
export class CohortIoAdapter extends IoAdapter {
  private readonly config: CohortConfig;
  private readonly security: SocketSecurity;

  constructor(app: INestApplicationContext) {
    super(app);
    this.config = app.get(CohortConfig);
    this.security = app.get(SocketSecurity);
  }

  // Typed through the base class: @nestjs/platform-socket.io bundles its own copy of socket.io.
  override createIOServer(
    ...[port, options]: Parameters<IoAdapter['createIOServer']>
  ): ReturnType<IoAdapter['createIOServer']> {
    // Recovery (if a gateway turns it on) must not skip authentication: withAuthenticatedRecovery.
    const withLimit = withAuthenticatedRecovery({
      ...options,
      maxHttpBufferSize: this.config.maxPayloadBytes,
      allowRequest: this.security.allowRequest,
    } as NonNullable<typeof options>);
    const server = super.createIOServer(port, withLimit);
    // First of the handshake middlewares: origin, protected mode, connection cap, authentication.
    this.security.attach(server as unknown as import('socket.io').Server);
    return server;
  }
}
