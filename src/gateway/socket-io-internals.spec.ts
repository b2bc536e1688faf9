import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import type { Server as ServerType, Socket } from 'socket.io';
import { WebSocket } from 'ws';
import { ConnectionOutput } from './output/connection-output';
import {
  closeDiscarding,
  type EngineConnection,
  eventPacket,
  interceptPackets,
  mayTakePacket,
  partialInputOf,
  runMiddlewares,
  transportBufferedBytes,
  wrapAcks,
  writeEncodedPacket,
} from './socket-io-internals';

const MIB = 1024 * 1024;

/** The socket.io the app runs: the copy @nestjs/platform-socket.io bundles, whose IoAdapter makes the server. */
const { Server } = createRequire(require.resolve('@nestjs/platform-socket.io'))('socket.io') as {
  Server: typeof ServerType;
};

/**
 * Pins what socket-io-internals.ts relies on in socket.io, engine.io and ws, against the real libraries,
 * with a raw websocket client that completes the socket.io handshake and then writes packets by hand
 * (or stops reading its TCP socket).
 */
// Tens of MiB go through socket.io's encoder and ws's framing: seconds on a loaded CI machine, past Jest's default 5.
const MIB_TEST_TIMEOUT_MS = 60_000;

describe('socket.io internals the gateway relies on', () => {
  let http: HttpServer;
  let io: ServerType;
  let client: WebSocket;
  let socket: Socket;
  let connection: EngineConnection;
  /** The socket.io packets the client received (engine.io's message type `4` removed). */
  let received: string[];

  /** Resolves with the first packet received that starts with `prefix`. */
  const packet = async (prefix: string): Promise<string> => {
    for (let i = 0; i < 250; i++) {
      const found = received.find((p) => p.startsWith(prefix));
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no packet starting with ${prefix}; received ${JSON.stringify(received)}`);
  };

  beforeEach(async () => {
    received = [];
    http = createServer();
    io = new Server(http, { transports: ['websocket'] });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const connected = new Promise<Socket>((resolve) => io.on('connection', resolve));
    const { port } = http.address() as AddressInfo;
    client = new WebSocket(`ws://127.0.0.1:${port}/socket.io/?EIO=4&transport=websocket`);
    client.on('message', (message: Buffer) => {
      const text = message.toString();
      if (text.startsWith('0')) client.send('40');
      else if (text.startsWith('4')) received.push(text.slice(1));
    });
    client.on('error', () => undefined);
    socket = await connected;
    connection = socket.conn as unknown as EngineConnection;
  });

  afterEach(async () => {
    client.terminate();
    await io.close();
  });

  it(
    'announces every packet before it is queued and flushes the queue into the websocket, where unread bytes stay counted',
    async () => {
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
    },
    MIB_TEST_TIMEOUT_MS,
  );

  it(
    'takes no more packets once closing, drops what was unsent, and tells socket.io on the next tick, not inside the write',
    async () => {
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
    },
    MIB_TEST_TIMEOUT_MS,
  );

  it(
    'counts what ws holds of a frame whose payload is still arriving, read after ws took each chunk',
    async () => {
      const input = partialInputOf(connection)!;
      expect(input).not.toBeNull();
      const heldAfterChunks: number[] = [];
      input.tcp.on('data', () => heldAfterChunks.push(input.held()));
      // One text frame of exactly 1,000,000 bytes (socket.io's default limit), masked with zeros, sent by hand.
      const payload = Buffer.from(`42["big","${'a'.repeat(1_000_000 - 12)}"]`);
      const header = Buffer.from([0x81, 0xff, 0, 0, 0, 0, 0, 0x0f, 0x42, 0x40, 0, 0, 0, 0]);
      const raw = (client as unknown as { _socket: { write(data: Buffer): void } })._socket;
      raw.write(Buffer.concat([header, payload.subarray(0, 300_000)]));
      for (let i = 0; i < 250 && input.held() < 300_000; i++) await new Promise((resolve) => setTimeout(resolve, 20));
      expect(input.held()).toBe(300_000);
      expect(heldAfterChunks[heldAfterChunks.length - 1]).toBe(300_000);
      const arrived = new Promise<string>((resolve) => socket.on('big', resolve));
      raw.write(payload.subarray(300_000));
      expect((await arrived).length).toBe(1_000_000 - 12);
      expect(input.held()).toBe(0);
      expect(heldAfterChunks[heldAfterChunks.length - 1]).toBe(0);
    },
    MIB_TEST_TIMEOUT_MS,
  );

  it('encodes an event packet written as one pre-encoded frame as socket.io encodes the same emit', async () => {
    const push = { groupId: 'g', memberEpoch: 3, reason: 'target assignment changed', note: 'é "quoted"' };
    socket.emit('HeartbeatNow', push);
    const emitted = await packet('2');
    received.length = 0;
    writeEncodedPacket(connection, eventPacket('HeartbeatNow', push));
    expect(await packet('2')).toBe(emitted);
    expect(emitted).toBe(eventPacket('HeartbeatNow', push));
  });

  it('makes the ack of every event packet with an ack id through socket.ack, which wrapAcks wraps', async () => {
    wrapAcks(
      socket,
      (ack) =>
        (...args) =>
          ack({ wrapped: args }),
    );
    socket.on('Ask', (_payload: unknown, ack: (answer: unknown) => void) => ack('answer'));
    client.send('427["Ask",{}]'); // engine.io message (4), socket.io EVENT (2) with ack id 7
    expect(await packet('37')).toBe('37[{"wrapped":["answer"]}]');
  });

  it('gives intercepted data to socket.io only when the interceptor does not take it', async () => {
    const taken: unknown[] = [];
    const heard: string[] = [];
    expect(interceptPackets(socket, (data) => String(data).includes('Taken') && taken.push(data) > 0)).toBe(true);
    for (const event of ['Taken', 'Other']) socket.on(event, () => heard.push(event));
    client.send('42["Taken",{}]');
    client.send('42["Other",{}]');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(taken).toEqual(['2["Taken",{}]']); // the data of engine.io's message packet
    expect(heard).toEqual(['Other']);
  });

  it('may take a packet only when no binary packet waits for its attachments, no onAny listener listens, and the socket is connected', async () => {
    expect(mayTakePacket(socket)).toBe(true);
    client.send('451-["Binary",{"_placeholder":true,"num":0}]'); // BINARY_EVENT (5) with one attachment
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(mayTakePacket(socket)).toBe(false);
    const heard = new Promise((resolve) => socket.on('Binary', resolve));
    client.send(Buffer.from([1, 2, 3]));
    expect(await heard).toEqual(Buffer.from([1, 2, 3]));
    expect(mayTakePacket(socket)).toBe(true);
    const listener = (): void => undefined;
    socket.onAny(listener);
    expect(mayTakePacket(socket)).toBe(false);
    socket.offAny(listener);
    expect(mayTakePacket(socket)).toBe(true);
    socket.disconnect();
    expect(mayTakePacket(socket)).toBe(false);
  });

  it('runs the socket middlewares in order, and a middleware’s error reaches the socket’s error listeners', () => {
    const seen: string[] = [];
    socket.use((event, next) => (seen.push(`first ${String(event[0])}`), next()));
    socket.use((event, next) => (seen.push(`second ${String(event[0])}`), next()));
    let done = false;
    runMiddlewares(socket, ['E', {}], () => (done = true));
    expect(seen).toEqual(['first E', 'second E']);
    expect(done).toBe(true);
    const errors: string[] = [];
    socket.on('error', (error: Error) => errors.push(error.message));
    socket.use((_event, next) => next(new Error('refused')));
    done = false;
    runMiddlewares(socket, ['E', {}], () => (done = true));
    expect(done).toBe(false);
    expect(errors).toEqual(['refused']);
  });
});
