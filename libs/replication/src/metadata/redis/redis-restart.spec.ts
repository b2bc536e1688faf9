import type { MetadataChangeListener } from '../metadata-store.port';
import type { PartitionState } from '../partition-state';
import { partitionState, OwnRedisServer, until } from '@cohort/replication/testing';
import { MetadataStoreUnavailableError } from './metadata-store-unavailable-error';
import { RedisMetadataStore, type RedisMetadataStoreOptions } from './redis-metadata-store';

jest.setTimeout(60_000);

class Hints implements MetadataChangeListener {
  readonly events: string[] = [];
  onNodesChanged(): void {
    this.events.push('nodes');
  }
  onControllerChanged(): void {
    this.events.push('controller');
  }
  onPartitionChanged(s: PartitionState): void {
    this.events.push(`partition ${s.partition}@${s.partitionEpoch}`);
  }
}

function storeOptions(
  redis: OwnRedisServer,
  events: Record<string, unknown[]>,
  over: Partial<RedisMetadataStoreOptions> = {},
): RedisMetadataStoreOptions {
  const record =
    (name: string) =>
    (...args: unknown[]) =>
      void (events[name] ??= []).push(args);
  return {
    url: redis.url,
    clusterId: 'restart',
    recoveryWindowMs: 1_000,
    commandTimeoutMs: 1_000,
    maxReconnectDelayMs: 200,
    events: {
      onDisconnected: record('disconnected'),
      onReconnected: record('reconnected'),
      onRestored: record('restored'),
    },
    ...over,
  };
}

describe('RedisMetadataStore across a restart of Redis', () => {
  let redis: OwnRedisServer;
  const stores: RedisMetadataStore[] = [];

  afterEach(async () => {
    await Promise.all(stores.splice(0).map((s) => s.close()));
    await redis.dispose();
  });

  it('fails fast with a clear error while Redis is down, reconnects, and restores the metadata the nodes had seen', async () => {
    redis = await OwnRedisServer.create(false);
    await redis.start();
    const eventsA: Record<string, unknown[]> = {};
    const eventsB: Record<string, unknown[]> = {};
    const a = await RedisMetadataStore.connect(storeOptions(redis, eventsA));
    const b = await RedisMetadataStore.connect(storeOptions(redis, eventsB));
    stores.push(a, b);

    // A brand-new cluster opens the recovery window too: no controller before it closes.
    expect(await a.acquireControllerLease(1, 10_000)).toBeNull();
    const lease = await until('the first controller lease', () => a.acquireControllerLease(1, 10_000));
    const reg1 = await a.registerNode(1, 'tcp://127.0.0.1:1', -1, 10_000);
    const reg2 = await b.registerNode(2, 'tcp://127.0.0.1:2', -1, 10_000);
    await a.createPartitions([partitionState(0), partitionState(1)], lease.controllerEpoch);
    const p0 = partitionState(0, { leader: 2, leaderEpoch: 1, partitionEpoch: 1 });
    expect((await a.compareAndSetPartition(0, p0, lease.controllerEpoch)).ok).toBe(true);
    const hints = new Hints();
    b.watch(hints);

    await redis.stop('SIGKILL');
    // Rejected at once, not queued until Redis returns and not left to the command timeout: the cause
    // is the closed connection (no offline queue), never a timeout.
    const down = await a.listPartitions().then(
      () => null,
      (e: unknown) => e,
    );
    expect(down).toBeInstanceOf(MetadataStoreUnavailableError);
    expect(String((down as Error).message)).not.toMatch(/timed? ?out/i);
    await expect(b.renewNode(2, reg2.nodeEpoch, 10_000)).rejects.toThrow(`Redis at ${redis.url}`);
    await until('the outage to be reported', async () => eventsA.disconnected?.length === 1);

    await redis.start(); // empty: no persistence
    await until('both stores to reconnect', async () => eventsA.reconnected?.length && eventsB.reconnected?.length);

    // The partition states are back, put back by the stores from what they had seen.
    expect(await b.listPartitions()).toEqual([p0, partitionState(1)]);
    expect(
      [...(eventsA.restored ?? []), ...(eventsB.restored ?? [])].some(
        (args) => (args as unknown[])[0] === 'initialized',
      ),
    ).toBe(true);
    // Registrations are not: the nodes are fenced and register again, with larger epochs than before.
    expect(await a.renewNode(1, reg1.nodeEpoch, 10_000)).toBe(false);
    const again = await a.registerNode(1, 'tcp://127.0.0.1:1', reg1.nodeEpoch, 10_000);
    expect(again.nodeEpoch).toBeGreaterThan(Math.max(reg1.nodeEpoch, reg2.nodeEpoch));
    // The lease is gone too; a new controller is elected once the window closes, with a larger epoch.
    expect(await a.getControllerLease()).toBeNull();
    const next = await until('a controller after the restart', () => b.acquireControllerLease(2, 10_000));
    expect(next.controllerEpoch).toBeGreaterThan(lease.controllerEpoch);
    expect(
      (await a.compareAndSetPartition(1, partitionState(1, { partitionEpoch: 1 }), lease.controllerEpoch)).ok,
    ).toBe(false);

    // The watcher was told to re-read (hints during the outage are lost), and hints flow again.
    await until(
      'the resync hints',
      async () => hints.events.includes('nodes') && hints.events.includes('partition 0@1'),
    );
    const p1 = partitionState(1, { leader: 3, leaderEpoch: 1, partitionEpoch: 1 });
    expect((await b.compareAndSetPartition(0, p1, next.controllerEpoch)).ok).toBe(true);
    await until('a hint after the restart', async () => hints.events.includes('partition 1@1'));
  });

  it('finds a Redis that persisted its data as it was, without restoring anything', async () => {
    redis = await OwnRedisServer.create(true);
    await redis.start();
    const events: Record<string, unknown[]> = {};
    const a = await RedisMetadataStore.connect(storeOptions(redis, events, { recoveryWindowMs: 0 }));
    stores.push(a);
    const reg = await a.registerNode(1, 'tcp://127.0.0.1:1', -1, 30_000);
    const lease = (await a.acquireControllerLease(1, 30_000))!;
    await a.createPartitions([partitionState(0)], lease.controllerEpoch);
    const restoredBefore = events.restored?.length ?? 0;

    await redis.stop('SIGTERM');
    await redis.start();
    await until('the store to reconnect', async () => events.reconnected?.length);

    expect(await a.renewNode(1, reg.nodeEpoch, 30_000)).toBe(true);
    expect(await a.getControllerLease()).toEqual(lease);
    expect(await a.listPartitions()).toEqual([partitionState(0)]);
    expect(events.restored?.length ?? 0).toBe(restoredBefore);
  });

  it('reports an unreachable Redis at start instead of waiting forever', async () => {
    redis = await OwnRedisServer.create(false); // never started
    const connecting = RedisMetadataStore.connect({ url: redis.url, clusterId: 'nobody', connectTimeoutMs: 500 });
    await expect(connecting).rejects.toBeInstanceOf(MetadataStoreUnavailableError);
    await expect(connecting).rejects.toThrow(`Redis at ${redis.url}`);
  });
});
