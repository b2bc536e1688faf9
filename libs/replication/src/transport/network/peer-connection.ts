import { connect, type Socket } from 'node:net';
import type { Clock, TimerHandle } from '../../time/clock';
import { TransportError } from '../transport.port';
import type { FetchRequest } from '../messages';
import {
  encodeFetchRequestFrame,
  encodeFrame,
  FrameReader,
  FrameType,
  type Frame,
  READS_FIXED_LAYOUT_FETCH,
} from './frames';
import type { PeerAuthentication } from './peer-authentication';
import { OutboundHandshake } from './peer-handshake';
import type { PeerEndpoint } from './peer-endpoint';

interface Pending {
  resolve(value: unknown): void;
  reject(error: TransportError): void;
  timer: TimerHandle;
}

/**
 * The outgoing connection to one peer: many requests in flight at once on one socket, matched to
 * responses by id. Nothing is ever resent (at most once). When the socket fails or closes, every
 * request in flight fails with UNREACHABLE and the connection is done; the transport opens a new one
 * for the next request. With a cluster secret, requests wait (under their own timeouts) until both
 * sides proved it; a peer that cannot fails them with UNREACHABLE and the reason.
 */
export class PeerConnection {
  private readonly socket: Socket;
  private readonly reader: FrameReader;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private connected = false;
  private done = false;
  private readonly handshake: OutboundHandshake | null;
  /** Request frames written once the handshake completes. */
  private queued: Buffer[] = [];
  /**
   * The peer answered a fetch in the fixed layout, so it reads fetches in it too. Until then fetches go
   * as JSON, saying that this node reads the fixed layout: a peer of an older version ignores that.
   */
  private peerReadsFixedLayout = false;

  constructor(
    private readonly fromNodeId: number,
    private readonly toNodeId: number,
    endpoint: PeerEndpoint,
    private readonly clock: Clock,
    private readonly maxFrameBytes: number,
    private readonly onDone: (connection: PeerConnection) => void,
    auth?: PeerAuthentication,
  ) {
    this.reader = new FrameReader(maxFrameBytes);
    this.socket = connect({ host: endpoint.host, port: endpoint.port, noDelay: true });
    this.socket.setKeepAlive(true, 10_000);
    this.socket.on('connect', () => void (this.connected = true));
    this.socket.on('data', (chunk: Buffer) => this.receive(chunk));
    this.socket.on('error', (error) => this.fail(error.message));
    this.socket.on('close', () => this.fail('connection closed by the peer'));
    this.handshake = auth
      ? new OutboundHandshake(
          auth,
          fromNodeId,
          toNodeId,
          clock,
          (type, payload) => this.write(encodeFrame(type, 0, fromNodeId, payload, maxFrameBytes)),
          (why) => this.close('UNREACHABLE', why),
        )
      : null;
  }

  get isDone(): boolean {
    return this.done;
  }

  request(kind: string, body: unknown, timeoutMs: number): Promise<unknown> {
    if (this.done)
      return Promise.reject(new TransportError('UNREACHABLE', `connection to node ${this.toNodeId} is closed`));
    const id = (this.nextId = (this.nextId + 1) >>> 0);
    let frame: Buffer;
    try {
      frame = this.encodeRequest(id, kind, body);
    } catch (error) {
      return Promise.reject(
        new TransportError('REMOTE_FAILURE', `${kind} to node ${this.toNodeId} not sent: ${(error as Error).message}`),
      );
    }
    return new Promise((resolve, reject) => {
      const timer = this.clock.schedule(timeoutMs, () => {
        if (this.pending.delete(id))
          reject(new TransportError('TIMEOUT', `${kind} to node ${this.toNodeId} timed out after ${timeoutMs} ms`));
      });
      this.pending.set(id, { resolve, reject, timer });
      if (this.handshake && !this.handshake.open) this.queued.push(frame);
      else this.write(frame);
    });
  }

  private encodeRequest(id: number, kind: string, body: unknown): Buffer {
    if (kind !== 'fetch')
      return encodeFrame(FrameType.Request, id, this.fromNodeId, { kind, body }, this.maxFrameBytes);
    const fixed = this.peerReadsFixedLayout
      ? encodeFetchRequestFrame(id, this.fromNodeId, body as FetchRequest, this.maxFrameBytes)
      : undefined;
    return (
      fixed ??
      encodeFrame(
        FrameType.Request,
        id,
        this.fromNodeId,
        { kind, body, [READS_FIXED_LAYOUT_FETCH]: true },
        this.maxFrameBytes,
      )
    );
  }

  /** Fails every request in flight with `reason` and closes the socket. */
  close(reason: 'CLOSED' | 'UNREACHABLE', message: string): void {
    this.finish(reason, message);
    this.socket.destroy();
  }

  private receive(chunk: Buffer): void {
    let frames: Frame[];
    try {
      frames = this.reader.push(chunk);
    } catch (error) {
      return this.close('UNREACHABLE', `protocol error from node ${this.toNodeId}: ${(error as Error).message}`);
    }
    for (const frame of frames) {
      if (this.handshake && !this.handshake.open) {
        const refused = this.handshake.onFrame(frame);
        if (refused !== null) return this.close('UNREACHABLE', refused);
        if (this.handshake.open) for (const queued of this.queued.splice(0)) this.write(queued);
        continue;
      }
      if (frame.fixedLayout) this.peerReadsFixedLayout = true;
      const waiter = this.pending.get(frame.requestId);
      if (!waiter) continue; // timed out meanwhile: the late response is dropped
      this.pending.delete(frame.requestId);
      waiter.timer.cancel();
      if (frame.type === FrameType.Response) waiter.resolve(frame.payload);
      else waiter.reject(new TransportError('REMOTE_FAILURE', `node ${this.toNodeId}: ${errorMessage(frame.payload)}`));
    }
  }

  private write(frame: Buffer): void {
    if (!this.socket.destroyed) this.socket.write(frame);
  }

  private fail(cause: string): void {
    const what = this.connected ? 'lost the connection to' : 'cannot connect to';
    this.finish('UNREACHABLE', `${what} node ${this.toNodeId}: ${cause}`);
  }

  private finish(reason: 'CLOSED' | 'UNREACHABLE', message: string): void {
    if (!this.done) {
      this.done = true;
      this.handshake?.close();
      this.queued = [];
      this.onDone(this);
    }
    for (const [id, waiter] of this.pending) {
      this.pending.delete(id);
      waiter.timer.cancel();
      waiter.reject(new TransportError(reason, message));
    }
  }
}

function errorMessage(payload: unknown): string {
  const message = (payload as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : 'request failed';
}
