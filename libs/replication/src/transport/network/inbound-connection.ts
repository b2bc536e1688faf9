import type { Socket } from 'node:net';
import type { FetchResponse, RpcKind, RpcMap, RpcRequest } from '../messages';
import type { Clock } from '../../time/clock';
import {
  encodeFetchResponseFrame,
  encodeFrame,
  FrameReader,
  FrameType,
  type Frame,
  READS_FIXED_LAYOUT_FETCH,
} from './frames';
import type { PeerAuthentication } from './peer-authentication';
import { InboundHandshake } from './peer-handshake';

/** Serves the requests arriving on one accepted socket; `handle` returns undefined when nobody listens. */
export type InboundHandler = (from: number, request: RpcRequest) => Promise<RpcMap[RpcKind]['response']> | undefined;

/**
 * One accepted connection: decodes request frames, runs the handler for each (concurrently: a held
 * long-poll does not block the requests behind it) and writes each response when it is ready, unless
 * the connection has gone meanwhile. A stream that is not our protocol is cut off. With a cluster
 * secret, nothing is served before the peer proved it, and then only frames naming that peer.
 */
export class InboundConnection {
  private readonly reader: FrameReader;
  private readonly handshake: InboundHandshake | null;
  /** The node whose requests arrive here (from the first request frame); undefined before it. */
  private peer: number | undefined;

  constructor(
    private readonly socket: Socket,
    private readonly nodeId: number,
    private readonly maxFrameBytes: number,
    private readonly handle: InboundHandler,
    authentication?: { auth: PeerAuthentication; clock: Clock },
  ) {
    this.reader = new FrameReader(maxFrameBytes);
    socket.setNoDelay(true);
    socket.setKeepAlive(true, 10_000);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.handshake?.close());
    this.handshake = authentication
      ? new InboundHandshake(
          authentication.auth,
          nodeId,
          authentication.clock,
          (type, payload) => this.reply(type, 0, payload),
          () => this.close(),
        )
      : null;
  }

  close(): void {
    this.socket.destroy();
  }

  get peerNodeId(): number | undefined {
    return this.peer;
  }

  private receive(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch {
      return this.close();
    }
    for (const frame of frames) {
      if (this.handshake && this.handshake.peer === null) {
        // end, not destroy: the refusal frame is flushed before the socket closes
        if (!this.handshake.onFrame(frame)) return void this.socket.end();
        continue;
      }
      if (frame.type !== FrameType.Request || (this.handshake && frame.from !== this.handshake.peer))
        return this.close();
      this.serve(frame);
    }
  }

  private serve(frame: Frame): void {
    this.peer ??= frame.from;
    const request = frame.payload as RpcRequest;
    if (typeof request !== 'object' || request === null || typeof request.kind !== 'string') {
      return this.reply(FrameType.Error, frame.requestId, { message: 'malformed request' });
    }
    // Only kind and body reach the handler: the envelope may also carry what the sender reads.
    const rpc = { kind: request.kind, body: request.body } as RpcRequest;
    let pending: Promise<unknown> | undefined;
    try {
      pending = this.handle(frame.from, rpc);
    } catch (error) {
      return this.reply(FrameType.Error, frame.requestId, { message: describe(error) });
    }
    if (!pending)
      return this.reply(FrameType.Error, frame.requestId, { message: `node ${this.nodeId} is not serving requests` });
    // A fetch is answered in the fixed layout when the follower sent it so, or said that it reads it.
    const fixedLayout =
      request.kind === 'fetch' &&
      (frame.fixedLayout === true ||
        (request as unknown as Record<string, unknown>)[READS_FIXED_LAYOUT_FETCH] === true);
    pending.then(
      (response) =>
        fixedLayout
          ? this.replyFixedLayout(frame.requestId, response as FetchResponse)
          : this.reply(FrameType.Response, frame.requestId, response),
      (error: unknown) => this.reply(FrameType.Error, frame.requestId, { message: describe(error) }),
    );
  }

  /** A fetch response in the fixed layout; as JSON when the layout cannot carry it. */
  private replyFixedLayout(requestId: number, response: FetchResponse): void {
    if (this.socket.destroyed) return;
    let bytes: Buffer | undefined;
    try {
      bytes = encodeFetchResponseFrame(requestId, this.nodeId, response, this.maxFrameBytes);
    } catch (error) {
      return this.reply(FrameType.Error, requestId, { message: describe(error) });
    }
    if (bytes) this.socket.write(bytes);
    else this.reply(FrameType.Response, requestId, response);
  }

  private reply(type: FrameType, requestId: number, payload: unknown): void {
    if (this.socket.destroyed) return;
    let bytes: Buffer;
    try {
      bytes = encodeFrame(type, requestId, this.nodeId, payload, this.maxFrameBytes);
    } catch (error) {
      bytes = encodeFrame(FrameType.Error, requestId, this.nodeId, { message: describe(error) }, this.maxFrameBytes);
    }
    this.socket.write(bytes);
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
