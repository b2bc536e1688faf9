import WebSocket from 'ws';

/**
 * A websocket to the node's engine.io endpoint driven by hand: the engine.io handshake and the
 * socket.io CONNECT of the default namespace, then any frame. It answers the server's pings so an idle
 * connection stays open, and resolves `ack(id)` when `43<id>[...]` arrives.
 */
export class RawConnection {
  private readonly waiting = new Map<number, (response: unknown) => void>();
  private closedReason: string | null = null;
  private readonly closeListeners: (() => void)[] = [];

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data, isBinary) => {
      if (isBinary) return;
      const text = data.toString();
      if (text === '2') return void ws.send('3');
      const ack = /^43(\d+)(\[.*)$/s.exec(text);
      if (!ack) return;
      const resolve = this.waiting.get(Number(ack[1]));
      this.waiting.delete(Number(ack[1]));
      resolve?.((JSON.parse(ack[2]) as unknown[])[0]);
    });
    ws.on('close', (code) => {
      this.closedReason = `closed (${code})`;
      for (const listener of this.closeListeners.splice(0)) listener();
    });
    ws.on('error', () => undefined); // 'close' follows
  }

  static async open(url: string, timeoutMs: number): Promise<RawConnection> {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/socket.io/?EIO=4&transport=websocket`);
    const connection = new RawConnection(ws);
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
