import { answerJson } from '@cohort/protocol';
import type { ConnectionOutput } from '../output/connection-output';
import { type EngineConnection, writeEncodedPacket } from '../socket-io-internals';
import type { WritePacer } from '../write-pacer';
import { longerThan, MOST_ANSWER_CHARS, tooLargeAnswer } from './bounded-answer';

export type Ack = (...args: unknown[]) => void;

/**
 * Every acknowledgement leaves through the WritePacer that the pushes use, so that answers and pushes
 * reach a client in the order they were due: out at once while the pacer is idle, else behind
 * everything waiting. One that waits counts against its connection's output limits while it does.
 */

/**
 * The fast lane's ack for packet `id` (socket.io's `Socket.ack`): one ACK packet of every argument, for
 * the first call only, written straight to the engine.io connection. One that has to wait is encoded
 * at once, so its exact size is what counts while it waits.
 */
export function laneAck(
  id: number,
  conn: EngineConnection,
  pacer: WritePacer,
  output: ConnectionOutput | undefined,
): Ack {
  let sent = false;
  return (...args: unknown[]) => {
    if (sent) return;
    sent = true;
    // A closed connection (a client gone, or one closed for not reading) gets nothing: not even encoded.
    if (conn.readyState !== 'open') return;
    const limit = answerLimit(output);
    if (pacer.admit(1)) return writeEncodedPacket(conn, ackPacket(id, args, limit));
    const packet = ackPacket(id, args, limit);
    if (output === undefined) return pacer.later(1, () => writeEncodedPacket(conn, packet));
    output.paceQueued(packet.length);
    pacer.later(1, () => output.paceWrite(packet.length, () => writeEncodedPacket(conn, packet)));
  };
}

/**
 * socket.io's own ack (`ack`, for the packets the lane leaves to socket.io's parser) through the pacer.
 * One that has to wait counts at the length of its arguments' JSON (socket.io encodes it when it leaves).
 */
export function pacedAck(
  ack: Ack,
  conn: EngineConnection,
  pacer: WritePacer,
  output: ConnectionOutput | undefined,
): Ack {
  let sent = false;
  return (...args: unknown[]) => {
    if (sent) return;
    sent = true;
    if (conn.readyState !== 'open') return; // socket.io would drop it too, once it had waited its turn
    const limit = answerLimit(output);
    // socket.io serializes it itself: one too large to send is replaced before it gets there.
    if (longerThan(args, limit)) args = [tooLargeAnswer(limit, limitName(output))];
    if (pacer.admit(1)) return ack(...args);
    if (output === undefined) return pacer.later(1, () => ack(...args));
    const bytes = JSON.stringify(args).length;
    output.paceQueued(bytes);
    pacer.later(1, () => output.paceWrite(bytes, () => ack(...args)));
  };
}

/**
 * socket.io's encoding of an ACK packet for `id`: `3<id>` and the JSON array of its arguments. An answer
 * that carries its JSON already (`withAnswerJson`, a steady member's heartbeat) is not serialized again.
 */
export function ackPacket(id: number, args: unknown[], limit = MOST_ANSWER_CHARS): string {
  if (args.length === 1) {
    const json = answerJson(args[0]);
    if (json !== undefined) return `3${id}[${json}]`;
  }
  if (longerThan(args, limit)) return refusedPacket(id, limit);
  try {
    return `3${id}${JSON.stringify(args)}`;
  } catch (error) {
    // Escapes the walk did not count can still pass V8's longest string: never a crash of the node.
    if (error instanceof RangeError) return refusedPacket(id, limit);
    throw error;
  }
}

/** The ACK packet that goes instead of an answer too large to send. */
function refusedPacket(id: number, limit: number): string {
  const why = limit === MOST_ANSWER_CHARS ? 'the most a node sends' : 'MAX_SOCKET_OUTPUT_BUFFER_BYTES';
  return `3${id}${JSON.stringify([tooLargeAnswer(limit, why)])}`;
}

/** The longest answer one connection is sent: what its output limit lets it hold, at most MOST_ANSWER_CHARS. */
function answerLimit(output: ConnectionOutput | undefined): number {
  const hard = output?.hardLimitBytes ?? 0;
  return hard > 0 ? Math.min(hard, MOST_ANSWER_CHARS) : MOST_ANSWER_CHARS;
}

function limitName(output: ConnectionOutput | undefined): string {
  return (output?.hardLimitBytes ?? 0) > 0 ? 'MAX_SOCKET_OUTPUT_BUFFER_BYTES' : 'the most a node sends';
}
