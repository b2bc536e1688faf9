import type { Clock, TimerHandle } from '../../time/clock';
import { type Frame, FrameType } from './frames';
import {
  bytesOfHex,
  DEFAULT_HANDSHAKE_TIMEOUT_MS,
  handshakeProof,
  NONCE_BYTES,
  type PeerAuthentication,
  sameProof,
} from './peer-authentication';

type Send = (type: FrameType, payload: unknown) => void;

/**
 * The accepting side of the cluster-secret handshake (peer-authentication.ts): challenges at once,
 * then accepts nothing but a valid proof; `peer` is the node id the proof was made for, which every
 * later frame must carry.
 */
export class InboundHandshake {
  private readonly serverNonce: Buffer;
  private readonly timer: TimerHandle;
  peer: number | null = null;

  constructor(
    private readonly auth: PeerAuthentication,
    private readonly nodeId: number,
    clock: Clock,
    private readonly send: Send,
    cut: () => void,
  ) {
    this.serverNonce = auth.randomBytes(NONCE_BYTES);
    send(FrameType.Challenge, { nonce: this.serverNonce.toString('hex') });
    this.timer = clock.schedule(auth.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS, cut);
  }

  /** Takes a frame that arrived before the handshake completed; false: cut the connection. */
  onFrame(frame: Frame): boolean {
    const payload = (frame.payload ?? {}) as { nonce?: unknown; proof?: unknown };
    const clientNonce = frame.type === FrameType.Proof ? bytesOfHex(payload.nonce, NONCE_BYTES) : null;
    if (
      !clientNonce ||
      !sameProof(
        payload.proof,
        handshakeProof(this.auth.secret, 'client', this.serverNonce, clientNonce, frame.from, this.nodeId),
      )
    ) {
      this.send(FrameType.Error, {
        message: `node ${this.nodeId} refused the connection: the cluster secret was not proven`,
      });
      return false;
    }
    this.timer.cancel();
    this.peer = frame.from;
    this.send(FrameType.Accepted, {
      proof: handshakeProof(
        this.auth.secret,
        'server',
        this.serverNonce,
        clientNonce,
        frame.from,
        this.nodeId,
      ).toString('hex'),
    });
    return true;
  }

  close(): void {
    this.timer.cancel();
  }
}

/** The connecting side: answers the challenge and checks that the peer knows the secret too. */
export class OutboundHandshake {
  private readonly clientNonce: Buffer;
  private serverNonce: Buffer | null = null;
  private readonly timer: TimerHandle;
  open = false;

  constructor(
    private readonly auth: PeerAuthentication,
    private readonly fromNodeId: number,
    private readonly toNodeId: number,
    clock: Clock,
    private readonly send: Send,
    fail: (why: string) => void,
  ) {
    this.clientNonce = auth.randomBytes(NONCE_BYTES);
    const timeoutMs = auth.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_TIMEOUT_MS;
    this.timer = clock.schedule(timeoutMs, () =>
      fail(
        `no cluster-secret handshake from node ${toNodeId} within ${timeoutMs} ms (does it have the same CLUSTER_SECRET_FILE?)`,
      ),
    );
  }

  /** Takes a frame that arrived before the handshake completed; a string is why the connection must be cut. */
  onFrame(frame: Frame): string | null {
    const payload = (frame.payload ?? {}) as { nonce?: unknown; proof?: unknown; message?: unknown };
    if (frame.type === FrameType.Error)
      return typeof payload.message === 'string' ? payload.message : `node ${this.toNodeId} refused the connection`;
    if (frame.type === FrameType.Challenge && this.serverNonce === null) {
      this.serverNonce = bytesOfHex(payload.nonce, NONCE_BYTES);
      if (!this.serverNonce) return `node ${this.toNodeId} sent a malformed challenge`;
      const proof = handshakeProof(
        this.auth.secret,
        'client',
        this.serverNonce,
        this.clientNonce,
        this.fromNodeId,
        this.toNodeId,
      );
      this.send(FrameType.Proof, { nonce: this.clientNonce.toString('hex'), proof: proof.toString('hex') });
      return null;
    }
    const expected =
      this.serverNonce &&
      handshakeProof(this.auth.secret, 'server', this.serverNonce, this.clientNonce, this.fromNodeId, this.toNodeId);
    if (frame.type !== FrameType.Accepted || !expected || !sameProof(payload.proof, expected))
      return `node ${this.toNodeId} did not prove the cluster secret`;
    this.timer.cancel();
    this.open = true;
    return null;
  }

  close(): void {
    this.timer.cancel();
  }
}
