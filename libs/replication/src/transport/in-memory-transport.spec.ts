import { ManualClock } from '../time/manual-clock';
import { SeededRandom } from '../time/random';
import { InMemoryNetwork } from './in-memory-network';
import type { FetchResponse } from './messages';
import { TransportError } from './transport.port';

const empty: FetchResponse = { errorCode: 0, partitions: [] };
const fetch = { replicaId: 1, replicaEpoch: 1, maxWaitMs: 0, partitions: [] };

async function settle(clock: ManualClock, ms: number): Promise<void> {
  for (let i = 0; i < ms; i++) {
    clock.advance(1);
    await Promise.resolve();
    await Promise.resolve();
  }
}

describe('InMemoryNetwork / InMemoryTransport', () => {
  it('delivers a request and its response after the link delays', async () => {
    const clock = new ManualClock();
    const net = new InMemoryNetwork(clock, new SeededRandom(1), { minDelayMs: 5, maxDelayMs: 5 });
    const a = net.connect(1);
    const b = net.connect(2);
    b.listen(async (from) => ({ ...empty, errorCode: from }));
    let answer: FetchResponse | undefined;
    void a.send({ nodeId: 2, endpoint: '' }, 'fetch', fetch, 1_000).then((r) => (answer = r));
    await settle(clock, 9);
    expect(answer).toBeUndefined();
    await settle(clock, 2);
    expect(answer).toEqual({ ...empty, errorCode: 1 });
  });

  it('a partition drops the request and the sender times out; healing restores delivery', async () => {
    const clock = new ManualClock();
    const net = new InMemoryNetwork(clock, new SeededRandom(1));
    const a = net.connect(1);
    net.connect(2).listen(async () => empty);
    net.partition([1], [2]);
    let failure: unknown;
    void a.send({ nodeId: 2, endpoint: '' }, 'fetch', fetch, 100).catch((e) => (failure = e));
    await settle(clock, 101);
    expect(failure).toBeInstanceOf(TransportError);
    expect((failure as TransportError).reason).toBe('TIMEOUT');
    net.heal();
    let answer: FetchResponse | undefined;
    void a.send({ nodeId: 2, endpoint: '' }, 'fetch', fetch, 100).then((r) => (answer = r));
    await settle(clock, 3);
    expect(answer).toEqual(empty);
  });

  it('a closed endpoint fails its requests in flight and a crashed target never answers', async () => {
    const clock = new ManualClock();
    const net = new InMemoryNetwork(clock, new SeededRandom(1));
    const a = net.connect(1);
    const b = net.connect(2);
    b.listen(() => new Promise(() => undefined));
    let failure: unknown;
    void a.send({ nodeId: 2, endpoint: '' }, 'fetch', fetch, 1_000).catch((e) => (failure = e));
    await settle(clock, 2);
    await a.close();
    await Promise.resolve();
    expect((failure as TransportError).reason).toBe('CLOSED');
  });
});
