import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { WebSocket } from 'ws';
import { ConnectionOutput } from './connection-output';
import { closeDiscarding, type EngineConnection, transportBufferedBytes } from './engine-output';

const MIB = 1024 * 1024;

/**
 * Pins what engine-output.ts relies on in engine.io, ws and socket.io, against the real libraries: a raw
 * websocket client that completes the socket.io handshake and then stops reading its TCP socket.
 */
describe('engine.io output, as the output limit reads it', () => {
  let http: HttpServer;
  let io: Server;
  let client: WebSocket;
  let socket: Socket;
  let connection: EngineConnection;

  beforeEach(async () => {
    http = createServer();
    io = new Server(http, { transports: ['websocket'] });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const connected = new Promise<Socket>((resolve) => io.on('connection', resolve));
    const { port } = http.address() as AddressInfo;
    client = new WebSocket(`ws://127.0.0.1:${port}/socket.io/?EIO=4&transport=websocket`);
    client.on('message', (message: Buffer) => {
      if (message.toString().startsWith('0')) client.send('40');
    });
    client.on('error', () => undefined);
    socket = await connected;
    connection = socket.conn as unknown as EngineConnection;
  });

  afterEach(async () => {
    client.terminate();
    await io.close();
  });

  it('announces every packet before it is queued and flushes the queue into the websocket, where unread bytes stay counted', async () => {
    const output = new ConnectionOutput(connection, { hardBytes: 0, softBytes: 0, softSeconds: 1 }, () => undefined);
    const announced: number[] = [];
    connection.on('packetCreate', (packet) => announced.push(String(packet.data).length));
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    const answer = 'a'.repeat(MIB);
    for (let i = 0; i < 40; i++) socket.emit('answer', answer);
    expect(announced).toHaveLength(40);
    expect(announced[0]).toBeGreaterThan(MIB);
    // The kernel's buffers on both sides of loopback take a few MiB at most; the rest is the node's to hold.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(output.unsentBytes()).toBeGreaterThan(20 * MIB);
    expect(transportBufferedBytes(connection)).toBeGreaterThan(0);
  });

  it('takes no more packets once closing, drops what was unsent, and tells socket.io on the next tick, not inside the write', async () => {
    (client as unknown as { _socket: { pause(): void } })._socket.pause();
    for (let i = 0; i < 20; i++) socket.emit('answer', 'a'.repeat(MIB));
    const announced: unknown[] = [];
    connection.on('packetCreate', (packet) => announced.push(packet));
    let disconnected: string | null = null;
    socket.on('disconnect', (reason) => (disconnected = reason));

    closeDiscarding(connection);
    expect(disconnected).toBeNull();
    socket.emit('answer', 'after the close');
    expect(announced).toEqual([]);
    expect(transportBufferedBytes(connection)).toBe(0);
    await new Promise((resolve) => process.nextTick(resolve));
    expect(disconnected).toBe('forced close');
    expect(socket.connected).toBe(false);
  });
});
