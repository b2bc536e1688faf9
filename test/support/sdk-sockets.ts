import type { Socket } from 'socket.io-client';
import type { SocketFactory, SocketLike } from '@cohort/client';
import { socketIoFactory } from '@cohort/client/transport/socket-like';

/**
 * Real socket.io-client sockets for SDK e2e tests, with the network faults a test needs: `freeze()`
 * swallows every request (the member looks hung to the coordinator), `drop(ms)` cuts the transport and
 * keeps it down for `ms` before socket.io reconnects.
 */
export class SdkSockets {
  readonly sockets: Socket[] = [];
  private frozen = false;

  readonly factory: SocketFactory = (url, options) => {
    const socket = socketIoFactory(url, options) as unknown as Socket;
    this.sockets.push(socket);
    const sockets = this; // eslint-disable-line @typescript-eslint/no-this-alias
    const wrapped: SocketLike = {
      get connected() {
        return socket.connected;
      },
      get active() {
        return socket.active;
      },
      on: (event, listener) => socket.on(event, listener),
      off: (event, listener) => socket.off(event, listener),
      emit: (event, payload, ack) => (sockets.frozen ? undefined : socket.emit(event, payload, ack)),
      connect: () => socket.connect(),
      disconnect: () => socket.disconnect(),
    };
    return wrapped;
  };

  freeze(): void {
    this.frozen = true;
  }

  thaw(): void {
    this.frozen = false;
  }

  /** Closes every socket's transport as a network failure would, and lets socket.io reconnect after `ms`. */
  async drop(ms: number): Promise<void> {
    const live = this.sockets.filter((s) => s.connected);
    for (const socket of live) {
      socket.io.reconnection(false);
      socket.io.engine.close();
    }
    await new Promise((resolve) => setTimeout(resolve, ms));
    for (const socket of live) {
      socket.io.reconnection(true);
      socket.connect();
    }
  }
}
