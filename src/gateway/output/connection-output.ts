import { type EngineConnection, packetBytes, transportBufferedBytes } from '../socket-io-internals';

/** Redis's `client-output-buffer-limit` for one connection: 0 turns a limit off. */
export interface OutputLimits {
  /** Past this many unsent bytes the connection is closed at once (MAX_SOCKET_OUTPUT_BUFFER_BYTES). */
  hardBytes: number;
  /** Above this many unsent bytes for `softSeconds` without a break, the connection is closed. */
  softBytes: number;
  softSeconds: number;
}

export type OutputLimitKind = 'hard' | 'soft';

/** Time, injected so the soft limit can be tested on a virtual clock. */
export interface OutputClock {
  now(): number;
  setTimeout(fn: () => void, ms: number): { unref?(): unknown };
  clearTimeout(timer: unknown): void;
}

export const REAL_CLOCK: OutputClock = {
  now: () => performance.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (timer) => clearTimeout(timer as NodeJS.Timeout),
};

/**
 * The unsent output of one engine.io connection, held to its limits: the answers and pushes waiting in
 * the WritePacer for it, the packets in engine.io's `writeBuffer` (socket.io's own queue while the
 * transport is busy) and what the websocket has not handed to the TCP socket (`bufferedAmount`).
 *
 * The soft limit is checked just before each addition, and when its time runs out. Between additions the
 * output only shrinks, so the lowest it gets between two additions is what it holds just before the
 * second: sampled there, no dip below the soft limit goes unseen, and "above it for N seconds without a
 * break" is exact.
 */
export class ConnectionOutput {
  private queued = 0;
  private paced = 0;
  private moving = false;
  private softSince: number | null = null;
  private softTimer: unknown = null;
  private closed = false;

  constructor(
    private readonly connection: EngineConnection,
    private readonly limits: OutputLimits,
    private readonly exceeded: (kind: OutputLimitKind, unsentBytes: number) => void,
    private readonly clock: OutputClock = REAL_CLOCK,
  ) {
    connection.on('packetCreate', (packet) => {
      const bytes = packetBytes(packet);
      if (this.moving)
        this.queued += bytes; // from the pacer: already counted
      else this.add(bytes, () => (this.queued += bytes));
    });
    // engine.io hands its whole writeBuffer to the transport: those bytes are now in bufferedAmount.
    connection.on('flush', () => (this.queued = 0));
    connection.once('close', () => this.stop());
  }

  /** MAX_SOCKET_OUTPUT_BUFFER_BYTES: an answer longer than this could never be held for the client (0: off). */
  get hardLimitBytes(): number {
    return this.limits.hardBytes;
  }

  /** Bytes this connection has been given and has not yet sent. */
  unsentBytes(): number {
    return this.paced + this.queued + transportBufferedBytes(this.connection);
  }

  /** An answer of `bytes` waits in the WritePacer for this connection. */
  paceQueued(bytes: number): void {
    this.add(bytes, () => (this.paced += bytes));
  }

  /** The pacer's turn for an answer counted by paceQueued: `write` hands it to engine.io. */
  paceWrite(bytes: number, write: () => void): void {
    this.paced -= bytes;
    this.moving = true;
    try {
      write();
    } finally {
      this.moving = false;
    }
  }

  private add(bytes: number, count: () => void): void {
    if (this.closed) return;
    const { hardBytes, softBytes } = this.limits;
    if (softBytes > 0 && this.softSince !== null && this.unsentBytes() <= softBytes) this.softEnded();
    count();
    const unsent = this.unsentBytes();
    if (hardBytes > 0 && unsent > hardBytes) return this.close('hard', unsent);
    if (softBytes > 0 && unsent > softBytes && this.softSince === null) this.softStarted();
  }

  private softStarted(): void {
    this.softSince = this.clock.now();
    const timer = this.clock.setTimeout(() => this.softDeadline(), this.limits.softSeconds * 1000);
    timer.unref?.();
    this.softTimer = timer;
  }

  private softEnded(): void {
    this.softSince = null;
    this.clock.clearTimeout(this.softTimer);
    this.softTimer = null;
  }

  /** The soft limit's time ran out: still above it (it was above all along, see the class comment) closes. */
  private softDeadline(): void {
    this.softTimer = null;
    const unsent = this.unsentBytes();
    if (this.closed) return;
    if (unsent > this.limits.softBytes) this.close('soft', unsent);
    else this.softSince = null;
  }

  private close(kind: OutputLimitKind, unsent: number): void {
    this.stop();
    this.exceeded(kind, unsent);
  }

  private stop(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.softTimer !== null) this.clock.clearTimeout(this.softTimer);
    this.softTimer = null;
  }
}
