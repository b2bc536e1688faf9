import type { Socket } from 'socket.io';
import { ErrorCode, errorName, isRequestEvent, requestDepthProblem } from '@cohort/protocol';

type Packet = Parameters<Parameters<Socket['use']>[0]>[0];
type Next = Parameters<Parameters<Socket['use']>[0]>[1];

/**
 * socket.io middleware, before any handler, pipe or log sees a packet: an event no handler has, or a
 * payload nested deeper than any request needs, is answered INVALID_REQUEST on its ack (dropped when
 * it has none) and goes no further. Without it an unknown event waited for the client's own timeout,
 * and a deep payload overflowed class-transformer's stack into an UNKNOWN_SERVER_ERROR.
 */
export function guardRequests(packet: Packet, next: Next): void {
  const event: unknown = packet[0];
  // The arguments after the event name, the ack (a trailing function) aside; read in place, not copied.
  const last: unknown = packet[packet.length - 1];
  const ack = packet.length > 1 && typeof last === 'function' ? (last as (response: unknown) => void) : null;
  const end = ack === null ? packet.length : packet.length - 1;
  const problem = isRequestEvent(event) ? firstDepthProblem(packet, end) : `unknown event ${describeEvent(event)}`;
  if (problem === null) return next();
  ack?.({
    errorCode: ErrorCode.INVALID_REQUEST,
    errorName: errorName(ErrorCode.INVALID_REQUEST),
    errorMessage: problem,
  });
}

/** The first depth problem of `packet`'s arguments, from index 1 (after the event name) up to `end`. */
function firstDepthProblem(packet: unknown[], end: number): string | null {
  for (let i = 1; i < end; i++) {
    const problem = requestDepthProblem(packet[i]);
    if (problem !== null) return problem;
  }
  return null;
}

/** Quoted, so a trailing space or an empty name shows; bounded, so a huge name does not make a huge answer. */
function describeEvent(event: unknown): string {
  const text = JSON.stringify(typeof event === 'string' ? event : String(event));
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
