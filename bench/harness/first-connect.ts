import type { Socket } from 'socket.io-client';

/**
 * Resolves when `socket` first connects; on a failed first attempt, closes it and rejects. Both
 * listeners go once it has settled: a `connect_error` listener left behind would also catch a failed
 * *reconnection* later (a node paused past the ping timeout, say) and close the socket for good, so
 * the member would never come back while the measure waits for it.
 */
export function firstConnect(socket: Socket): Promise<void> {
  return new Promise((resolve, reject) => {
    const connected = () => {
      socket.off('connect_error', failed);
      resolve();
    };
    const failed = (error: Error) => {
      socket.off('connect', connected);
      socket.disconnect();
      reject(error);
    };
    socket.once('connect', connected);
    socket.once('connect_error', failed);
  });
}
