/**
 * Raised by the Redis metadata store when Redis cannot be reached (down, restarting, connection lost,
 * command timed out). Per the MetadataStore contract the operation may or may not have been applied;
 * callers retry, and every write is epoch-guarded so a retry is safe.
 */
export class MetadataStoreUnavailableError extends Error {
  readonly code = 'METADATA_STORE_UNAVAILABLE';

  constructor(where: string, cause: unknown) {
    super(`metadata store unavailable (${where}): ${cause instanceof Error ? cause.message : String(cause)}`, {
      cause,
    });
    this.name = 'MetadataStoreUnavailableError';
  }
}

/** The URL without credentials, for messages and logs. */
export function redactRedisUrl(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}
