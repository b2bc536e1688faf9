import { io, type Socket } from 'socket.io-client';

/** A socket.io client as docs/protocol.md connects: websocket transport, optional clientId in `auth`. */
export async function connect(url: string, auth: Record<string, unknown> = {}): Promise<Socket> {
  const socket = io(url, { transports: ['websocket'], auth, reconnection: false, forceNew: true });
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve());
    socket.once('connect_error', (error) => reject(error));
  });
  return socket;
}

/** Emits one request and resolves with its acknowledgement (bounded: a missing ack fails the test). */
export function request<T = Record<string, unknown>>(socket: Socket, event: string, payload?: unknown, timeoutMs = 5000): Promise<T> {
  const timed = socket.timeout(timeoutMs);
  return (payload === undefined ? timed.emitWithAck(event) : timed.emitWithAck(event, payload)) as Promise<T>;
}

/** Resolves with the next `event` pushed to this socket. */
export function nextPush<T = Record<string, unknown>>(socket: Socket, event: string, timeoutMs = 5000): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    socket.once(event, (payload: T) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
}
