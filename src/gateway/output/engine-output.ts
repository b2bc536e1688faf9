/**
 * What the output limit reads of an engine.io connection (engine.io 6.6's `Socket`), and how it closes
 * one. Everything here relies on engine.io and ws internals; engine-output.spec.ts pins each behaviour
 * against the real libraries, so an upgrade that changes one fails there first.
 *
 * - Every packet engine.io sends (socket.io's acks and emits, broadcasts, pings) is announced by the
 *   connection's `packetCreate` event before it joins `writeBuffer`.
 * - `flush` hands the whole `writeBuffer` to the transport; a websocket transport sends it at once, and
 *   what the TCP socket has not taken yet is the ws socket's `bufferedAmount`.
 * - A connection whose `readyState` is `closing` takes no more packets (engine.io's `sendPacket` drops
 *   them), and socket.io does not even encode a packet for it (its `Client._packet` checks `open`).
 * - ws's `terminate()` destroys the TCP socket, dropping what it buffered, and reports the close later;
 *   engine.io's `close(true)` then discards the transport (`close()` alone would wait for `writeBuffer`
 *   to drain, which a client that does not read never lets happen).
 */
export interface EngineConnection {
  readonly id: string;
  readonly remoteAddress: string;
  readyState: string;
  readonly transport: { readonly name: string; readonly socket?: unknown };
  on(event: 'packetCreate', listener: (packet: { data?: unknown }) => void): unknown;
  on(event: 'flush', listener: () => void): unknown;
  once(event: 'close', listener: () => void): unknown;
  close(discard?: boolean): unknown;
}

interface WsSocket {
  readonly bufferedAmount: number;
  terminate(): void;
}

/** The bytes of a packet's data: a string's length (the answers are JSON, nearly all ASCII) or a buffer's size. */
export function packetBytes(packet: { data?: unknown }): number {
  const data = packet.data;
  if (typeof data === 'string') return data.length;
  if (data instanceof ArrayBuffer || ArrayBuffer.isView(data)) return data.byteLength;
  return 0;
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

function wsOf(connection: EngineConnection): WsSocket | null {
  const socket = connection.transport.name === 'websocket' ? connection.transport.socket : undefined;
  if (typeof socket !== 'object' || socket === null) return null;
  const ws = socket as Partial<WsSocket>;
  return typeof ws.bufferedAmount === 'number' && typeof ws.terminate === 'function' ? (ws as WsSocket) : null;
}
