import type { INestApplicationContext } from '@nestjs/common';
import { IoAdapter } from '@nestjs/platform-socket.io';
import { CohortConfig } from '../config/cohort-config';

/**
 * socket.io server options that come from the configuration, which a @WebSocketGateway decorator
 * cannot read. A message over MAX_PAYLOAD_BYTES makes socket.io close that one connection (its
 * `maxHttpBufferSize` rule); the process and every other connection carry on.
 */
export class CohortIoAdapter extends IoAdapter {
  private readonly config: CohortConfig;

  constructor(app: INestApplicationContext) {
    super(app);
    this.config = app.get(CohortConfig);
  }

  // Typed through the base class: @nestjs/platform-socket.io bundles its own copy of socket.io.
  override createIOServer(...[port, options]: Parameters<IoAdapter['createIOServer']>): ReturnType<IoAdapter['createIOServer']> {
    const withLimit = { ...options, maxHttpBufferSize: this.config.maxPayloadBytes } as NonNullable<typeof options>;
    return super.createIOServer(port, withLimit);
  }
}
