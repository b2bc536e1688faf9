import type { Redis } from 'ioredis';
import { METADATA_LOST, type LuaScript } from './lua-script';
import { MetadataStoreUnavailableError } from './metadata-store-unavailable-error';

/**
 * What a failed Redis call means to the store's callers: Redis unreachable or busy is
 * MetadataStoreUnavailableError (retried by the node); Redis refusing a script is a plain error.
 */
export function describeFailure(where: string, script: LuaScript, error: unknown): Error {
  if (isUnavailable(error)) return new MetadataStoreUnavailableError(where, error);
  const message = error instanceof Error ? error.message : String(error);
  return new Error(`metadata store (${where}): ${script.name} failed: ${message}`, { cause: error });
}

/** Connection-level failures (as opposed to Redis refusing a script, which is a bug). */
export function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return true;
  if (error.name !== 'ReplyError') return true;
  return (
    /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/.test(error.message) || isMetadataLost(error)
  );
}

export function isMetadataLost(error: unknown): boolean {
  return error instanceof Error && error.message.includes(METADATA_LOST);
}

export async function quit(redis: Redis): Promise<void> {
  try {
    if (redis.status === 'ready') await redis.quit();
  } catch {
    // Already gone: nothing to say goodbye to.
  } finally {
    redis.disconnect();
  }
}
