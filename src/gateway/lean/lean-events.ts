import type { ArgumentMetadata, Type } from '@nestjs/common';
import type { Socket } from 'socket.io';
import { KafkaValidationPipe } from '../../common/kafka-validation.pipe';
import { compiledAccept } from '../contract/socket-contracts';
import { answerFailure } from '../ws-ack-exception.filter';
import type { PacketFastLane } from './packet-fast-lane';

/** One hot event answered without Nest's WebSocket pipeline. */
export interface LeanEvent<T> {
  /**
   * The event's DTO, its one definition: the check compiled from it (../contract/compiled-checks.ts) takes
   * the common well-formed payload, its class-validator rules decide every other.
   */
  dto: Type<T>;
  /** The gateway method's body: ACL check and coordinator call; a throw or rejection is answered as an error. */
  handle: (request: T, socket: Socket) => unknown;
}

/** How Nest hands @MessageBody to pipes: its WsParamtype.PAYLOAD, a number where HTTP has 'body'. */
const PAYLOAD_METADATA_TYPE = 3 as unknown as ArgumentMetadata['type'];

/**
 * The events a consumer sends most (Heartbeat, OffsetCommit, OffsetFetch), and JoinGroup and SyncGroup, bound straight to the socket
 * instead of through @SubscribeMessage: Nest's pipeline cost each request an rxjs chain, the guard and
 * interceptor consumers (every global one skips non-HTTP contexts) and a class-transformer pass — about
 * a quarter of the server's CPU per commit. What a client sees is unchanged: the socket middlewares
 * (request guard, metrics, rate) run first as before, the payload and ack are read as Nest's IoAdapter
 * reads them, a payload the fast check does not take is validated by the same KafkaValidationPipe
 * instance Nest would apply, and every failure is answered by the same code as WsAckExceptionFilter.
 */
export class LeanEvents {
  private readonly pipe = new KafkaValidationPipe();

  /**
   * Binds `spec` to `event` on `socket`, and on the socket's packet fast lane (packet-fast-lane.ts) when its
   * connection has one: the lane takes the event's ordinary packets, socket.io's listener the others.
   */
  bind<T>(socket: Socket, event: string, spec: LeanEvent<T>, lane: PacketFastLane | null = null): void {
    const metadata: ArgumentMetadata = { type: PAYLOAD_METADATA_TYPE, metatype: spec.dto, data: undefined };
    const accept = compiledAccept(spec.dto);
    const listener = (args: unknown[]): void => {
      // rxjs fromEvent (which Nest's IoAdapter listens with) gives one argument as is, several as an array.
      const { data, ack } = mapPayload(args.length > 1 ? args : args[0]);
      const accepted = accept(data);
      if (accepted !== null) {
        answer(() => spec.handle(accepted, socket), ack);
        return;
      }
      this.pipe.transform(data, metadata).then(
        (request: T) => answer(() => spec.handle(request, socket), ack),
        (error: unknown) => answerFailure(error, ack),
      );
    };
    socket.on(event, (...args: unknown[]) => listener(args));
    lane?.add(event, listener);
  }
}

/** Runs the handler and acks what it gives (nothing for null or undefined, as Nest's adapter filters them). */
function answer(handle: () => unknown, ack: ((response: unknown) => void) | undefined): void {
  let result: unknown;
  try {
    result = handle();
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

/** Nest's IoAdapter.mapPayload: a trailing function is the ack; one argument before it is the data. */
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
