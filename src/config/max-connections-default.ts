import { readFileSync } from 'node:fs';

/** MAX_CONNECTIONS when unset and the process may open files enough: a node's socket sessions at most. */
export const DEFAULT_MAX_CONNECTIONS = 100_000;

/**
 * The soft limit on this process's open files (Linux: /proc/self/limits; Node raises it to the hard
 * limit as it starts), or null where it cannot be read or is unlimited.
 */
export function openFilesLimit(
  readLimits: () => string = () => readFileSync('/proc/self/limits', 'utf8'),
): number | null {
  let text: string;
  try {
    text = readLimits();
  } catch {
    return null;
  }
  const line = text.split('\n').find((l) => l.startsWith('Max open files'));
  const soft = line?.slice('Max open files'.length).trim().split(/\s+/)[0];
  const limit = soft === undefined ? Number.NaN : Number(soft);
  return Number.isSafeInteger(limit) && limit > 0 ? limit : null;
}

/**
 * MAX_CONNECTIONS when the operator did not set it: 100,000, or fewer where the process may open fewer
 * files, so that sockets alone never take the descriptors the node needs for itself (log segments and
 * their checkpoints, REST and metrics requests, replication links). A tenth of the limit, and at least
 * 256 descriptors, stay for those; Redis lowers `maxclients` to its descriptor limit the same way.
 */
export function defaultMaxConnections(fileLimit: number | null): number {
  if (fileLimit === null) return DEFAULT_MAX_CONNECTIONS;
  const room = fileLimit - Math.max(256, Math.floor(fileLimit / 10));
  return Math.max(1, Math.min(DEFAULT_MAX_CONNECTIONS, room));
}
