import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, type Socket } from 'socket.io';
import { withAnswerJson } from '@cohort/protocol';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import { WritePacer } from '../write-pacer';
import { LaneEvents, PacketFastLane } from './packet-fast-lane';

/** Starts `http` on a loopback port and connects a websocket-only socket.io client to it. */
async function listenAndConnect(http: HttpServer): Promise<ClientSocket> {
  await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
  const { port } = http.address() as AddressInfo;
  const client = io(`http://127.0.0.1:${port}`, { transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise<void>((done, fail) => {
    client.once('connect', () => done());
    client.once('connect_error', fail);
  });
  return client;
}

/**
 * The lane must be invisible on the wire: the same request gets byte-for-byte the same engine.io packets
 * whether the lane answered it or socket.io did, the socket's middlewares still run first, and whatever
 * the lane does not take (binary payloads, no ack, other events) still reaches socket.io's listeners.
 */
describe('PacketFastLane', () => {
  let http: HttpServer;
  let server: Server;
  let client: ClientSocket;
  /** Which path answered each request: 'lane' or 'socket.io'. */
  const paths: string[] = [];
  /** The events each middleware run saw, in order. */
  const seen: string[] = [];
  /** The message packets the client received, as engine.io hands them over. */
  const received: string[] = [];

  const answer = (args: unknown[]): unknown => {
    const response = { errorCode: 0, got: args.filter((a) => typeof a !== 'function'), text: 'é✓ "quoted" \u2028' };
    // A request asking for it gets an answer that carries its JSON already (a steady heartbeat's).
    return (args[0] as { kept?: boolean } | undefined)?.kept ? withAnswerJson(response) : response;
  };

  beforeAll(async () => {
    http = createServer();
    server = new Server(http);
    server.on('connection', (socket: Socket) => {
      socket.use((packet, next) => {
        seen.push(String(packet[0]));
        const ack = packet[packet.length - 1];
        if ((packet[1] as { refuse?: boolean } | undefined)?.refuse && typeof ack === 'function')
          return void ack({ errorCode: 58 });
        next();
      });
      const listen = (via: string) => (args: unknown[]) => {
        paths.push(via);
        const ack = args[args.length - 1];
        if (typeof ack === 'function') (ack as (r: unknown) => void)(answer(args));
      };
      for (const event of ['Heartbeat', 'Plain']) socket.on(event, (...args: unknown[]) => listen('socket.io')(args));
      PacketFastLane.of(socket, new LaneEvents().add('Heartbeat', listen('lane')));
    });
    client = await listenAndConnect(http);
    client.io.engine.on('packet', (packet: { type: string; data?: unknown }) => {
      if (packet.type === 'message' && typeof packet.data === 'string') received.push(packet.data);
    });
  });

  afterAll(async () => {
    client.disconnect();
    await new Promise<void>((done) => server.close(() => done()));
  });

  beforeEach(() => {
    paths.length = 0;
    seen.length = 0;
    received.length = 0;
  });

  /** The raw ack packet without its id, which differs between two requests. */
  const withoutId = (packet: string): string => packet.replace(/^3\d+/, '3');

  it.each([
    ['a small answer', { groupId: 'g' }],
    ['an answer over 125 bytes', { groupId: 'g'.repeat(200) }],
    ['an answer over 64 KiB', { groupId: 'g'.repeat(70_000) }],
    ['an answer that carries its JSON', { groupId: 'g', kept: true }],
    ['an answer over 125 bytes that carries its JSON', { groupId: 'g'.repeat(200), kept: true }],
  ])('answers %s with the same packet socket.io sends', async (_, payload) => {
    const viaLane = await client.timeout(5000).emitWithAck('Heartbeat', payload);
    const viaSocketIo = await client.timeout(5000).emitWithAck('Plain', payload);
    expect(viaLane).toEqual(viaSocketIo);
    expect(paths).toEqual(['lane', 'socket.io']);
    expect(received).toHaveLength(2);
    expect(withoutId(received[0])).toBe(withoutId(received[1]));
  });

  it('passes several arguments as socket.io does', async () => {
    const viaLane = await client.timeout(5000).emitWithAck('Heartbeat', { a: 1 }, [2], 'three');
    const viaSocketIo = await client.timeout(5000).emitWithAck('Plain', { a: 1 }, [2], 'three');
    expect(viaLane).toEqual(viaSocketIo);
    expect(paths).toEqual(['lane', 'socket.io']);
  });

  it('runs the socket middlewares first, and a middleware that answers stops the request', async () => {
    const refused = await client.timeout(5000).emitWithAck('Heartbeat', { refuse: true });
    expect(refused).toEqual({ errorCode: 58 });
    expect(seen).toEqual(['Heartbeat']);
    expect(paths).toEqual([]);
  });

  it('leaves binary payloads and requests without an ack to socket.io', async () => {
    const binary = await client.timeout(5000).emitWithAck('Heartbeat', { data: Buffer.from([1, 2, 3]) });
    expect(binary).toMatchObject({ errorCode: 0 });
    client.emit('Heartbeat', { groupId: 'no-ack' });
    await client.timeout(5000).emitWithAck('Heartbeat', { groupId: 'after' });
    // The lane answers at once; socket.io a tick later, so the last two may run in either order.
    expect(paths[0]).toBe('socket.io');
    expect([...paths].sort()).toEqual(['lane', 'socket.io', 'socket.io']);
  });
});

/**
 * A burst of answers larger than a turn's writes is spread over turns by the pacer, and a push sent
 * through the same pacer after them still arrives after them: a member never sees a rebalance push
 * before the answer that was due first.
 */
describe('PacketFastLane through a WritePacer', () => {
  let http: HttpServer;
  let server: Server;
  let client: ClientSocket;
  const pacer = new WritePacer(2);
  let backlogAfterRelease = -1;

  beforeAll(async () => {
    http = createServer();
    server = new Server(http);
    server.on('connection', (socket: Socket) => {
      const parked: ((response: unknown) => void)[] = [];
      const events = new LaneEvents()
        .add('Park', (args) => parked.push(args[args.length - 1] as (response: unknown) => void))
        .add('Release', (args) => {
          parked.forEach((ack, i) => ack({ errorCode: 0, parked: i }));
          pacer.write(1, () => socket.emit('Pushed', { after: parked.length }));
          (args[args.length - 1] as (response: unknown) => void)({ errorCode: 0, released: parked.length });
          backlogAfterRelease = pacer.backlog;
        });
      PacketFastLane.of(socket, events, pacer);
    });
    client = await listenAndConnect(http);
  });

  afterAll(async () => {
    client.disconnect();
    await new Promise<void>((done) => server.close(() => done()));
  });

  it('writes the answers and the push in the order they were due, over several turns', async () => {
    const order: string[] = [];
    client.on('Pushed', () => order.push('push'));
    const parks = [0, 1, 2, 3].map((i) =>
      client
        .timeout(5000)
        .emitWithAck('Park', { i })
        .then((r: { parked: number }) => order.push(`park ${r.parked}`)),
    );
    const released = client
      .timeout(5000)
      .emitWithAck('Release', {})
      .then((r: { released: number }) => order.push(`release ${r.released}`));
    await Promise.all([...parks, released]);
    await new Promise((done) => setTimeout(done, 50)); // the push is not acknowledged: give it time to arrive if it was sent late
    expect(order).toEqual(['park 0', 'park 1', 'park 2', 'park 3', 'push', 'release 4']);
    // Two writes per turn: of the six due at once, four were still waiting when the handler returned.
    expect(backlogAfterRelease).toBe(4);
  });
});
