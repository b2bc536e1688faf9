import { createServer, type Server as HttpServer } from 'node:http';
import { Server, type Socket } from 'socket.io';
import { RawConnection } from '../fuzz/raw-connection';

// The handshake alone can take seconds on a loaded machine; nothing here asserts a duration.
jest.setTimeout(30_000);

/** Blocks this process's event loop, as a loaded machine's scheduler or a long GC pause does. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    // busy: nothing else in the process runs meanwhile
  }
}

/** A bare socket.io server with the given heartbeat; records engine.io's reason for each close. */
async function serve(heartbeat: { pingInterval: number; pingTimeout: number }, onConnection: (socket: Socket) => void) {
  const http: HttpServer = createServer();
  const io = new Server(http, { ...heartbeat, transports: ['websocket'] });
  const reasons = new Map<string, string>();
  io.engine.on('connection', (conn: { id: string; on(event: 'close', listener: (reason: string) => void): void }) =>
    conn.on('close', (reason) => reasons.set(conn.id, reason)),
  );
  io.on('connection', onConnection);
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(http.address() as { port: number }).port}`;
  return { url, reasons, close: () => new Promise<void>((resolve) => void io.close(() => resolve())) };
}

/**
 * How the fuzzer tells an engine.io ping timeout (the server gave up on a connection while the
 * process stalled) from a server that closed a connection on its own (test/fuzz/README.md).
 */
describe('the fuzzer raw connection (e2e)', () => {
  it('sees a close soon after the handshake as the server’s own, not a ping timeout', async () => {
    const server = await serve({ pingInterval: 20_000, pingTimeout: 10_000 }, (socket) =>
      socket.on('Close me', () => socket.disconnect(true)),
    );
    try {
      const raw = await RawConnection.open(server.url, 10_000);
      raw.send('42["Close me"]');
      expect(await raw.ack(1, 10_000)).toBe('closed');
      expect(server.reasons.get(raw.sid!)).toBe('forced close');
      expect(raw.closeMayBePingTimeout).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('sees a ping timeout while the process stalled as one, with the server’s reason to confirm it', async () => {
    let stalled = false;
    const server = await serve({ pingInterval: 300, pingTimeout: 200 }, (socket) => {
      // Right after the server's first ping (and its timeout timer) the process stalls past pingTimeout:
      // the pong is read only after the timer fired.
      socket.conn.on('packetCreate', (packet: { type: string }) => {
        if (packet.type === 'ping' && !stalled) setImmediate(() => ((stalled = true), stall(500)));
      });
    });
    try {
      const raw = await RawConnection.open(server.url, 10_000);
      expect(await raw.ack(1, 10_000)).toBe('closed');
      expect(server.reasons.get(raw.sid!)).toBe('ping timeout');
      expect(raw.closeMayBePingTimeout).toBe(true);
    } finally {
      await server.close();
    }
  });
});
