import { createServer, type Server, type Socket, connect } from 'node:net';
import { Redis } from 'ioredis';
import type { PartitionState } from '@cohort/replication/metadata/partition-state';
import { encodePartitionState } from '@cohort/replication/metadata/redis/partition-state-json';
import { RedisMetadataStore } from '@cohort/replication/metadata/redis/redis-metadata-store';
import { partitionState, TEST_REDIS_URL, uniqueClusterId } from '@cohort/replication/testing';

jest.setTimeout(60_000);

/**
 * A TCP proxy in front of Redis for one node: `cut()` drops its connections and refuses new ones (the
 * node is cut off from Redis), `restore()` lets it reconnect. So each node's reconnect after the
 * failover happens when the test says, not when ioredis's back-off says.
 */
class NodeLink {
  private readonly sockets = new Set<Socket>();
  /** Which new connections may through, judged by their first bytes (ioredis sends CLIENT SETNAME first). */
  private accept: ((firstBytes: string) => boolean) | null = () => true;

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(target: URL): Promise<NodeLink> {
    // eslint-disable-next-line prefer-const -- assigned after the server that refers to it is made
    let link: NodeLink | undefined;
    const server = createServer((client) => {
      link!.sockets.add(client);
      client.on('close', () => link!.sockets.delete(client));
      client.on('error', () => undefined);
      client.once('data', (first: Buffer) => {
        if (!link!.accept?.(first.toString('latin1'))) return void client.destroy();
        const upstream = connect(Number(target.port || 6379), target.hostname);
        link!.sockets.add(upstream);
        upstream.on('close', () => link!.sockets.delete(upstream));
        upstream.on('error', () => undefined);
        upstream.write(first);
        client.pipe(upstream).pipe(client);
        client.on('close', () => upstream.destroy());
        upstream.on('close', () => client.destroy());
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    link = new NodeLink(server, `redis://127.0.0.1:${port}`);
    return link;
  }

  cut(): void {
    this.accept = null;
    for (const s of this.sockets) s.destroy();
  }

  /** Lets the node reconnect: every connection, or only those whose first bytes `which` accepts. */
  restore(which: (firstBytes: string) => boolean = () => true): void {
    this.accept = which;
  }

  async stop(): Promise<void> {
    this.cut();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

const member = (nodeId: number) => ({ nodeId, nodeEpoch: nodeId });

async function until<T>(what: string, probe: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 500; i++) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  throw new Error(`never: ${what}`);
}

/**
 * The Sentinel fork window of docs/operations-redis.md, with the case argued there: the controller
 * that made the write the promoted replica lost is gone as well, and the new controller writes before
 * the node that saw the lost write has reconnected. Redis replication is staged on the test's Redis:
 * the "replica" is a copy (DUMP/RESTORE, with TTLs) of the cluster's keys taken before the last write,
 * put in place of the master's when the master "dies"; each node reaches Redis through its own proxy.
 */
describe('a Sentinel failover to a replica that missed the controller write, with that controller gone too (e2e)', () => {
  const admin = new Redis(TEST_REDIS_URL, { lazyConnect: true, disconnectTimeout: 100 });
  const target = new URL(TEST_REDIS_URL);
  let clusterId: string;
  let links: NodeLink[];
  let stores: RedisMetadataStore[];
  let repairs: { by: number; stored: PartitionState; seen: PartitionState; repaired: PartitionState }[];

  beforeAll(() => admin.connect());
  afterAll(() => admin.quit());

  beforeEach(async () => {
    clusterId = uniqueClusterId('sentinel-fork');
    repairs = [];
    links = await Promise.all([1, 2, 3].map(() => NodeLink.start(target)));
    stores = await Promise.all(
      links.map((link, i) =>
        RedisMetadataStore.connect({
          url: link.url,
          clusterId,
          recoveryWindowMs: 0,
          maxReconnectDelayMs: 100,
          events: {
            onForkRepaired: (stored, seen, repaired) => void repairs.push({ by: i + 1, stored, seen, repaired }),
          },
        }),
      ),
    );
  });

  afterEach(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await Promise.all(links.map((l) => l.stop()));
    const keys = await admin.keys(`${clusterId}:*`);
    if (keys.length > 0) await admin.del(...keys);
  });

  /** What a replica that stopped replicating now would hold: every key of the cluster with its TTL. */
  async function replicaCopy(): Promise<[string, number, Buffer][]> {
    const keys = await admin.keys(`${clusterId}:*`);
    return Promise.all(
      keys.map(
        async (key) =>
          [key, Math.max(0, await admin.pttl(key)), (await admin.dumpBuffer(key))!] as [string, number, Buffer],
      ),
    );
  }

  /** The master dies and Sentinel promotes the replica: Redis now holds the copy, with the lease of the dead controller expired. */
  async function promote(copy: [string, number, Buffer][]): Promise<void> {
    const keys = await admin.keys(`${clusterId}:*`);
    if (keys.length > 0) await admin.del(...keys);
    for (const [key, ttl, dump] of copy) await admin.restore(key, ttl, dump, 'REPLACE');
    await admin.del(`${clusterId}:controller`);
  }

  async function stored(): Promise<PartitionState> {
    return JSON.parse((await admin.hget(`${clusterId}:partitions`, '0'))!) as PartitionState;
  }

  /** Until node 2's store has seen `state` of partition 0 (its watcher got the change hint). */
  async function seenByNode2(state: PartitionState): Promise<void> {
    const seen: string[] = [];
    const stop = stores[1].watch({ onPartitionChanged: (s) => void seen.push(encodePartitionState(s)) });
    try {
      await until('node 2 saw the write', async () => (seen.includes(encodePartitionState(state)) ? true : undefined));
    } finally {
      stop();
    }
  }

  /**
   * Node 1 (controller) moved leadership of partition 0 to node 2 in leader epoch 1; node 2 saw it and
   * leads. Node 3 was cut off from Redis just before and did not see it (had it, its store would
   * repair the fork on reconnecting, before its first write as controller: redis-recovery.spec.ts).
   * The replica missed that write; node 1 dies with the master, node 2 is cut off from Redis.
   */
  async function loseTheControllersWrite(): Promise<PartitionState> {
    const [c1] = stores;
    const lease = (await c1.acquireControllerLease(1, 60_000))!;
    const initial = partitionState(0, { replicas: [1, 3, 2], isr: [member(1), member(2), member(3)], leader: 1 });
    await c1.createPartitions([initial], lease.controllerEpoch);
    await until('node 3 saw partition 0', async () => ((await stores[2].getPartition(0)) ? true : undefined));
    const copy = await replicaCopy();
    links[2].cut();
    const lost = { ...initial, leader: 2, leaderEpoch: 1, partitionEpoch: 1 };
    const seen = seenByNode2(lost);
    expect(await c1.compareAndSetPartition(0, lost, lease.controllerEpoch)).toMatchObject({ ok: true });
    await seen;
    for (const link of links) link.cut();
    await stores[0].close(); // the controller is gone as well
    await promote(copy);
    return lost;
  }

  /** Node 3 reconnects, takes the controller lease and, acting on what Redis holds, writes `writes` states. */
  async function newControllerWrites(writes: PartitionState[]): Promise<void> {
    links[2].restore();
    const c3 = stores[2];
    const lease = await until(
      'node 3 is controller',
      async () => (await c3.acquireControllerLease(3, 60_000)) ?? undefined,
    );
    let expected = (await c3.getPartition(0))!.partitionEpoch;
    for (const next of writes) {
      expect(await c3.compareAndSetPartition(expected, next, lease.controllerEpoch)).toMatchObject({ ok: true });
      expected = next.partitionEpoch;
    }
  }

  async function node2Reconnects(): Promise<void> {
    links[1].restore();
    await until('node 2 is back', async () => (await stores[1].listNodes(), true));
  }

  it('fences both leaders of the forked epoch when the new controller wrote one state before the node reconnected', async () => {
    const lost = await loseTheControllersWrite();
    // Node 1 is gone: the new controller elects node 3 in the same leader epoch 1 as the lost write.
    const fork = { ...lost, leader: 3, isr: [member(2), member(3)], leaderEpoch: 1, partitionEpoch: 1 };
    await newControllerWrites([fork]);
    await node2Reconnects();
    const now = await stored();
    expect(now).toMatchObject({ leaderEpoch: 2, partitionEpoch: 2, leader: 3, isr: [member(2), member(3)] });
    expect(repairs.map((r) => [r.by, r.seen])).toEqual([[2, lost]]);
  });

  it('fences both leaders of the forked epoch when the new controller wrote more states before the node reconnected', async () => {
    const lost = await loseTheControllersWrite();
    // The same election, then an ISR shrink in that leader epoch: Redis's copy is now newer in partition
    // epoch than what node 2 saw, yet node 2 and node 3 both lead in leader epoch 1.
    const fork = { ...lost, leader: 3, isr: [member(2), member(3)], leaderEpoch: 1, partitionEpoch: 1 };
    const shrunk = { ...fork, isr: [member(3)], partitionEpoch: 2 };
    await newControllerWrites([fork, shrunk]);
    await node2Reconnects();
    const now = await stored();
    // Past both copies in leader epoch, so neither leader of epoch 1 can commit in it again.
    expect(now.leaderEpoch).toBeGreaterThan(1);
    expect(now).toMatchObject({ partitionEpoch: 3, leaderEpoch: 2, leader: 3, isr: [member(3)] });
    expect(repairs.map((r) => [r.by, r.seen])).toEqual([[2, lost]]);
  });

  it("fences both leaders when the node hears of the new controller's writes before its restore runs", async () => {
    const lost = await loseTheControllersWrite();
    const fork = { ...lost, leader: 3, isr: [member(2), member(3)], leaderEpoch: 1, partitionEpoch: 1 };
    await newControllerWrites([fork]);
    // Node 2's change channel is back first: it hears of the next write before its metadata
    // connection is back and its restore compares what it saw with what Redis holds.
    links[1].restore((first) => first.includes(`cohort-${clusterId}-changes`));
    await until('node 2 listens again', async () => {
      const [, subscribers] = (await admin.pubsub('NUMSUB', `${clusterId}:changes`)) as [string, number];
      return subscribers >= 2 ? true : undefined; // node 3's and node 2's
    });
    const shrunk = { ...fork, isr: [member(3)], partitionEpoch: 2 };
    const heard = seenByNode2(shrunk);
    const lease = (await stores[2].getControllerLease())!;
    expect(await stores[2].compareAndSetPartition(1, shrunk, lease.controllerEpoch)).toMatchObject({ ok: true });
    await heard;
    await node2Reconnects();
    expect(await stored()).toMatchObject({ partitionEpoch: 3, leaderEpoch: 2, leader: 3, isr: [member(3)] });
    expect(repairs.map((r) => [r.by, r.seen])).toEqual([[2, lost]]);
  });

  it('leaves alone a newer state that follows from what the node saw', async () => {
    const lost = await loseTheControllersWrite();
    // The new controller happens to make the same election and then shrinks the ISR: one history.
    const same = { ...lost };
    const shrunk = { ...lost, isr: [member(2), member(3)], partitionEpoch: 2 };
    await newControllerWrites([same, shrunk]);
    await node2Reconnects();
    expect(await stored()).toEqual(shrunk);
    expect(repairs).toEqual([]);
  });
});
