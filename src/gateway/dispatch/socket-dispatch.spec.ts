import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { IsString, MaxLength } from 'class-validator';
import { Server, type Socket } from 'socket.io';
import { io, type Socket as ClientSocket } from 'socket.io-client';
import { KafkaError } from '@cohort/protocol';
import { WritePacer } from '../write-pacer';
import { type DispatchRow, SocketDispatch } from './socket-dispatch';

class GreetDto {
  @IsString()
  @MaxLength(10)
  name: string;
}

/** socket.io's parser, not the fast lane, reads the packets of a socket with an onAny listener. */
const viaParser = (socket: Socket): void => void socket.onAny(() => undefined);

/**
 * The dispatch over a real socket.io connection, with a table of its own: each event validated against
 * its DTO, answered by its row, failures answered with their Kafka code, the same whichever reader took
 * the packet, and every ack through the write pacer behind the pushes due before it.
 */
describe.each([
  ['the packet fast lane', (): void => undefined],
  ["socket.io's parser", viaParser],
])('SocketDispatch, packets read by %s', (_, prepare: (socket: Socket) => void) => {
  let http: HttpServer;
  let server: Server;
  let client: ClientSocket;
  /** One write a turn, so that a burst waits in the pacer. */
  const pacer = new WritePacer(1);
  const handled: unknown[] = [];

  const table: Record<string, DispatchRow> = {
    Greet: {
      handle: (request: GreetDto) => {
        handled.push(request);
        return { errorCode: 0, hello: request.name };
      },
    },
    Refuse: {
      handle: () => {
        throw KafkaError.of('GROUP_AUTHORIZATION_FAILED', 'not for you');
      },
    },
    PushThenAnswer: {
      handle: (request: GreetDto, socket: Socket) => {
        for (const n of [1, 2, 3]) pacer.write(1, () => socket.emit('Pushed', n));
        return Promise.resolve({ errorCode: 0, hello: request.name });
      },
    },
  };

  beforeAll(async () => {
    http = createServer();
    server = new Server(http);
    const dispatch = new SocketDispatch(table, { Greet: GreetDto, Refuse: GreetDto, PushThenAnswer: GreetDto });
    server.on('connection', (socket: Socket) => {
      prepare(socket);
      // A middleware that answers by itself, as the rate limit does.
      socket.use((packet, next) => {
        const ack = packet[packet.length - 1];
        if ((packet[1] as { name?: string } | undefined)?.name === 'limited' && typeof ack === 'function')
          return void (ack as (answer: unknown) => void)({ errorCode: 89 });
        next();
      });
      dispatch.attach(socket, pacer, undefined);
    });
    await new Promise<void>((done) => http.listen(0, '127.0.0.1', done));
    const { port } = http.address() as AddressInfo;
    client = io(`http://127.0.0.1:${port}`, { transports: ['websocket'], reconnection: false, forceNew: true });
    await new Promise<void>((done, fail) => {
      client.once('connect', () => done());
      client.once('connect_error', fail);
    });
  });

  afterAll(async () => {
    client.disconnect();
    await new Promise<void>((done) => server.close(() => done()));
  });

  beforeEach(() => (handled.length = 0));

  it('answers a valid request with what its row returns, given the DTO’s fields only', async () => {
    const answer = await client.timeout(5000).emitWithAck('Greet', { name: 'ada', extra: 'dropped' });
    expect(answer).toEqual({ errorCode: 0, hello: 'ada' });
    expect(handled).toEqual([{ name: 'ada' }]);
  });

  it('refuses a payload its DTO refuses with 42 naming the field, without calling the row', async () => {
    const answer = await client.timeout(5000).emitWithAck('Greet', { name: 'a name too long' });
    expect(answer).toMatchObject({ errorCode: 42, errorName: 'INVALID_REQUEST' });
    expect((answer as { errorMessage: string }).errorMessage).toContain('name must be shorter than or equal to 10');
    expect(handled).toEqual([]);
  });

  it('answers what the row throws with its Kafka code, and the socket stays', async () => {
    const answer = await client.timeout(5000).emitWithAck('Refuse', { name: 'ada' });
    expect(answer).toMatchObject({ errorCode: 30, errorMessage: 'not for you' });
    expect(client.connected).toBe(true);
  });

  it('sends an answer after the pushes that were due before it, through the write pacer', async () => {
    const order: string[] = [];
    const onPush = (n: number): number => order.push(`push ${n}`);
    client.on('Pushed', onPush);
    const answer = await client.timeout(5000).emitWithAck('PushThenAnswer', { name: 'ada' });
    order.push(`answer ${(answer as { hello: string }).hello}`);
    client.off('Pushed', onPush);
    expect(order).toEqual(['push 1', 'push 2', 'push 3', 'answer ada']);
  });

  it('sends what a socket middleware answers through the write pacer too', async () => {
    const order: string[] = [];
    const onPush = (n: number): number => order.push(`push ${n}`);
    client.on('Pushed', onPush);
    for (const n of [1, 2, 3]) pacer.write(1, () => server.emit('Pushed', n));
    const answer = await client.timeout(5000).emitWithAck('Greet', { name: 'limited' });
    order.push(`answer ${(answer as { errorCode: number }).errorCode}`);
    client.off('Pushed', onPush);
    expect(order).toEqual(['push 1', 'push 2', 'push 3', 'answer 89']);
  });
});
