import type { Socket } from 'socket.io';

/**
 * Everything the gateway reads or changes inside socket.io 4.8, engine.io 6.6 and ws 8 beyond their
 * public API, in one place. socket-io-internals.spec.ts pins each behaviour relied on here against the
 * real libraries, so an upgrade that changes one fails there, not in production.
 *
 * socket.io (`Socket`, `Client`):
 * - The client's `ondata` is the listener of its engine.io connection's `data` event, and feeds its parser.
 * - `client.decoder.reconstructor` is set while a binary packet waits for its attachments.
 * - `client.nsps` maps a namespace to its socket; `socket.fns` are the socket's middlewares in order, run
 *   as `Socket.run` does, and `socket._onerror` is what a middleware's error reaches.
 * - `socket.ack(id)` makes the acknowledgement function of each event packet with an ack id.
 * - `socket._anyListeners` holds `onAny` listeners.
 * - An event without an ack on the main namespace is encoded `2` and the JSON array of its name and data.
 *
 * engine.io (`Socket`) and ws (`WebSocket`):
 * - `write(data, { wsPreEncodedFrame })` sends a frame computed beforehand as it is, on the websocket transport.
 * - Every packet is announced by `packetCreate` before it joins `writeBuffer`; `flush` hands the whole
 *   `writeBuffer` to the transport, and what the TCP socket has not taken is the ws socket's `bufferedAmount`.
 * - A connection whose `readyState` is `closing` takes no more packets (engine.io's `sendPacket` drops them),
 *   and socket.io does not even encode a packet for it (its `Client._packet` checks `open`).
 * - ws's `terminate()` destroys the TCP socket with what it buffered and reports the close later; engine.io's
 *   `close(true)` then discards the transport (`close()` alone would wait for `writeBuffer` to drain).
 * - ws reads its TCP socket (`_socket`) with a `data` listener of its own, registered before any other,
 *   that hands each chunk to its `Receiver` (`_receiver`) at once. The receiver keeps the bytes of a frame
 *   until its whole payload is there (`_bufferedBytes`), the frames of a fragmented message until its last
 *   (`_messageLength`), and, while it is busy, the chunks not yet taken (its Writable's `writableLength`).
 */

/** An engine.io connection, as the gateway uses it. */
export interface EngineConnection {
  readonly id: string;
  readonly remoteAddress: string;
  readyState: string;
  readonly transport: { readonly name: string; readonly socket?: unknown };
  write(data: string, options: { compress: boolean; wsPreEncodedFrame?: Buffer[] }): void;
  on(event: 'packetCreate', listener: (packet: { data?: unknown }) => void): unknown;
  on(event: 'flush', listener: () => void): unknown;
  on(event: 'data', listener: (data: unknown) => void): unknown;
  once(event: 'close', listener: () => void): unknown;
  listeners(event: 'data'): ((data: unknown) => void)[];
  removeListener(event: 'data', listener: (data: unknown) => void): unknown;
  close(discard?: boolean): unknown;
}

type Middleware = (event: unknown[], next: (error?: Error) => void) => void;

interface SocketIoClient {
  conn: EngineConnection;
  ondata: (data: unknown) => void;
  decoder: { reconstructor?: unknown };
  nsps: Map<string, unknown>;
}

interface SocketInternals {
  client: SocketIoClient;
  connected: boolean;
  fns: Middleware[];
  _anyListeners?: unknown[];
  _onerror(error: Error): void;
  ack(id: number): (...args: unknown[]) => void;
}

const internalsOf = (socket: Socket): SocketInternals => socket as unknown as SocketInternals;

/** Who reads each intercepted connection's data first (the latest socket of its main namespace). */
const interceptors = new WeakMap<object, { take: (data: unknown) => boolean }>();

/**
 * Puts `take` in front of socket.io's parser on `socket`'s engine.io connection: data it takes (true)
 * never reaches socket.io. A later socket of the same connection (its main namespace connected again)
 * replaces the earlier one's `take`. False where the connection is not shaped as expected; then socket.io
 * reads everything, as without this.
 */
export function interceptPackets(socket: Socket, take: (data: unknown) => boolean): boolean {
  const internals = internalsOf(socket);
  const client = internals.client;
  const conn = client?.conn;
  if (!conn || typeof client.ondata !== 'function' || !(client.nsps instanceof Map) || !Array.isArray(internals.fns))
    return false;
  const existing = interceptors.get(conn);
  if (existing) {
    existing.take = take;
    return true;
  }
  if (!conn.listeners('data').includes(client.ondata)) return false;
  const interceptor = { take };
  conn.removeListener('data', client.ondata);
  conn.on('data', (data) => {
    if (!interceptor.take(data)) client.ondata(data);
  });
  interceptors.set(conn, interceptor);
  return true;
}

/**
 * Whether a packet for `socket` may be handled outside socket.io's parser now: no binary packet is
 * waiting for its attachments, `socket` is its connection's main namespace and connected, and no
 * `onAny` listener would miss it.
 */
export function mayTakePacket(socket: Socket): boolean {
  const internals = internalsOf(socket);
  const client = internals.client;
  if (client.decoder.reconstructor || client.nsps.get('/') !== socket || !internals.connected) return false;
  return internals._anyListeners === undefined || internals._anyListeners.length === 0;
}

