import type { Socket } from 'socket.io';
import type { ConnectionOutput } from '../output/connection-output';
import {
  interceptPackets,
  isConnected,
  mayTakePacket,
  runMiddlewares,
  engineConnectionOf,
} from '../socket-io-internals';
import { WritePacer } from '../write-pacer';
import { laneAck } from './paced-acks';

/** An event's listener, given the arguments a socket.io listener of the event gets (the ack last) and the socket. */
export type LaneHandler = (listenerArgs: unknown[], socket: Socket) => void;

/**
 * The events a lane takes, each with its handler: made once and shared by the lanes of every connection,
 * so that a connection costs no closure, entry or map per event (the handler is given the socket).
 */
export class LaneEvents {
  /** Event name → its handler, and the name as the table spells it (an interned string, see `take`). */
  private readonly byName = new Map<string, { event: string; handler: LaneHandler }>();

  add(event: string, handler: LaneHandler): this {
    this.byName.set(event, { event, handler });
    return this;
  }

  get(event: string): { event: string; handler: LaneHandler } | undefined {
    return this.byName.get(event);
  }
}

/** socket.io's text EVENT packet with an ack id on the main namespace: `2<id>["<event>",…`. */
const EVENT_TYPE = 0x32; // '2'
const OPEN_BRACKET = 0x5b;
const QUOTE = 0x22;
const COMMA = 0x2c;

/**
 * Reads the events' packets off the engine.io connection before socket.io's parser does, and answers
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
 *   The answers carry no binary data, so socket.io would not have made them binary acks.
 */
export class PacketFastLane {
  private constructor(
    private readonly socket: Socket,
    private readonly events: LaneEvents,
    private readonly pacer: WritePacer,
    private readonly output: ConnectionOutput | undefined,
  ) {}

  /**
   * The lane of `socket`, put in front of socket.io's parser on its connection (a later socket of the
   * same connection takes it over); null where the connection is not shaped as the lane expects (then the
   * events go through socket.io as before). It takes the packets of `events`. Its acknowledgements are
   * written through `pacer` (the one the pushes use, so that their order holds); those that wait in it
   * count against the connection's `output`.
   */
  static of(
    socket: Socket,
    events: LaneEvents,
    pacer: WritePacer = new WritePacer(),
    output?: ConnectionOutput,
  ): PacketFastLane | null {
    const lane = new PacketFastLane(socket, events, pacer, output);
    return interceptPackets(socket, (data) => lane.take(data)) ? lane : null;
  }

  /** Handles `data` if it is one of the lane's packets (true), else leaves it to socket.io (false). */
  private take(data: unknown): boolean {
    if (typeof data !== 'string' || data.charCodeAt(0) !== EVENT_TYPE) return false;
    // The ack id, read as the digits are scanned (socket.io's parser reads it the same way, as a number).
    let i = 1;
    let id = 0;
    for (let code = data.charCodeAt(i); isDigit(code); code = data.charCodeAt(++i)) id = id * 10 + (code - 0x30);
    if (i === 1 || data.charCodeAt(i) !== OPEN_BRACKET || data.charCodeAt(i + 1) !== QUOTE) return false;
    const close = data.indexOf('"', i + 2);
    if (close < 0 || data.charCodeAt(close + 1) !== COMMA) return false;
    const event = data.slice(i + 2, close);
    const lane = this.events.get(event);
    if (lane === undefined || !mayTakePacket(this.socket)) return false;
    let args: unknown;
    try {
      args = JSON.parse(data.slice(i));
    } catch {
      return false; // socket.io's parser refuses it (and closes the connection): let it
    }
    if (!Array.isArray(args) || args[0] !== event) return false;
    // The same name, as the table's interned string: the middlewares (request guard, metrics) look the
    // event up by name, and JSON.parse's copy would have each lookup hash and intern it again.
    args[0] = lane.event;
    // Past 15 digits the sum may round differently from socket.io's Number(): read as it reads it.
    if (i > 16) id = Number(data.slice(1, i));
    args.push(laneAck(id, engineConnectionOf(this.socket), this.pacer, this.output));
    const socket = this.socket;
    // As socket.io emits it: the arguments after the event name, read after the middlewares (metrics swaps
    // the ack). The name is taken off the array in place: nothing reads the packet after the middlewares.
    runMiddlewares(socket, args, () => {
      if (!isConnected(socket)) return;
      (args as unknown[]).shift();
      lane.handler(args as unknown[], socket);
    });
    return true;
  }
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
