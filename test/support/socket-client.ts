import type { RequestEventName, RequestResponseMap, ServerToClientEvents } from '@cohort/protocol';
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

/**
 * Emits one request and resolves with its acknowledgement (bounded: a missing ack fails the test). A
 * request event with a well-formed payload is typed by the protocol's event maps (`RequestResponseMap`,
 * the map behind `ClientToServerEvents`); anything else (unknown events, hostile payloads) goes out as is.
 */
export function request<E extends RequestEventName>(
  socket: Socket,
  event: E,
  payload: RequestResponseMap[E][0],
  timeoutMs?: number,
): Promise<RequestResponseMap[E][1]>;
export function request<T = Record<string, unknown>>(
  socket: Socket,
  event: string,
  payload?: unknown,
  timeoutMs?: number,
): Promise<T>;
export function request(socket: Socket, event: string, payload?: unknown, timeoutMs = 5000): Promise<unknown> {
  const timed = socket.timeout(timeoutMs);
  return payload === undefined ? timed.emitWithAck(event) : timed.emitWithAck(event, payload);
}

/** Resolves with the next `event` pushed to this socket (typed by `ServerToClientEvents` for the protocol's pushes). */
export function nextPush<E extends keyof ServerToClientEvents>(
  socket: Socket,
  event: E,
  timeoutMs?: number,
): Promise<Parameters<ServerToClientEvents[E]>[0]>;
export function nextPush<T = Record<string, unknown>>(socket: Socket, event: string, timeoutMs?: number): Promise<T>;
export function nextPush(socket: Socket, event: string, timeoutMs = 5000): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    socket.once(event, (payload: unknown) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
}

/**
 * Resolves with the first `event` pushed to any of `sockets`, and stops listening on the others (no
 * timer or listener outlives the wait, as one `nextPush` per socket raced would leave the losers').
 */
export function firstPush<E extends keyof ServerToClientEvents>(
  sockets: Socket[],
  event: E,
  timeoutMs = 5000,
): Promise<Parameters<ServerToClientEvents[E]>[0]> {
  return new Promise((resolve, reject) => {
    const listener = (payload: Parameters<ServerToClientEvents[E]>[0]): void => {
      done();
      resolve(payload);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no ${event} on any of ${sockets.length} sockets within ${timeoutMs} ms`));
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      for (const socket of sockets) socket.off(event, listener as never);
    };
    for (const socket of sockets) socket.on(event, listener as never);
  });
}
