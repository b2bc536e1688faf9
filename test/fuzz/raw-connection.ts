import WebSocket from 'ws';

/** engine.io's heartbeat, from its open packet (`0{"sid":...,"pingInterval":...,"pingTimeout":...}`). */
interface Heartbeat {
  sid: string;
  pingInterval: number;
  pingTimeout: number;
}

/**
 * A websocket to the node's engine.io endpoint driven by hand: the engine.io handshake and the
 * socket.io CONNECT of the default namespace, then any frame. It answers the server's pings so an idle
 * connection stays open, and resolves `ack(id)` when `43<id>[...]` arrives.
 */
export class RawConnection {
  private readonly waiting = new Map<number, (response: unknown) => void>();
  private closedReason: string | null = null;
  private closedAt = 0;
  private readonly closeListeners: (() => void)[] = [];
  private heartbeat: Heartbeat | null = null;
  /** When the handshake began, then when each pong went out: the server's ping timer runs from these. */
  private readonly pongs: number[];

  private constructor(
    private readonly ws: WebSocket,
    openedAt: number,
  ) {
    this.pongs = [openedAt];
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      if (text.startsWith('0{')) this.heartbeat ??= parseHeartbeat(text.slice(1));
      if (text === '2') {
        ws.send('3');
        this.pongs.push(Date.now());
        if (this.pongs.length > 2) this.pongs.shift();
        return;
      }
      const ack = /^43(\d+)(\[.*)$/s.exec(text);
      if (!ack) return;
      const resolve = this.waiting.get(Number(ack[1]));
      this.waiting.delete(Number(ack[1]));
      resolve?.((JSON.parse(ack[2]) as unknown[])[0]);
    });
    ws.on('close', (code) => {
      this.closedReason = `closed (${code})`;
      this.closedAt = Date.now();
      for (const listener of this.closeListeners.splice(0)) listener();
    });
    ws.on('error', () => undefined); // 'close' follows
  }

  static async open(url: string, timeoutMs: number): Promise<RawConnection> {
    const openedAt = Date.now();
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
    const connection = new RawConnection(ws, openedAt);
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('raw socket.io handshake timed out')), timeoutMs);
      ws.on('message', (data) => {
        const text = data.toString();
        if (text.startsWith('0')) ws.send('40');
        if (text.startsWith('40')) {
          clearTimeout(timer);
          resolve();
        }
      });
      ws.once('close', () => {
        clearTimeout(timer);
        reject(new Error('closed during the handshake'));
      });
    });
    return connection;
  }

  get closed(): boolean {
    return this.closedReason !== null;
  }

  /** The engine.io session id: what the server's own records of the connection are keyed by. */
  get sid(): string | undefined {
    return this.heartbeat?.sid;
  }

  /** How the close looked from here: the websocket close code (1009: over the server's size limit). */
  get closeDescription(): string {
    return this.closedReason ?? 'open';
  }

  /**
   * Whether the server's close could have been an engine.io ping timeout, judged from this side: the
   * server pings `pingInterval` after the handshake or after the pong it last got, and gives up
   * `pingTimeout` after a ping. So a close before the pong before last (or the handshake) plus both is
   * certainly not one, however late this side was to read the ping. Unknown without an open packet.
   */
  get closeMayBePingTimeout(): boolean {
    if (!this.heartbeat || !this.closed || this.closedReason === 'closed (1009)') return false;
    return this.closedAt >= this.pongs[0] + this.heartbeat.pingInterval + this.heartbeat.pingTimeout;
  }

  send(frame: string | Buffer): void {
    this.ws.send(frame);
  }

  /** The response to ack `id`; 'closed' if the connection closes first, 'timeout' after `timeoutMs`. */
  ack(id: number, timeoutMs: number): Promise<{ response: unknown } | 'closed' | 'timeout'> {
    if (this.closed) return Promise.resolve('closed');
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        resolve('timeout');
      }, timeoutMs);
      this.waiting.set(id, (response) => {
        clearTimeout(timer);
        resolve({ response });
      });
      this.closeListeners.push(() => {
        clearTimeout(timer);
        resolve('closed');
      });
    });
  }

  close(): void {
    this.ws.terminate();
  }
}

function parseHeartbeat(json: string): Heartbeat | null {
  try {
    const open = JSON.parse(json) as Partial<Heartbeat>;
    return typeof open.sid === 'string' && typeof open.pingInterval === 'number' && typeof open.pingTimeout === 'number'
      ? { sid: open.sid, pingInterval: open.pingInterval, pingTimeout: open.pingTimeout }
      : null;
  } catch {
    return null;
  }
}
