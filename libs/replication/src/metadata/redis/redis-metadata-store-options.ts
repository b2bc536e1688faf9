import type { Clock } from '../../time/clock';
import type { PartitionState } from '../partition-state';
import type { RedisLocation } from './redis-connections';

export interface RedisMetadataStoreOptions extends RedisLocation {
  /** REDIS_URL (with `sentinels`: only credentials and database; the Sentinels name the master). */
  url: string;
  /** CLUSTER_ID: every key and the change channel live under `<clusterId>:`. */
  clusterId: string;
  /**
   * How long after the metadata was initialized or lost no controller may be elected, so that live
   * nodes can first restore what they know (recovery-script.ts). Longer than a node's reconnect
   * back-off plus one heartbeat. Default 3000.
   */
  recoveryWindowMs?: number;
  /** Default 5000. */
  commandTimeoutMs?: number;
  /** How long `connect` waits for Redis. Default 10000. */
  connectTimeoutMs?: number;
  /** Default 1000. */
  maxReconnectDelayMs?: number;
  clock?: Clock;
  events?: RedisMetadataStoreEvents;
}

/** What the store reports of its connection, for logs and tests. */
export interface RedisMetadataStoreEvents {
  /** Redis became unreachable (once per outage). */
  onDisconnected?(error: Error): void;
  /** The connection is back (and the metadata checked and, if it was lost, restored). */
  onReconnected?(): void;
  /** A restore found the metadata missing (`initialized`) or, inside the window, put partition states back (`merged`). */
  onRestored?(mode: 'initialized' | 'merged', restoredPartitions: number): void;
  /** Redis held `stored` while this store had seen `seen` (lost writes); `repaired` replaced it. */
  onForkRepaired?(stored: PartitionState, seen: PartitionState, repaired: PartitionState): void;
  /** A background task (restore or watcher resync after a reconnect) failed; it is retried. */
  onBackgroundError?(error: Error): void;
}
