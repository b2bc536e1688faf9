import type { Socket } from 'socket.io';
import type { ConnectionOutput } from '../output/connection-output';
import { WritePacer } from '../write-pacer';

/** A lean event's listener, given the arguments a socket.io listener of the event gets (the ack last). */
export type LaneHandler = (listenerArgs: unknown[]) => void;

type Middleware = (event: unknown[], next: (error?: Error) => void) => void;

/** What the lane reads of socket.io's objects (version 4.8: `Client`, its engine.io socket, `Socket`). */
interface EngineConnection {
  readyState: string;
  write(data: string, options: { compress: boolean; wsPreEncodedFrame?: Buffer[] }): void;
  listeners(event: 'data'): ((data: unknown) => void)[];
  removeListener(event: 'data', fn: (data: unknown) => void): void;
  on(event: 'data', fn: (data: unknown) => void): void;
}
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
}

/** socket.io's text EVENT packet with an ack id on the main namespace: `2<id>["<event>",…`. */
const EVENT_TYPE = 0x32; // '2'
const OPEN_BRACKET = 0x5b;
const QUOTE = 0x22;
const COMMA = 0x2c;

/**
 * Reads the hot events' packets off the engine.io connection before socket.io's parser does, and answers
 * their acks straight to it, without socket.io's per-packet machinery (its decoder, two process.nextTick
 * hops, a copy of the middleware list with a closure per step, the EventEmitter dispatch, and a walk of
 * every response looking for binary attachments). What a client sees is unchanged:
 *
 * - Only a text packet of one of the lane's events, on the main namespace, with an ack id and a JSON
 *   array payload, is taken; anything else (binary attachments, another namespace, no ack, a payload
 *   socket.io would refuse, a packet mid-way through a binary one) goes to socket.io's own parser.
 *   The event name must be spelled plainly, so the payload is what socket.io's parser would give.
 * - The socket's middlewares (rate limit, metrics, request guard) run on it in order, as socket.io runs them.
 * - The ack is socket.io's encoding of an ACK packet (`3<id>` and the JSON array of its arguments),
 *   written to the engine.io connection as socket.io writes it, at most once, only while it is open.
 *   The lean events' answers carry no binary data, so socket.io would not have made them binary acks.
 */
export class PacketFastLane {
  private static readonly lanes = new WeakMap<object, PacketFastLane>();
  private readonly handlers = new Map<string, LaneHandler>();

  private constructor(
    private socket: SocketInternals,
    private readonly client: SocketIoClient,
    private readonly pacer: WritePacer,
    private readonly output: ConnectionOutput | undefined,
  ) {}

  /**
   * The lane of `socket`'s connection, put in front of socket.io's parser the first time; null where the
   * connection is not shaped as the lane expects (then the events go through socket.io as before). Its
   * acknowledgements are written through `pacer` (the one the pushes use, so that their order holds);
   * those that wait in it count against the connection's `output` limits.
   */
  static of(socket: Socket, pacer: WritePacer = new WritePacer(), output?: ConnectionOutput): PacketFastLane | null {
    const internals = socket as unknown as SocketInternals;
    const client = internals.client;
    const conn = client?.conn;
    if (!conn || typeof client.ondata !== 'function' || !(client.nsps instanceof Map) || !Array.isArray(internals.fns))
      return null;
    const existing = PacketFastLane.lanes.get(conn);
    if (existing) {
      // The main namespace connected again on the same connection: the lane serves its new socket.
      existing.socket = internals;
      existing.handlers.clear();
      return existing;
    }
    if (!conn.listeners('data').includes(client.ondata)) return null;
    const lane = new PacketFastLane(internals, client, pacer, output);
    conn.removeListener('data', client.ondata);
    conn.on('data', (data) => {
      if (!lane.take(data)) client.ondata(data);
    });
    PacketFastLane.lanes.set(conn, lane);
    return lane;
  }

  add(event: string, handler: LaneHandler): void {
    this.handlers.set(event, handler);
  }

  /** Handles `data` if it is one of the lane's packets (true), else leaves it to socket.io (false). */
  private take(data: unknown): boolean {
    if (typeof data !== 'string' || data.charCodeAt(0) !== EVENT_TYPE) return false;
    let i = 1;
    while (isDigit(data.charCodeAt(i))) i++;
    if (i === 1 || data.charCodeAt(i) !== OPEN_BRACKET || data.charCodeAt(i + 1) !== QUOTE) return false;
    const close = data.indexOf('"', i + 2);
    if (close < 0 || data.charCodeAt(close + 1) !== COMMA) return false;
    const event = data.slice(i + 2, close);
    const handler = this.handlers.get(event);
    const socket = this.socket;
    if (handler === undefined || this.client.decoder.reconstructor || this.client.nsps.get('/') !== socket)
      return false;
    if (!socket.connected || (socket._anyListeners !== undefined && socket._anyListeners.length > 0)) return false;
    let args: unknown;
    try {
      args = JSON.parse(data.slice(i));
    } catch {
      return false; // socket.io's parser refuses it (and closes the connection): let it
    }
    if (!Array.isArray(args) || args[0] !== event) return false;
    args.push(this.ack(Number(data.slice(1, i))));
    this.run(args, handler);
    return true;
  }

  /**
   * socket.io's `Socket.ack`: one ACK packet with every argument, the first call only, through the pacer.
   * One that has to wait for a later turn is encoded now, so that its bytes count against the connection's
   * output limits while it waits.
   */
  private ack(id: number): (...args: unknown[]) => void {
    const conn = this.client.conn;
    const pacer = this.pacer;
    const output = this.output;
    let sent = false;
    return (...args: unknown[]) => {
      if (sent) return;
      sent = true;
      if (pacer.admit(1)) return writePacket(conn, ackPacket(id, args));
      const packet = ackPacket(id, args);
      if (output === undefined) return pacer.later(1, () => writePacket(conn, packet));
      output.paceQueued(packet.length);
      pacer.later(1, () => output.paceWrite(packet.length, () => writePacket(conn, packet)));
    };
  }

  /** The socket's middlewares in order (socket.io's `Socket.run`), then the handler if every one said next. */
  private run(args: unknown[], handler: LaneHandler): void {
    const socket = this.socket;
    const fns = socket.fns;
    // As socket.io emits it: the arguments after the event name, read after the middlewares (metrics swaps the ack).
    const done = (): void => {
      if (socket.connected) handler(args.slice(1));
    };
    if (fns.length === 0) return done();
    const step = (index: number): void => {
      fns[index](args, (error?: Error) => {
        if (error) return socket._onerror(error);
        if (index + 1 === fns.length) return done();
        step(index + 1);
      });
    };
    step(0);
  }
}

/** socket.io's encoding of an ACK packet for `id`: `3<id>` and the JSON array of its arguments. */
function ackPacket(id: number, args: unknown[]): string {
  return `3${id}${JSON.stringify(args)}`;
}

/** Writes an encoded packet, unless the connection closed (an answer may have waited for a turn). */
function writePacket(conn: EngineConnection, packet: string): void {
  if (conn.readyState !== 'open') return;
  conn.write(packet, { compress: true, wsPreEncodedFrame: [textFrame(packet)] });
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

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
