import { ManualClock, type PartitionState } from '@cohort/replication';
import { InMemoryMetadataStore, type Partition } from '@cohort/replication/testing';
import { MetadataClusterStatus } from './metadata-cluster-status';
import { parsePeerEndpoint } from '@cohort/replication/transport/network/peer-endpoint';
import { advertisedUrlOf, formatNodeEndpoint } from './node-endpoint';

// FindCoordinator and /v1/cluster in cluster mode answer from the metadata store's registrations,
// lease and partition states (docs/protocol.md; docs/rest.md); the store here is the in-memory one on virtual time.

const flush = () => new Promise((resolve) => setImmediate(resolve));

function state(partition: number, leader: number, over: Partial<PartitionState> = {}): PartitionState {
  return {
    partition,
    replicas: [0, 1, 2],
    isr: [0, 1, 2].map((nodeId) => ({ nodeId, nodeEpoch: 1 })),
    elr: [],
    leader,
    leaderEpoch: 3,
    partitionEpoch: 5,
    leaderRecoveryState: 'RECOVERED',
    ...over,
  };
}

async function setUp(refreshIntervalMs = 1_000) {
  const clock = new ManualClock();
  const store = new InMemoryMetadataStore(clock);
  const endpoint = (id: number) =>
    formatNodeEndpoint({
      replicationHost: '10.0.0.' + id,
      replicationPort: 4000 + id,
      advertisedUrl: `http://node-${id}:300${id}`,
    });
  for (const id of [0, 1, 2]) await store.registerNode(id, endpoint(id), -1, 6_000);
  const { controllerEpoch } = (await store.acquireControllerLease(1, 6_000))!;
  await store.createPartitions([state(0, 2), state(1, 0)], controllerEpoch);
  const leader = {
    role: 'leader',
    remotes: new Map([[1, { nodeId: 1, leo: 7, lastCaughtUpTimeMs: 123 }]]),
  } as unknown as Partition;
  const view = new MetadataClusterStatus({
    clusterId: 'c1',
    nodeId: 0,
    numPartitions: 3,
    store,
    replicas: {
      offsets: (p) => ({ logStartOffset: 0, logEndOffset: 10 + p, highWatermark: 9 + p }),
      partition: (p) => (p === 1 ? leader : undefined),
    },
    clock,
    refreshIntervalMs,
    onError: (e) => {
      throw e;
    },
  });
  await view.start();
  return { clock, store, view, controllerEpoch };
}

describe('MetadataClusterStatus', () => {
  it('names each partition leader by the URL it advertised, and the controller', async () => {
    const { view } = await setUp();
    expect(view.leaderOf(0)).toEqual({ nodeId: 2, url: 'http://node-2:3002', alive: true });
    expect(view.leaderOf(2)).toBeNull(); // no state yet: COORDINATOR_NOT_AVAILABLE
    expect(view.controllerId()).toBe(1);
    expect(view.nodes()).toEqual(
      [0, 1, 2].map((nodeId) => ({ nodeId, url: `http://node-${nodeId}:300${nodeId}`, alive: true })),
    );
    view.close();
  });

  it('follows leader changes at once and lists a node whose registration expired as not alive', async () => {
    const { clock, store, view, controllerEpoch } = await setUp();
    await store.compareAndSetPartition(5, state(0, 1, { partitionEpoch: 6, leaderEpoch: 4 }), controllerEpoch);
    await flush();
    expect(view.leaderOf(0)?.nodeId).toBe(1);
    for (let t = 0; t < 7; t++) {
      for (const id of [0, 1])
        await store.renewNode(id, (await store.listNodes()).find((n) => n.nodeId === id)!.nodeEpoch, 6_000);
      await store.acquireControllerLease(1, 6_000);
      clock.advance(1_000); // node 2 stops renewing; the periodic re-read notices the expiry
      await flush();
    }
    expect(view.nodes().find((n) => n.nodeId === 2)).toEqual({ nodeId: 2, url: 'http://node-2:3002', alive: false });
    expect(
      (await store.compareAndSetPartition(6, state(0, 2, { partitionEpoch: 7, leaderEpoch: 5 }), controllerEpoch)).ok,
    ).toBe(true);
    await flush();
    expect(view.leaderOf(0)).toBeNull(); // its leader is gone: no coordinator to name until a new election
    view.close();
  });

  it('never names a new leader while still listing the expired node it replaced as alive', async () => {
    // No periodic re-read within the test: only the partition hint can bring the expiry to light.
    const { clock, store, view, controllerEpoch } = await setUp(1_000_000);
    for (let t = 0; t < 7; t++) {
      for (const id of [0, 1])
        await store.renewNode(id, (await store.listNodes()).find((n) => n.nodeId === id)!.nodeEpoch, 6_000);
      await store.acquireControllerLease(1, 6_000);
      clock.advance(1_000); // node 2, leader of p0, stops renewing and expires (expiry gives no hint)
    }
    await flush();
    expect(view.nodes().find((n) => n.nodeId === 2)?.alive).toBe(true); // not re-read yet
    await store.compareAndSetPartition(
      5,
      state(0, 1, { partitionEpoch: 6, leaderEpoch: 4, isr: [0, 1].map((nodeId) => ({ nodeId, nodeEpoch: 1 })) }),
      controllerEpoch,
    );
    await flush();
    expect(view.leaderOf(0)?.nodeId).toBe(1);
    expect(view.nodes().find((n) => n.nodeId === 2)).toEqual({ nodeId: 2, url: 'http://node-2:3002', alive: false });
    view.close();
  });

  it('reports offsets from the local replicas and follower progress where this node leads', async () => {
    const { clock, view } = await setUp();
    const [p0, p1, p2] = view.partitions();
    expect(p0).toMatchObject({
      partition: 0,
      leader: 2,
      leaderEpoch: 3,
      replicas: [0, 1, 2],
      isr: [0, 1, 2],
      highWatermark: 9,
      logEndOffset: 10,
      replicaStates: [],
    });
    expect(p1.replicaStates).toEqual([
      { nodeId: 0, logEndOffset: 11, lastCaughtUpMs: clock.now() },
      { nodeId: 1, logEndOffset: 7, lastCaughtUpMs: 123 },
    ]);
    expect(p2).toMatchObject({ partition: 2, leader: null, leaderEpoch: -1, replicas: [], isr: [] });
    view.close();
  });
});

describe('node endpoint', () => {
  it('carries the replication address and the advertised URL, IPv6 and query characters included', () => {
    const endpoint = formatNodeEndpoint({
      replicationHost: '::1',
      replicationPort: 4001,
      advertisedUrl: 'https://cohort.example:8443/base?x=1&y=2',
    });
    expect(parsePeerEndpoint(endpoint)).toEqual({ host: '::1', port: 4001 });
    expect(advertisedUrlOf(endpoint)).toBe('https://cohort.example:8443/base?x=1&y=2');
    expect(advertisedUrlOf('tcp://10.0.0.1:4000')).toBeNull();
  });
});
