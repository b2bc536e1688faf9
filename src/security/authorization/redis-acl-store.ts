import { type AclBinding, KafkaError } from '@cohort/protocol';
import { connectWithin, describeRedisLocation, openRedis, RealClock, type RedisLocation } from '@cohort/replication';
import { bindingKey, compareBindings, validateBinding } from '@cohort/security';
import type { Redis } from 'ioredis';
import type { AclStore } from './acl-store.port';

/** With REDIS_SENTINELS the store reaches the master the Sentinels elect, as the metadata store does. */
export interface RedisAclStoreOptions extends RedisLocation {
  clusterId: string;
  /** How often the version key is read, in case a change hint was missed (a reconnect). */
  pollIntervalMs?: number;
  /** Failures of background work (a reload after a hint or a poll). */
  onError(error: unknown): void;
  connectTimeoutMs?: number;
}

/**
 * Cluster mode's bindings, in the metadata store's Redis under CLUSTER_ID: a hash
 * `<CLUSTER_ID>:acls` (one field per binding) and a counter `<CLUSTER_ID>:acls-version`, changed
 * together in one MULTI with a hint on `<CLUSTER_ID>:acl-changes`. Every node reloads on the hint
 * (milliseconds) and also polls the version every `pollIntervalMs` (500 ms), so a change is
 * enforced everywhere within a second even when a hint is lost. When Redis comes back without the
 * bindings (it lost its data), the node puts back the set it enforces, as the topic registry does.
 */
export class RedisAclStore implements AclStore {
  private readonly keys: { acls: string; version: string; changes: string };
  private listener: ((bindings: AclBinding[]) => void) | null = null;
  private version: number | null = null;
  private known: AclBinding[] = [];
  private poller: NodeJS.Timeout | null = null;
  private refreshing: Promise<void> | null = null;
  private refreshAgain = false;

  private constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly options: RedisAclStoreOptions,
  ) {
    const prefix = `${options.clusterId}:`;
    this.keys = { acls: `${prefix}acls`, version: `${prefix}acls-version`, changes: `${prefix}acl-changes` };
  }

  static async connect(options: RedisAclStoreOptions): Promise<RedisAclStore> {
    const settings = {
      url: options.url,
      sentinels: options.sentinels,
      sentinelName: options.sentinelName,
      commandTimeoutMs: 5_000,
      maxReconnectDelayMs: 1_000,
    };
    const redis = openRedis({ ...settings, connectionName: `cohort-${options.clusterId}-acls` });
    const subscriber = openRedis({ ...settings, connectionName: `cohort-${options.clusterId}-acl-changes` });
    const where = `ACL store in Redis at ${describeRedisLocation(options)}`;
    const timeout = options.connectTimeoutMs ?? 10_000;
    const clock = new RealClock();
    try {
      await Promise.all([
        connectWithin(redis, clock, timeout, where),
        connectWithin(subscriber, clock, timeout, where),
      ]);
      const store = new RedisAclStore(redis, subscriber, options);
      await subscriber.subscribe(store.keys.changes);
      return store;
    } catch (error) {
      redis.disconnect();
      subscriber.disconnect();
      throw error;
    }
  }

  load(): Promise<AclBinding[]> {
    return unavailableAs503(async () => {
      const [version, fields] = await this.read();
      this.version = version;
      this.known = fields;
      return fields;
    });
  }

  add(bindings: readonly AclBinding[]): Promise<AclBinding[]> {
    return unavailableAs503(async () => {
      if (bindings.length > 0) {
        const fields = bindings.flatMap((binding) => [bindingKey(binding), JSON.stringify(binding)]);
        await this.redis
          .multi()
          .hset(this.keys.acls, ...fields)
          .incr(this.keys.version)
          .publish(this.keys.changes, 'A')
          .exec()
          .then(failOnError);
      }
      return this.load();
    });
  }

  remove(bindings: readonly AclBinding[]): Promise<{ removed: AclBinding[]; all: AclBinding[] }> {
    return unavailableAs503(async () => {
      if (bindings.length === 0) return { removed: [], all: await this.load() };
      const transaction = this.redis.multi();
      for (const binding of bindings) transaction.hdel(this.keys.acls, bindingKey(binding));
      const results = failOnError(await transaction.incr(this.keys.version).publish(this.keys.changes, 'D').exec());
      // Each HDEL says whether that binding was there; a concurrent delete elsewhere gets 0 for it.
      const removed = bindings.filter((_, index) => results[index] === 1);
      return { removed, all: await this.load() };
    });
  }

  watch(listener: (bindings: AclBinding[]) => void): void {
    this.listener = listener;
    this.subscriber.on('message', () => this.refresh());
    this.subscriber.on('ready', () => this.refresh());
    this.redis.on('error', () => undefined); // reported through failing calls; ioredis reconnects
    this.subscriber.on('error', () => undefined);
    this.poller = setInterval(() => this.refresh(), this.options.pollIntervalMs ?? 500);
    this.poller.unref();
  }

  async close(): Promise<void> {
    this.listener = null;
    if (this.poller) clearInterval(this.poller);
    await Promise.all([this.redis, this.subscriber].map((c) => c.quit().catch(() => c.disconnect())));
  }

  /** Reloads when the version moved; one reload at a time, with one more if asked meanwhile. */
  private refresh(): void {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = this.refreshOnce()
      .catch(this.options.onError)
      .finally(() => {
        this.refreshing = null;
        if (this.refreshAgain) {
          this.refreshAgain = false;
          this.refresh();
        }
      });
  }

  private async refreshOnce(): Promise<void> {
    const version = await this.redis.get(this.keys.version);
    if (version === null && this.version !== null && this.known.length > 0) return this.restore();
    if (version !== null && Number(version) === this.version) return;
    const bindings = await this.load();
    this.listener?.(bindings);
  }

  /** Redis lost the bindings: put back the set this node enforces (another node may do the same; it is idempotent). */
  private async restore(): Promise<void> {
    const fields = this.known.flatMap((binding) => [bindingKey(binding), JSON.stringify(binding)]);
    await this.redis
      .multi()
      .hset(this.keys.acls, ...fields)
      .set(this.keys.version, String(this.version), 'NX')
      .exec()
      .then(failOnError);
    this.options.onError(
      new Error(`the ACLs were missing from Redis; put back the ${this.known.length} this node enforces`),
    );
  }

  private async read(): Promise<[number | null, AclBinding[]]> {
    const [version, hash] = failOnError(
      await this.redis.multi().get(this.keys.version).hgetall(this.keys.acls).exec(),
    ) as [string | null, Record<string, string>];
    const bindings = Object.values(hash).map((text, index) =>
      validateBinding(JSON.parse(text), `${this.keys.acls}[${index}]`),
    );
    return [version === null ? null : Number(version), bindings.sort(compareBindings)];
  }
}

/** Redis unreachable is the client's to retry: COORDINATOR_NOT_AVAILABLE (503 over REST), as the topic registry answers. */
async function unavailableAs503<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof KafkaError) throw error;
    throw KafkaError.of(
      'COORDINATOR_NOT_AVAILABLE',
      `ACL store unavailable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** A MULTI's replies, or the first command error. */
function failOnError(results: [Error | null, unknown][] | null): unknown[] {
  if (results === null) throw new Error('ACL store: the Redis transaction was aborted');
  for (const [error] of results) if (error) throw error;
  return results.map(([, value]) => value);
}
