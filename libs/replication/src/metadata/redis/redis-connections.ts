import { Redis } from 'ioredis';
import type { Clock } from '../../time/clock';
import { MetadataStoreUnavailableError, redactRedisUrl } from './metadata-store-unavailable-error';

/** A Redis Sentinel's address (REDIS_SENTINELS entries). */
export interface SentinelAddress {
  host: string;
  port: number;
}

/**
 * Where Redis is: REDIS_URL, or — with `sentinels` — the master that those Sentinels elect for
 * `sentinelName` (REDIS_SENTINEL_NAME); REDIS_URL then still gives the credentials and the database.
 */
export interface RedisLocation {
  url: string;
  sentinels?: SentinelAddress[];
  sentinelName?: string;
}

/** Where a store's Redis is, for messages and logs: the Sentinels and master name, or REDIS_URL without its credentials. */
export function describeRedisLocation(location: RedisLocation): string {
  if (!location.sentinels?.length) return redactRedisUrl(location.url);
  return `master ${location.sentinelName ?? 'mymaster'} of Sentinels ${location.sentinels.map((s) => `${s.host}:${s.port}`).join(',')}`;
}

export interface RedisConnectionSettings extends RedisLocation {
  /** A command without a reply after this long fails (so nothing waits forever on a hung Redis). */
  commandTimeoutMs: number;
  /** Reconnection back-off grows from 50 ms up to this. */
  maxReconnectDelayMs: number;
  connectionName: string;
}

/**
 * An ioredis connection set up for the store's contract: while Redis is unreachable commands fail at
 * once instead of queueing (no offline queue), a command in flight when the connection drops fails
 * instead of being resent after reconnecting (a rejected write may or may not have been applied, and
 * the caller decides whether to retry), and the client reconnects forever in the background.
 */
export function openRedis(settings: RedisConnectionSettings): Redis {
  const sentinel =
    settings.sentinels && settings.sentinels.length > 0
      ? {
          sentinels: settings.sentinels,
          name: settings.sentinelName ?? 'mymaster',
          role: 'master' as const,
          // No +switch-master detector: it disconnects the client in the middle of a reconnect, which
          // could leave it connecting forever; the reconnect after the master's loss asks the Sentinels.
          sentinelRetryStrategy: (attempt: number) =>
            Math.min(50 * 2 ** Math.min(attempt, 10), settings.maxReconnectDelayMs),
        }
      : {};
  return new Redis(settings.url, {
    ...sentinel,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    autoResendUnfulfilledCommands: false,
    commandTimeout: settings.commandTimeoutMs,
    connectTimeout: Math.max(1_000, settings.commandTimeoutMs),
    connectionName: settings.connectionName,
    // ioredis arms this timer on every disconnect, even of a socket already closed; keep it short so a
    // closed store does not hold the process open for the default 2 s.
    disconnectTimeout: 200,
    retryStrategy: (attempt: number) => Math.min(50 * 2 ** Math.min(attempt, 10), settings.maxReconnectDelayMs),
  });
}

/**
 * Starts connecting and resolves once the connection is ready; rejects after `timeoutMs` (the client
 * is then disconnected). ioredis keeps retrying meanwhile, so a Redis that starts a little after the
 * node is still found.
 */
export function connectWithin(redis: Redis, clock: Clock, timeoutMs: number, where: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let lastError: unknown = new Error(`not ready within ${timeoutMs} ms`);
    const onError = (error: unknown) => void (lastError = error);
    const done = (error?: unknown) => {
      timer.cancel();
      redis.off('ready', onReady);
      redis.off('error', onError);
      if (error === undefined) return resolve();
      redis.disconnect();
      reject(new MetadataStoreUnavailableError(where, error));
    };
    const onReady = () => done();
    const timer = clock.schedule(timeoutMs, () => done(lastError));
    redis.on('ready', onReady);
    redis.on('error', onError);
    redis.connect().catch(onError);
  });
}
