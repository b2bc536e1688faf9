import type { ArgumentMetadata, Type } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { KafkaValidationPipe } from '../../common/kafka-validation.pipe';
import type { ConnectionOutput } from '../output/connection-output';
import { engineConnectionOf, wrapAcks } from '../socket-io-internals';
import type { WritePacer } from '../write-pacer';
import { answerFailure } from './answer-failure';
import { type FastCheck, fastCheckOf } from './fast-checks';
import { pacedAck } from './paced-acks';
import { LaneEvents, PacketFastLane } from './packet-fast-lane';

/** A row of an event table as the dispatch reads it (socket-events.ts types each row by its event). */
export interface DispatchRow {
  handle: (request: never, socket: Socket) => unknown;
}

/** A row of the table, prepared once for every connection. */
interface PreparedEvent {
  event: string;
  metadata: ArgumentMetadata;
  check: FastCheck<unknown> | null;
  handle: (request: unknown, socket: Socket) => unknown;
  /** The event's socket.io listener, shared by every connection: socket.io calls it with the socket as `this`. */
  listener: (this: Socket, ...args: unknown[]) => void;
}

/**
 * The socket's one dispatch path: every event of the table (socket-events.ts) is bound on each
 * connection, read either by the packet fast lane or by socket.io's parser (packets the lane leaves to
 * it), and then goes the same way: the payload and ack read as socket.io gives them, the payload checked
 * against the event's DTO (the fast check where it surely passes, else KafkaValidationPipe, which words
 * any refusal), the row's `handle` (ACL check, coordinator call), and its answer or failure on the ack.
 * Every ack, socket.io's as well as the lane's and those the socket middlewares answer with, is written
 * through the write pacer the pushes share, so that no answer overtakes a push that was due before it.
 *
 * Nest's WebSocket pipeline is not used: it cost each request an rxjs chain, the guard and interceptor
 * consumers and a class-transformer pass (a quarter of the server's CPU per commit), and made a second
 * path. The socket middlewares (rate limit, metrics, request guard) still run first, as socket.io runs them.
 */
export class SocketDispatch {
  private readonly pipe = new KafkaValidationPipe();
  private readonly events: PreparedEvent[];
  /** The same events for the packet fast lane, shared by every connection's lane. */
  private readonly laneEvents = new LaneEvents();

  /**
   * `table`: socketEvents(), or any events shaped as its rows (the tests'); `contracts`: each event's DTO,
   * SOCKET_REQUEST_DTOS for the protocol's events.
   */
  constructor(
    table: { readonly [event: string]: DispatchRow },
    contracts: { readonly [event: string]: Type<unknown> },
  ) {
    // The listeners are made here, once, rather than per connection: a closure, its context and a lane
    // entry per event for each of thousands of sockets were a fifth of what a connection holds.
    const dispatch = (prepared: PreparedEvent, args: unknown[], socket: Socket): void =>
      this.dispatch(prepared, args, socket);
    this.events = Object.entries(table).map(([event, row]) => {
      const dto = contracts[event];
      if (dto === undefined) throw new Error(`socket event ${event} has no DTO`);
      const prepared: PreparedEvent = {
        event,
        // As a request body: validated against the DTO; an array or a primitive is named `payload` in the refusal.
        metadata: { type: 'body', metatype: dto, data: 'payload' },
        check: fastCheckOf(dto),
        handle: row.handle as PreparedEvent['handle'],
        listener(this: Socket, ...args: unknown[]): void {
          dispatch(prepared, args, this);
        },
      };
      this.laneEvents.add(event, (args, socket) => dispatch(prepared, args, socket));
      return prepared;
    });
  }

  /** Binds every event on `socket`, answering through `pacer`, with what waits counted in `output`. */
  attach(socket: Socket, pacer: WritePacer, output: ConnectionOutput | undefined): void {
    const conn = engineConnectionOf(socket);
    wrapAcks(socket, (ack) => pacedAck(ack, conn, pacer, output));
    PacketFastLane.of(socket, this.laneEvents, pacer, output);
    for (const prepared of this.events) socket.on(prepared.event, prepared.listener);
  }

  private dispatch(prepared: PreparedEvent, args: unknown[], socket: Socket): void {
    // One argument as is, several as an array (as Nest's IoAdapter reads a payload). A request and its
    // ack, as nearly every event comes, is read in place, without the object mapPayload returns.
    let data: unknown;
    let ack: ((response: unknown) => void) | undefined;
    if (args.length === 2 && typeof args[1] === 'function') {
      data = args[0];
      ack = args[1] as (response: unknown) => void;
    } else ({ data, ack } = mapPayload(args.length > 1 ? args : args[0]));
    const accepted = prepared.check === null ? null : prepared.check(data);
    if (accepted !== null) {
      answer(prepared, accepted, socket, ack);
      return;
    }
    this.pipe.transform(data, prepared.metadata).then(
      (request: unknown) => answer(prepared, request, socket, ack),
      (error: unknown) => answerFailure(error, ack),
    );
  }
}

/** Runs the event's handler on `request` and acks what it gives (nothing for null or undefined). */
function answer(
  prepared: PreparedEvent,
  request: unknown,
  socket: Socket,
  ack: ((response: unknown) => void) | undefined,
): void {
  let result: unknown;
  try {
    result = prepared.handle(request, socket);
  } catch (error) {
    answerFailure(error, ack);
    return;
  }
  if (result instanceof Promise) {
    result.then(
      (response: unknown) => respond(response, ack),
      (error: unknown) => answerFailure(error, ack),
    );
  } else respond(result, ack);
}

function respond(response: unknown, ack: ((response: unknown) => void) | undefined): void {
  if (response !== undefined && response !== null && typeof ack === 'function') ack(response);
}

/** A trailing function is the ack; one argument before it is the data, several an array. */
function mapPayload(payload: unknown): { data: unknown; ack?: (response: unknown) => void } {
  if (!Array.isArray(payload)) {
    if (typeof payload === 'function') return { data: undefined, ack: payload as (response: unknown) => void };
    return { data: payload };
  }
  const last: unknown = payload[payload.length - 1];
  if (typeof last !== 'function') return { data: payload };
  const size = payload.length - 1;
  return { data: size === 1 ? payload[0] : payload.slice(0, size), ack: last as (response: unknown) => void };
}
