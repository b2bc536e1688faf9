import { randomBytes } from 'node:crypto';
import { connect, createServer } from 'node:net';
import { RealClock } from '../../time/real-clock';
import type { FetchResponse, RpcRequest } from '../messages';
import { TransportError, type PeerAddress, type RpcHandler } from '../transport.port';
import { encodeFrame, type Frame, FrameReader, FrameType } from './frames';
import { NetworkTransport } from './network-transport';

// Two (or three) transports in this process on free loopback ports: the real sockets, frames and
// timeouts, with the failures a replica meets — peer down, connection cut mid-request, no answer,
// the peer coming back.

const clock = new RealClock();
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const open: NetworkTransport[] = [];

async function serving(nodeId: number, handler?: RpcHandler, port = 0): Promise<NetworkTransport> {
  const t = await NetworkTransport.start({ nodeId, clock, listen: { host: '127.0.0.1', port } });
  if (handler) t.listen(handler);
  open.push(t);
  return t;
}

async function client(nodeId = 2): Promise<NetworkTransport> {
  const t = await NetworkTransport.start({ nodeId, clock });
  open.push(t);
  return t;
}

const peer = (t: NetworkTransport): PeerAddress => ({ nodeId: t.nodeId, endpoint: t.endpoint });

function fetchBody(maxWaitMs = 0) {
  return {
    replicaId: 2,
    replicaEpoch: 5,
    maxWaitMs,
    partitions: [
      { partition: 0, currentLeaderEpoch: 1, fetchOffset: 0, lastFetchedEpoch: -1, logStartOffset: 0, maxRecords: 10 },
    ],
  };
}

function response(tag: number): FetchResponse {
  return {
    errorCode: 0,
    partitions: [{ partition: 0, errorCode: 0, highWatermark: tag, logStartOffset: 0, logEndOffset: tag, batches: [] }],
  };
}

function reasonOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'resolved',
    (e: unknown) => (e instanceof TransportError ? e.reason : `not a TransportError: ${String(e)}`),
  );
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

