/**
 * The public face of @cohort/replication: what the node (src/) and the coordinator use. The coordinator
 * sees only the `PartitionStore` port and the time ports; the node builds an embedded
 * `LocalPartitionStore` or a cluster `ReplicationNode` from the adapters below. Test doubles, the
 * simulator's parts and test helpers are in the library's testing entry point (libs/replication/testing/),
 * which production code may not import.
 */

// Time and randomness: the ports the core takes, and their adapters (the deterministic ones also serve
// the coordinator's test harness in libs/coordinator/testing/).
export type { Clock, TimerHandle } from './time/clock';
export { RealClock } from './time/real-clock';
export { ManualClock } from './time/manual-clock';
export { SeededRandom, SystemRandom, type Random } from './time/random';

// The coordinator's port.
export type { LogRecord, StoredRecord } from './api/log-record';
export type {
  AppendResult,
  LeadershipListener,
  PartitionOffsets,
  PartitionStore,
  ReadResult,
  RecordVisitor,
} from './api/partition-store.port';

// Embedded mode: one node, segment files.
export {
  LocalPartitionStore,
  type LocalPartitionStoreOptions,
  type LogFlushPolicy,
} from './local/local-partition-store';
export {
  errnoCode,
  STORAGE_RETRY_MAX_MS,
  type StorageFaultEvents,
  type StorageFaultInfo,
} from './local/storage-faults';

// Cluster mode: a replication node over a metadata store and a transport.
export { controllerLeaseMsFor, DEFAULT_REPLICATION_CONFIG, type ReplicationConfig } from './replication-config';
export { ReplicationNode, type ReplicationNodeDeps } from './node/replication-node';
export type { ReplicaManager, ReplicaObserver } from './node/replica-manager';
export type { PartitionLog, StoredBatch } from './log/partition-log';
export { FileLog, type FileLogOptions } from './log/file/file-log';
export type { LogDamage, RecoveryReport } from './log/file/log-recovery';
export type { CheckpointStorage } from './storage/checkpoint-storage.port';
export { FileCheckpointStorage } from './storage/file-checkpoint-storage';
export { NO_LEADER, type IsrMember, type LeaderRecoveryState, type PartitionState } from './metadata/partition-state';
export type { ControllerLease, NodeRegistration } from './metadata/node-registration';
export type { CasOutcome, MetadataChangeListener, MetadataStore } from './metadata/metadata-store.port';
export {
  RedisMetadataStore,
  type RedisMetadataStoreEvents,
  type RedisMetadataStoreOptions,
} from './metadata/redis/redis-metadata-store';
export { MetadataStoreUnavailableError } from './metadata/redis/metadata-store-unavailable-error';
export {
  connectWithin,
  describeRedisLocation,
  openRedis,
  type RedisConnectionSettings,
  type RedisLocation,
  type SentinelAddress,
} from './metadata/redis/redis-connections';
export { LuaScript } from './metadata/redis/lua-script';
export type { PeerAddress, Transport } from './transport/transport.port';
export { NetworkTransport, type NetworkTransportOptions } from './transport/network/network-transport';
export type { PeerAuthentication } from './transport/network/peer-authentication';
