import { io } from 'socket.io-client';

/**
 * The part of a socket.io-client Socket the SDK uses, so tests can hand the member a fake socket and
 * the state machine runs without a server.
 */
export interface SocketLike {
  readonly connected: boolean;
  /** socket.io's `active`: false after a server-side disconnect or a refused handshake (no auto-reconnect). */
  readonly active?: boolean;
  // socket.io-client's listeners are typed per event; `any` keeps them assignable to this one shape.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  on(event: string, listener: (...args: any[]) => void): unknown;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  off(event: string, listener: (...args: any[]) => void): unknown;
  emit(event: string, payload: unknown, ack: (response: unknown) => void): unknown;
  connect(): unknown;
  disconnect(): unknown;
}

/** What the handshake carries (`auth: { clientId?, token? }`, docs/protocol.md), asked again on every reconnect. */
export type AuthProvider = () => Promise<Record<string, unknown>>;

export interface SocketFactoryOptions {
  auth: AuthProvider;
  /** Call on any sign of network activity the socket hears (engine.io pings): a task a throttled tab still gets. */
  onActivity?: () => void;
}

export type SocketFactory = (url: string, options: SocketFactoryOptions) => SocketLike;

/**
 * socket.io-client over WebSocket only. socket.io reconnects by itself after a transport failure
 * (0.5–1.5 s at first, at most 5 s), which keeps a blip well inside the server's disconnect grace;
 * `auth` as a function is called on every (re)connect, so a token function gets its fresh token.
 */
export const socketIoFactory: SocketFactory = (url, options) => {
  const socket = io(url, {
    transports: ['websocket'],
    forceNew: true,
    reconnectionDelay: 500,
    reconnectionDelayMax: 5000,
    auth: (callback: (auth: Record<string, unknown>) => void) => {
      options.auth().then(callback, () => callback({}));
    },
  });
  // The server's engine.io ping arrives as a network task, which hidden tabs still run promptly.
  if (options.onActivity) socket.io.on('ping', options.onActivity);
  return socket;
};