/** socket.io's `Socket.run`: the socket's middlewares in order on `args`, then `done` if every one said next. */
export function runMiddlewares(socket: Socket, args: unknown[], done: () => void): void {
  const internals = internalsOf(socket);
  const fns = internals.fns;
  if (fns.length === 0) return done();
  const step = (index: number): void => {
    fns[index](args, (error?: Error) => {
      if (error) return internals._onerror(error);
      if (index + 1 === fns.length) return done();
      step(index + 1);
    });
  };
  step(0);
}

/** Whether `socket` is connected (socket.io's `connected`, read without its getter chain). */
export function isConnected(socket: Socket): boolean {
  return internalsOf(socket).connected;
}

/** The engine.io connection under `socket`. */
export function engineConnectionOf(socket: Socket): EngineConnection {
  return internalsOf(socket).client.conn;
}

/** Makes every acknowledgement socket.io gives `socket`'s event packets pass through `wrap`. */
export function wrapAcks(
  socket: Socket,
  wrap: (ack: (...args: unknown[]) => void) => (...args: unknown[]) => void,
): void {
  const internals = internalsOf(socket);
  const ack = internals.ack;
  internals.ack = (id: number) => wrap(ack.call(internals, id));
}

/** Writes socket.io's encoded packet `packet` on `conn` as one pre-encoded websocket frame, unless it has closed. */
export function writeEncodedPacket(conn: EngineConnection, packet: string): void {
  if (conn.readyState !== 'open') return;
  conn.write(packet, { compress: true, wsPreEncodedFrame: [textFrame(packet)] });
}

/**
 * socket.io's encoding of an EVENT packet on the main namespace without an ack id: `2` and the JSON
 * array of the event's name and its one argument (no binary attachments: the pushes are plain JSON).
 */
export function eventPacket(event: string, data: unknown): string {
  return `2${JSON.stringify([event, data])}`;
}

/**
 * The WebSocket frame engine.io's websocket transport would send for the message `packet` (a final,
 * unmasked text frame of `4` and the packet), in one buffer: engine.io writes a pre-encoded frame as it
 * is (as socket.io does for broadcasts), so the socket gets one write instead of ws's corked header and
 * payload pair. Other transports (HTTP long-polling) ignore it and send `packet`.
 */
function textFrame(packet: string): Buffer {
  const length = Buffer.byteLength(packet) + 1;
  const header = length < 126 ? 2 : length < 65536 ? 4 : 10;
  const frame = Buffer.allocUnsafe(header + length);
  frame[0] = 0x81; // FIN, text
  if (header === 2) frame[1] = length;
  else if (header === 4) {
    frame[1] = 126;
    frame.writeUInt16BE(length, 2);
  } else {
    frame[1] = 127;
    frame.writeUInt32BE(0, 2);
    frame.writeUInt32BE(length, 6);
  }
  frame[header] = 0x34; // '4', engine.io's message type
  frame.write(packet, header + 1, 'utf8');
  return frame;
}

/** The bytes of a packet's data: a string's length (the answers are JSON, nearly all ASCII) or a buffer's size. */
export function packetBytes(packet: { data?: unknown }): number {
  const data = packet.data;
  if (typeof data === 'string') return data.length;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
}

interface WsSocket {
  readonly bufferedAmount: number;
  terminate(): void;
}

/** What the websocket under `connection` holds that the TCP socket has not taken (0 on other transports). */
export function transportBufferedBytes(connection: EngineConnection): number {
  const socket = wsOf(connection);
  return socket === null ? 0 : socket.bufferedAmount;
}

/**
 * Closes `connection`, dropping everything it has not sent: from now on it takes no packet and its TCP
 * socket is gone; engine.io and socket.io learn of the close on the next tick, so that no one in the
 * middle of a write (a broadcast's loop over sockets, the coordinator's answers) sees a disconnect inside it.
 */
export function closeDiscarding(connection: EngineConnection): void {
  if (connection.readyState !== 'open') return;
  connection.readyState = 'closing';
  wsOf(connection)?.terminate();
  process.nextTick(() => connection.close(true));
}

/** ws's view of what a connection has received but not yet made a whole message of. */
interface WsInput {
  readonly _socket?: { on(event: 'data', listener: () => void): unknown };
  readonly _receiver?: { _bufferedBytes?: number; _messageLength?: number; writableLength?: number };
}

/** The input side of a websocket connection: its TCP socket, and the bytes received that are not yet a whole message. */
export interface PartialInput {
  /** The TCP socket; a `data` listener added here runs after ws has taken the chunk. */
  readonly tcp: { on(event: 'data', listener: () => void): unknown };
  held(): number;
}

/** The input side of `connection` (null on other transports, or where ws is not shaped as expected). */
export function partialInputOf(connection: EngineConnection): PartialInput | null {
  const ws = wsOf(connection) as (WsSocket & WsInput) | null;
  const receiver = ws?._receiver;
  const tcp = ws?._socket;
  if (!receiver || !tcp || typeof receiver._bufferedBytes !== 'number' || typeof receiver._messageLength !== 'number')
    return null;
  return {
    tcp,
    held: () => receiver._bufferedBytes! + receiver._messageLength! + (receiver.writableLength ?? 0),
  };
}

function wsOf(connection: EngineConnection): WsSocket | null {
  const socket = connection.transport.name === 'websocket' ? connection.transport.socket : undefined;
  if (typeof socket !== 'object' || socket === null) return null;
  const ws = socket as Partial<WsSocket>;
  return typeof ws.bufferedAmount === 'number' && typeof ws.terminate === 'function' ? (ws as WsSocket) : null;
}
