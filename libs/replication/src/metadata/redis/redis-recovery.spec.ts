import { Redis } from 'ioredis';
import type { PartitionState } from '../partition-state';
import { partitionState, RedisStoreFixture, TEST_REDIS_URL, uniqueClusterId } from '@cohort/replication/testing';
import type { RedisMetadataStore } from './redis-metadata-store';
import { encodePartitionState } from './partition-state-json';

// How the stores put back metadata that Redis lost (recovery-script.ts), staged on the shared Redis
// under a cluster id of our own: the loss is simulated by deleting the cluster's keys, and a reconnect
// by killing the store's own connections.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RedisMetadataStore restoring lost metadata', () => {
  const fixture = new RedisStoreFixture();
  const admin = new Redis(TEST_REDIS_URL, { lazyConnect: true, disconnectTimeout: 100 });
  let clusterId: string;
  let writer: RedisMetadataStore;
  let survivor: RedisMetadataStore;
  const restored: string[] = [];
  const p0v1 = partitionState(0, { leader: 2, leaderEpoch: 1, partitionEpoch: 1 });
  const p0v2 = partitionState(0, { leader: 3, leaderEpoch: 2, partitionEpoch: 2 });

  beforeAll(() => admin.connect());
  afterAll(() => admin.quit());

  beforeEach(async () => {
    restored.length = 0;
    clusterId = uniqueClusterId('recovery');
    writer = await fixture.open(clusterId);
    // The survivor's recovery window is long, so that a test decides when it is open or closed.
    survivor = await fixture.open(clusterId, {
      recoveryWindowMs: 60_000,
      events: { onRestored: (mode, count) => void restored.push(`${mode} ${count}`) },
    });
    const seen: string[] = [];
    survivor.watch({ onPartitionChanged: (s) => void seen.push(`${s.partition}@${s.partitionEpoch}`) });
    const { controllerEpoch } = (await writer.acquireControllerLease(1, 60_000))!;
    await writer.createPartitions([partitionState(0), partitionState(1)], controllerEpoch);
    await writer.compareAndSetPartition(0, p0v1, controllerEpoch);
    await writer.compareAndSetPartition(1, p0v2, controllerEpoch);
    for (let i = 0; i < 200 && !seen.includes('0@2'); i++) await sleep(10);
    expect(seen).toContain('0@2');
  });

  afterEach(() => fixture.dispose());

  /** Redis lost the cluster's data, and another node already put back an older copy of partition 0. */
  async function loseDataKeeping(stateInRedis: PartitionState, aliveSinceMs: number): Promise<void> {
    const keys = await admin.keys(`${clusterId}:*`);
    await admin.del(...keys);
    const [seconds, micros] = await admin.time();
    await admin.set(
      `${clusterId}:alive`,
      String(Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - aliveSinceMs),
    );
    await admin.hset(`${clusterId}:partitions`, String(stateInRedis.partition), encodePartitionState(stateInRedis));
  }

  async function killConnectionsOfCluster(): Promise<void> {
    const clients = (await admin.client('LIST')) as string;
    for (const line of clients.split('\n')) {
      if (!line.includes(`name=cohort-${clusterId}-metadata`)) continue;
      await admin.client('KILL', 'ID', /id=(\d+)/.exec(line)![1]);
    }
  }

  it('puts back, while the window is open, every state newer than the copy Redis holds', async () => {
    // Only the survivor restores: the writer's window (0 ms) would count as closed and repair instead.
    await writer.close();
    await loseDataKeeping(p0v1, 0);
    await killConnectionsOfCluster();
    for (let i = 0; i < 300 && restored.length === 0; i++) await sleep(10);
    expect(restored).toEqual(['merged 2']);
    expect(await survivor.listPartitions()).toEqual([p0v2, partitionState(1)]);
  });

  /** Until Redis holds partition 0 at `partitionEpoch` (a store's restore after its reconnect wrote it). */
  async function untilStored(partitionEpoch: number): Promise<void> {
    for (let i = 0; i < 300; i++) {
      const json = await admin.hget(`${clusterId}:partitions`, '0');
      if (json && JSON.parse(json).partitionEpoch === partitionEpoch) return;
      await sleep(10);
    }
    throw new Error(`partition 0 never reached epoch ${partitionEpoch}`);
  }

  it('once the window has closed puts nothing back, but repairs a partition whose write Redis lost (a failover to a stale replica)', async () => {
    await loseDataKeeping(p0v1, 120_000);
    await killConnectionsOfCluster();
    await untilStored(3); // the repair: evidence that the stores reconnected and ran their restore
    const [p0, ...others] = await writer.listPartitions();
    expect(others).toEqual([]); // partition 1 is not put back: a controller may already have acted
    // Newer than both copies in partition and leader epoch: neither leader of the fork keeps its epoch;
    // the ISR is what both copies agree on, led by the stored copy's leader.
    expect(p0).toEqual({ ...p0v1, partitionEpoch: 3, leaderEpoch: 3, elr: [] });
    expect(restored).toEqual([]);
  });

  it('a controller that saw its own write lost cannot write a second state with that partition epoch', async () => {
    // The promoted replica has the lease (written long before) but not the last partition write.
    const leaseKey = `${clusterId}:controller`;
    const lease = await admin.hgetall(leaseKey);
    await loseDataKeeping(p0v1, 120_000);
    await admin.hset(leaseKey, lease);
    await admin.pexpire(leaseKey, 60_000);
    const controllerEpoch = Number(lease.controllerEpoch);
    await killConnectionsOfCluster();
    // The controller, acting on the copy Redis now holds (epoch 1), proposes another epoch-2 state.
    let outcome: Awaited<ReturnType<RedisMetadataStore['compareAndSetPartition']>> | undefined;
    for (let i = 0; i < 300 && !outcome; i++) {
      outcome = await writer
        .compareAndSetPartition(1, partitionState(0, { leader: 1, leaderEpoch: 2, partitionEpoch: 2 }), controllerEpoch)
        .catch(() => undefined);
      if (!outcome) await sleep(10);
    }
    expect(outcome).toMatchObject({
      ok: false,
      reason: 'STALE_PARTITION_EPOCH',
      current: { partitionEpoch: 3, leaderEpoch: 3 },
    });
  });

  it('restores before answering when an operation finds the metadata gone without any reconnect', async () => {
    await admin.del(...(await admin.keys(`${clusterId}:*`)));
    expect(await survivor.listPartitions()).toEqual([p0v2, partitionState(1)]);
    expect(restored).toEqual(['initialized 2']);
  });
});
