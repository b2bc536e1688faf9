import type { SocketLike } from '@cohort/client';

/**
 * `socket` with its requests sent through `emit` and everything else passed through as it is: how a
 * test wraps a real socket.io-client socket to watch or hold back what the SDK sends (request-trail.ts,
 * sdk-sockets.ts). `connected` and `active` are read from the socket each time, as they change.
 */
export function passThroughSocket(socket: SocketLike, emit: SocketLike['emit']): SocketLike {
  return {
    get connected() {
      return socket.connected;
    },
    get active() {
      return socket.active;
    },
    on: (event, listener) => socket.on(event, listener),
    off: (event, listener) => socket.off(event, listener),
    emit,
    connect: () => socket.connect(),
    disconnect: () => socket.disconnect(),
  };
}
