import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { RealClock } from '../../time/real-clock';
import { TransportError, type PeerAddress } from '../transport.port';
import { encodeFrame, FrameReader, FrameType } from './frames';
import { NetworkTransport } from './network-transport';
import type { PeerAuthentication } from './peer-authentication';

// The cluster-secret handshake over real sockets: nodes that share the secret talk as before; a
// process with another secret, or none, can neither have a request served nor serve one.

const clock = new RealClock();
const open: NetworkTransport[] = [];
const secretA: PeerAuthentication = { secret: Buffer.from('a'.repeat(40)), randomBytes, handshakeTimeoutMs: 2_000 };
const secretB: PeerAuthentication = { secret: Buffer.from('b'.repeat(40)), randomBytes, handshakeTimeoutMs: 2_000 };

async function transport(
  nodeId: number,
  authentication?: PeerAuthentication,
  listen = true,
): Promise<NetworkTransport> {
  const t = await NetworkTransport.start({
    nodeId,
    clock,
    authentication,
    ...(listen ? { listen: { host: '127.0.0.1', port: 0 } } : {}),
  });
  open.push(t);
  return t;
}
const peer = (t: NetworkTransport): PeerAddress => ({ nodeId: t.nodeId, endpoint: t.endpoint });
const produce = { partition: 0, leaderEpoch: 1, records: [] };

function outcome(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'served',
    (e: unknown) => (e instanceof TransportError ? `${e.reason}: ${e.message}` : String(e)),
  );
}

afterEach(async () => {
  await Promise.all(open.splice(0).map((t) => t.close()));
});

describe('NetworkTransport with a cluster secret', () => {
  it('serves requests between nodes that share the secret, naming the authenticated sender', async () => {
    const seen: number[] = [];
    const leader = await transport(1, secretA);
    leader.listen(async (from) => {
      seen.push(from);
      return { errorCode: 0 };
    });
    const follower = await transport(2, secretA, false);
    const answers = await Promise.all(
      [1, 2, 3].map(() => follower.send(peer(leader), 'produce' as never, produce as never, 5_000)),
    );
    expect(answers).toEqual([{ errorCode: 0 }, { errorCode: 0 }, { errorCode: 0 }]);
    expect(seen).toEqual([2, 2, 2]);
  });

  it('refuses a sender with another secret or none, and never runs the handler for it', async () => {
    let served = 0;
    const leader = await transport(1, secretA);
    leader.listen(async () => {
      served++;
      return { errorCode: 0 };
    });
    const wrong = await transport(7, secretB, false);
    expect(await outcome(wrong.send(peer(leader), 'produce' as never, produce as never, 5_000))).toMatch(
      /^UNREACHABLE: node 1 refused the connection: the cluster secret was not proven/,
    );
    const none = await transport(8, undefined, false);
    expect(await outcome(none.send(peer(leader), 'produce' as never, produce as never, 5_000))).toMatch(/^UNREACHABLE/);
    expect(served).toBe(0);
  });

  it('does not send to a peer that cannot prove the secret (an impostor listening at a node address)', async () => {
    let served = 0;
    const impostor = await transport(1, secretB);
    impostor.listen(async () => {
      served++;
      return { errorCode: 0 };
    });
    const plain = await transport(3);
    plain.listen(async () => ({ errorCode: 0 }));
    const follower = await transport(2, secretA, false);
    expect(await outcome(follower.send(peer(impostor), 'produce' as never, produce as never, 5_000))).toMatch(
      /^UNREACHABLE/,
    );
    expect(await outcome(follower.send(peer(plain), 'produce' as never, produce as never, 5_000))).toMatch(
      /^UNREACHABLE/,
    );
    expect(served).toBe(0);
  });

  it('cuts a raw connection that sends a request without the handshake', async () => {
    let served = 0;
    const leader = await transport(1, secretA);
    leader.listen(async () => {
      served++;
      return { errorCode: 0 };
    });
    const closed = await new Promise<boolean>((resolve) => {
      const socket = connect(leader.address.port, '127.0.0.1', () =>
        socket.write(encodeFrame(FrameType.Request, 1, 2, { kind: 'produce', body: produce }, 1 << 20)),
      );
      const reader = new FrameReader(1 << 20);
      socket.on('data', (chunk) => reader.push(chunk));
      socket.on('close', () => resolve(true));
    });
    expect(closed).toBe(true);
    expect(served).toBe(0);
  });
});
