import { KafkaError } from '@cohort/protocol';
import { connectWithin, describeRedisLocation, openRedis, RealClock, type RedisLocation } from '@cohort/replication';
import type { Redis } from 'ioredis';
import type { ClaimOutcome, CreatedKind, CreationLedger } from './creation-ledger.port';

/**
 * Checks the principal's count and charges the name in one step, so that two nodes creating at once
 * cannot both take the last slot. KEYS: the kind's owner hash (name → principal), the principal's set.
 * ARGV: name, principal, max, the prefix of every principal's set (to take a stale name from its owner).
 */
const CLAIM = `
local owner = redis.call('HGET', KEYS[1], ARGV[1])
if owner == ARGV[2] then return 'held' end
if redis.call('SCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 'full' end
if owner then redis.call('SREM', ARGV[4] .. owner, ARGV[1]) end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
return 'claimed'`;

/** KEYS: the owner hash. ARGV: name, the prefix of every principal's set. */
const RELEASE = `
local owner = redis.call('HGET', KEYS[1], ARGV[1])
if not owner then return 0 end
redis.call('HDEL', KEYS[1], ARGV[1])
redis.call('SREM', ARGV[2] .. owner, ARGV[1])
return 1`;

/** Where the metadata store's Redis is (REDIS_URL, or REDIS_SENTINELS and REDIS_SENTINEL_NAME): the ledger follows a Sentinel promotion as the store does. */
export interface RedisCreationLedgerOptions extends RedisLocation {
  clusterId: string;
  connectTimeoutMs?: number;
}

/**
 * Cluster mode's ledger, in the metadata store's Redis under CLUSTER_ID: `<CLUSTER_ID>:created-<kind>s`
 * (a hash name → principal) and `<CLUSTER_ID>:created-<kind>s:<principal>` (the principal's names),
 * so the count is the cluster's, whichever node a group or topic was created through. Redis
 * unreachable refuses the creation with COORDINATOR_NOT_AVAILABLE (retriable): without the count
 * the limit cannot be kept.
 */
export class RedisCreationLedger implements CreationLedger {
  private constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  static async connect(options: RedisCreationLedgerOptions): Promise<RedisCreationLedger> {
    const location = { url: options.url, sentinels: options.sentinels, sentinelName: options.sentinelName };
    const redis = openRedis({
      ...location,
      commandTimeoutMs: 5_000,
      maxReconnectDelayMs: 1_000,
      connectionName: `cohort-${options.clusterId}-created`,
    });
    await connectWithin(
      redis,
      new RealClock(),
      options.connectTimeoutMs ?? 10_000,
      `creation ledger in Redis at ${describeRedisLocation(location)}`,
    );
    redis.on('error', () => undefined); // reported through failing calls; ioredis reconnects
    return new RedisCreationLedger(redis, `${options.clusterId}:`);
  }

  claim(kind: CreatedKind, principal: string, name: string, max: number): Promise<ClaimOutcome> {
    const [owners, sets] = this.keys(kind);
    return unavailableAs503(
      () =>
        this.redis.eval(
          CLAIM,
          2,
          owners,
          sets + principal,
          name,
          principal,
          String(max),
          sets,
        ) as Promise<ClaimOutcome>,
    );
  }

  async release(kind: CreatedKind, name: string): Promise<void> {
    const [owners, sets] = this.keys(kind);
    await unavailableAs503(() => this.redis.eval(RELEASE, 1, owners, name, sets));
  }

  held(kind: CreatedKind, principal: string): Promise<string[]> {
    return unavailableAs503(() => this.redis.smembers(this.keys(kind)[1] + principal));
  }

  async close(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /** The owner hash and the prefix of the principals' sets. */
  private keys(kind: CreatedKind): [string, string] {
    const owners = `${this.prefix}created-${kind}s`;
    return [owners, `${owners}:`];
  }
}

async function unavailableAs503<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw KafkaError.of(
      'COORDINATOR_NOT_AVAILABLE',
      `creation ledger unavailable: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}
