import { answerJson } from '@cohort/protocol';
import type { ConnectionOutput } from '../output/connection-output';
import { type EngineConnection, writeEncodedPacket } from '../socket-io-internals';
import type { WritePacer } from '../write-pacer';

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
    if (pacer.admit(1)) return writeEncodedPacket(conn, ackPacket(id, args));
    const packet = ackPacket(id, args);
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
export function ackPacket(id: number, args: unknown[]): string {
  if (args.length === 1) {
    const json = answerJson(args[0]);
    if (json !== undefined) return `3${id}[${json}]`;
  }
  return `3${id}${JSON.stringify(args)}`;
}
