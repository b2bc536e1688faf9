import { Redis } from 'ioredis';
import { RedisMetadataStore, type RedisMetadataStoreOptions } from '@cohort/replication';

/** The shared Redis of the test machine (ours to use only under our own key prefixes). */
export const TEST_REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

let counter = 0;

/** A cluster id no other test (or parallel test worker) uses. */
export function uniqueClusterId(label: string): string {
  return `test-${label}-${process.pid}-${++counter}-${process.hrtime.bigint().toString(36)}`;
}

/**
 * Opens stores on unique clusters and, on `dispose`, closes them and deletes every key they made.
 */
export class RedisStoreFixture {
  private readonly stores: RedisMetadataStore[] = [];
  private readonly clusterIds = new Set<string>();

  constructor(private readonly url = TEST_REDIS_URL) {}

  async open(clusterId: string, options: Partial<RedisMetadataStoreOptions> = {}): Promise<RedisMetadataStore> {
    this.clusterIds.add(clusterId);
    const store = await RedisMetadataStore.connect({ url: this.url, clusterId, recoveryWindowMs: 0, ...options });
    this.stores.push(store);
    return store;
  }

  /**
   * Lets `ms` of Redis's time pass for every key of the fixture's clusters without waiting: each TTL is
   * shortened by `ms`, and a key whose TTL runs out is deleted, as Redis would expire it. (Registrations
   * and the lease expire by TTL alone, so this is what the passing of time means to the store.)
   */
  async elapse(ms: number): Promise<void> {
    const admin = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 1, disconnectTimeout: 100 });
    try {
      await admin.connect();
      for (const id of this.clusterIds) {
        await admin.eval(
          `for _, key in ipairs(redis.call('KEYS', ARGV[1])) do
             local ttl = redis.call('PTTL', key)
             if ttl > 0 then
               if ttl <= tonumber(ARGV[2]) then redis.call('DEL', key) else redis.call('PEXPIRE', key, ttl - tonumber(ARGV[2])) end
             end
           end
           return 1`,
          0,
          `${id}:*`,
          ms,
        );
      }
    } finally {
      admin.disconnect();
    }
  }

  async dispose(): Promise<void> {
    await Promise.all(this.stores.splice(0).map((s) => s.close()));
    const admin = new Redis(this.url, { lazyConnect: true, maxRetriesPerRequest: 1, disconnectTimeout: 100 });
    try {
      await admin.connect();
      for (const id of this.clusterIds) {
        const keys = await admin.keys(`${id}:*`);
        if (keys.length > 0) await admin.del(...keys);
      }
    } catch {
      // The Redis of a restart test may be gone for good; its data went with it.
    } finally {
      this.clusterIds.clear();
      admin.disconnect();
    }
  }
}