/** A TCP server on a free loopback port; `onFrame` gets each frame a client sends and may answer on its socket. */
async function rawPeer(
  onFrame: (frame: Frame, answer: (bytes: Buffer) => void) => void,
): Promise<{ endpoint: string; close: () => void }> {
  const server = createServer((socket) => {
    const reader = new FrameReader(1 << 20);
    socket.on('error', () => socket.destroy());
    socket.on('data', (chunk) => reader.push(chunk).forEach((frame) => onFrame(frame, (bytes) => socket.write(bytes))));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { endpoint: `tcp://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => server.close() };
}

/** The frames of every response `leader` sends to a client that writes `requests`, in order. */
async function responsesTo(leader: NetworkTransport, requests: Buffer[]): Promise<Frame[]> {
  const socket = connect(leader.address.port, '127.0.0.1');
  const reader = new FrameReader(1 << 20);
  const frames: Frame[] = [];
  await new Promise<void>((resolve, reject) => {
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      frames.push(...reader.push(chunk));
      if (frames.length === requests.length) resolve();
    });
    requests.forEach((r) => socket.write(r));
  });
  socket.destroy();
  return frames;
}

describe('NetworkTransport', () => {
  it('delivers requests and responses between processes byte-exactly, naming the sender', async () => {
    const records = Array.from({ length: 50 }, (_, i) => ({
      key: randomBytes(30),
      value: i % 7 ? randomBytes(1000) : null,
      timestamp: 1_700_000_000_000 + i,
      offset: 100 + i,
      leaderEpoch: 4,
    }));
    const answer: FetchResponse = {
      errorCode: 0,
      partitions: [
        {
          partition: 7,
          errorCode: 0,
          highWatermark: 120,
          logStartOffset: 0,
          logEndOffset: 150,
          divergingEpoch: { epoch: 3, endOffset: 99 },
          batches: [{ baseOffset: 100, leaderEpoch: 4, records }],
        },
      ],
    };
    const seen: Array<{ from: number; request: RpcRequest }> = [];
    const leader = await serving(1, async (from, request) => {
      seen.push({ from, request });
      return request.kind === 'fetch' ? answer : { errorCode: 0 };
    });
    const follower = await client(2);
    expect(await follower.send(peer(leader), 'fetch', fetchBody(), 5_000)).toEqual(answer);
    const alter = {
      nodeId: 2,
      nodeEpoch: 9,
      partition: 7,
      leaderEpoch: 4,
      partitionEpoch: 11,
      newIsr: [{ nodeId: 1, nodeEpoch: 3 }],
      leaderRecoveryState: 'RECOVERED' as const,
    };
    expect(await follower.send(peer(leader), 'alterPartition', alter, 5_000)).toEqual({ errorCode: 0 });
    expect(seen).toEqual([
      { from: 2, request: { kind: 'fetch', body: fetchBody() } },
      { from: 2, request: { kind: 'alterPartition', body: alter } },
    ]);
  });

  it('answers each request when it is ready: a held long-poll does not delay the others', async () => {
    let releaseHeld!: () => void;
    const held = new Promise<void>((resolve) => (releaseHeld = resolve));
    const leader = await serving(1, async (_from, request) => {
      if (request.kind === 'fetch' && request.body.maxWaitMs > 0) await held; // released only once the others were answered
      return response(request.kind === 'fetch' ? request.body.maxWaitMs : -1);
    });
    const follower = await client();
    const order: number[] = [];
    const first = follower
      .send(peer(leader), 'fetch', fetchBody(400), 5_000)
      .then((r) => order.push(r.partitions[0].highWatermark));
    await Promise.all(
      [1, 2, 3].map(() =>
        follower
          .send(peer(leader), 'fetch', fetchBody(0), 5_000)
          .then((r) => order.push(r.partitions[0].highWatermark)),
      ),
    );
    releaseHeld();
    await first;
    expect(order).toEqual([0, 0, 0, 400]);
  });

  it('fails fast with UNREACHABLE when nobody listens at the peer endpoint', async () => {
    const gone = await serving(1);
    const endpoint = gone.endpoint;
    await gone.close();
    const follower = await client();
    expect(await reasonOf(follower.send({ nodeId: 1, endpoint }, 'fetch', fetchBody(), 10_000))).toBe('UNREACHABLE');
    expect(
      await reasonOf(follower.send({ nodeId: 1, endpoint: 'not an endpoint' }, 'fetch', fetchBody(), 10_000)),
    ).toBe('UNREACHABLE');
  });

  it('times out a request that gets no answer, and drops the answer when it comes late', async () => {
    let releaseLate!: () => void;
    const late = new Promise<void>((resolve) => (releaseLate = resolve));
    let lateSent!: Promise<ReturnType<typeof response>>;
    let calls = 0;
    const leader = await serving(1, (_from, _request) => {
      if (++calls === 1) return (lateSent = late.then(() => response(600)));
      // Answered after the late reply: on the one connection the late frame comes first and must be dropped.
      return lateSent.then(() => response(0));
    });
    const follower = await client();
    expect(await reasonOf(follower.send(peer(leader), 'fetch', fetchBody(), 100))).toBe('TIMEOUT');
    releaseLate();
    expect(await follower.send(peer(leader), 'fetch', fetchBody(), 2_000)).toEqual(response(0));
  });

  it('fails requests in flight with UNREACHABLE when the connection drops, and never resends them', async () => {
    let handled = 0;
    const leader = await serving(1, () => {
      handled++;
      return new Promise(() => undefined); // held until the connection goes
    });
    const port = leader.address.port;
    const follower = await client();
    const inFlight = reasonOf(follower.send(peer(leader), 'fetch', fetchBody(), 30_000));
    while (handled === 0) await sleep(5);
    await leader.close();
    expect(await inFlight).toBe('UNREACHABLE');

    // The peer comes back on the same address: the next request opens a new connection.
    const restarted = await serving(
      1,
      async () => {
        handled++;
        return response(1);
      },
      port,
    );
    expect(await follower.send(peer(restarted), 'fetch', fetchBody(), 5_000)).toEqual(response(1));
    expect(handled).toBe(2);
  });

  it('reports a failing or absent handler as REMOTE_FAILURE with its message', async () => {
    const failing = await serving(1, async () => {
      throw new Error('disk on fire');
    });
    const silent = await serving(3);
    const follower = await client();
    const error = await follower
      .send(peer(failing), 'fetch', fetchBody(), 5_000)
      .catch((e: unknown) => e as TransportError);
    expect(error).toBeInstanceOf(TransportError);
    expect(error).toMatchObject({ reason: 'REMOTE_FAILURE', message: expect.stringContaining('disk on fire') });
    expect(await reasonOf(follower.send(peer(silent), 'fetch', fetchBody(), 5_000))).toBe('REMOTE_FAILURE');
  });

  it('fails its own requests in flight with CLOSED when closed, and refuses new ones', async () => {
    let arrived = false;
    const leader = await serving(1, () => {
      arrived = true;
      return new Promise(() => undefined);
    });
    const follower = await client();
    const inFlight = reasonOf(follower.send(peer(leader), 'fetch', fetchBody(), 30_000));
    while (!arrived) await sleep(5); // the request is in flight at the peer
    await follower.close();
    expect(await inFlight).toBe('CLOSED');
    expect(await reasonOf(follower.send(peer(leader), 'fetch', fetchBody(), 1_000))).toBe('CLOSED');
  });

  it('follows a peer to its new endpoint after it registered again elsewhere', async () => {
    const first = await serving(1, async () => response(1));
    const second = await serving(1, async () => response(2));
    const follower = await client();
    expect(await follower.send(peer(first), 'fetch', fetchBody(), 5_000)).toEqual(response(1));
    expect(await follower.send(peer(second), 'fetch', fetchBody(), 5_000)).toEqual(response(2));
  });

  it('cuts off a connection that does not speak the protocol and keeps serving everyone else', async () => {
    const leader = await serving(1, async () => response(3));
    const junk = connect(leader.address.port, '127.0.0.1');
    const closed = new Promise<void>((resolve) => junk.on('close', () => resolve()));
    junk.on('error', () => undefined);
    junk.write('GET / HTTP/1.1\r\nHost: x\r\n\r\n');
    await closed;
    const follower = await client();
    expect(await follower.send(peer(leader), 'fetch', fetchBody(), 5_000)).toEqual(response(3));
  });

  it('fails requests with UNREACHABLE when the peer answers with garbage', async () => {
    const fake = createServer((socket) =>
      socket.on('data', () => socket.write(Buffer.from([0xff, 0xff, 0xff, 0xff, 1, 2, 3]))),
    );
    await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
    try {
      const follower = await client();
      const endpoint = `tcp://127.0.0.1:${(fake.address() as { port: number }).port}`;
      expect(await reasonOf(follower.send({ nodeId: 1, endpoint }, 'fetch', fetchBody(), 5_000))).toBe('UNREACHABLE');
    } finally {
      fake.close();
    }
  });

  describe('fetches in the fixed layout, negotiated per connection', () => {
    it('sends fetches as JSON until the leader answers one in the fixed layout, then sends them so too', async () => {
      const leader = await serving(1, async () => response(7));
      // A pipe between the two that reads a copy of what the follower sends.
      const seen: boolean[] = [];
      const proxy = createServer((socket) => {
        const upstream = connect(leader.address.port, '127.0.0.1');
        const reader = new FrameReader(1 << 20);
        socket.on('data', (chunk) => {
          reader.push(chunk).forEach((frame) => seen.push(frame.fixedLayout ?? false));
          upstream.write(chunk);
        });
        upstream.on('data', (chunk) => socket.write(chunk));
        socket.on('close', () => upstream.destroy());
        upstream.on('close', () => socket.destroy());
        socket.on('error', () => socket.destroy());
        upstream.on('error', () => upstream.destroy());
      });
      await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
      const endpoint = `tcp://127.0.0.1:${(proxy.address() as { port: number }).port}`;
      try {
        const follower = await client();
        for (let i = 0; i < 3; i++)
          expect(await follower.send({ nodeId: 1, endpoint }, 'fetch', fetchBody(), 5_000)).toEqual(response(7));
        expect(seen).toEqual([false, true, true]);
      } finally {
        proxy.close();
      }
    });

    it('keeps to JSON with a leader of an older version, which answers in JSON and ignores what it does not know', async () => {
      const requests: Frame[] = [];
      const oldLeader = await rawPeer((frame, answer) => {
        requests.push(frame);
        answer(encodeFrame(FrameType.Response, frame.requestId, 1, response(3), 1 << 20));
      });
      try {
        const follower = await client();
        for (let i = 0; i < 3; i++)
          expect(await follower.send({ nodeId: 1, endpoint: oldLeader.endpoint }, 'fetch', fetchBody(), 5_000)).toEqual(
            response(3),
          );
        expect(requests.map((f) => f.fixedLayout ?? false)).toEqual([false, false, false]);
        expect(requests.map((f) => (f.payload as { kind: string }).kind)).toEqual(['fetch', 'fetch', 'fetch']);
      } finally {
        oldLeader.close();
      }
    });

    it('answers a follower of an older version in JSON, and one that reads the fixed layout in it', async () => {
      const seen: RpcRequest[] = [];
      const leader = await serving(1, async (_from, request) => {
        seen.push(request);
        return response(5);
      });
      const [old, current] = await responsesTo(leader, [
        encodeFrame(FrameType.Request, 1, 2, { kind: 'fetch', body: fetchBody() }, 1 << 20),
        encodeFrame(
          FrameType.Request,
          2,
          2,
          { kind: 'fetch', body: fetchBody(), readsFixedLayoutFetch: true },
          1 << 20,
        ),
      ]);
      expect(old).toEqual({ type: FrameType.Response, requestId: 1, from: 1, payload: response(5) });
      expect(current).toEqual({
        type: FrameType.Response,
        requestId: 2,
        from: 1,
        payload: response(5),
        fixedLayout: true,
      });
      // The handler sees the request alone, never what the envelope said about its sender.
      expect(seen).toEqual([
        { kind: 'fetch', body: fetchBody() },
        { kind: 'fetch', body: fetchBody() },
      ]);
    });
  });
});
