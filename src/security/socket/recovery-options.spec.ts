import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from 'socket.io';
import { io } from 'socket.io-client';
import { withAuthenticatedRecovery } from './recovery-options';

describe('withAuthenticatedRecovery', () => {
  it('leaves options without recovery alone and turns skipMiddlewares off where recovery is on', () => {
    const plain: { maxHttpBufferSize: number; connectionStateRecovery?: object } = { maxHttpBufferSize: 1 };
    expect(withAuthenticatedRecovery(plain)).toBe(plain);
    expect(
      withAuthenticatedRecovery({ connectionStateRecovery: { maxDisconnectionDuration: 5000, skipMiddlewares: true } }),
    ).toEqual({
      connectionStateRecovery: { maxDisconnectionDuration: 5000, skipMiddlewares: false },
    });
  });

  it('a recovered socket.io session runs the handshake middleware again', async () => {
    const http = createServer();
    const server = new Server(
      http,
      withAuthenticatedRecovery({ connectionStateRecovery: { maxDisconnectionDuration: 60_000 } }),
    );
    let handshakes = 0;
    server.use((_socket, next) => {
      handshakes++;
      next();
    });
    // Recovery resumes from the last event's offset: the client must have received one.
    server.on('connection', (socket) => socket.emit('welcome'));
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const client = io(`http://127.0.0.1:${(http.address() as AddressInfo).port}`, {
      transports: ['websocket'],
      reconnectionDelay: 10,
    });
    try {
      await new Promise<void>((resolve) => client.once('welcome', () => resolve()));
      const recovered = new Promise<boolean>((resolve) => client.once('connect', () => resolve(client.recovered)));
      client.io.engine.close(); // a network drop, not a disconnect(): the session may be recovered
      expect(await recovered).toBe(true);
      expect(handshakes).toBe(2);
    } finally {
      client.close();
      server.close();
    }
  });
});
