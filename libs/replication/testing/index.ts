/**
 * `@cohort/replication/testing`: the parts of the replication library that only tests, the simulator
 * and benchmarks use — in-memory doubles of the log, the metadata store, the network and the checkpoint
 * storage, the replica internals the simulator's invariant checks read, and test helpers. Production code
 * (src/, libs/<name>/src except specs) imports `@cohort/replication` only; `npm run lint` enforces it.
 */

// In-memory doubles of the ports.
export { MemoryLog, type MemoryLogOptions } from '@cohort/replication/log/memory-log';
export { InMemoryMetadataStore } from '@cohort/replication/metadata/in-memory-metadata-store';
export {
  InMemoryNetwork,
  type InterceptDecision,
  type InterceptedMessage,
  type Interceptor,
  type LinkConditions,
} from '@cohort/replication/transport/in-memory-network';
export { InMemoryTransport } from '@cohort/replication/transport/in-memory-transport';
export { InMemoryCheckpointStorage } from '@cohort/replication/storage/in-memory-checkpoint-storage';

// Replica internals the simulator drives and checks.
export { Partition, type PartitionRole } from '@cohort/replication/partition/partition';
export {
  KAFKA_REPLICATION_RULES,
  type FollowingReplica,
  type ReplicationRules,
} from '@cohort/replication/partition/replication-rules';
export { effectiveMinIsr } from '@cohort/replication/replication-config';
export { describePartitionState } from '@cohort/replication/metadata/partition-state';
export { ReplicationErrorCode } from '@cohort/replication/api/replication-error-code';
export type { AlterPartitionRequest, FetchRequest, FetchResponse } from '@cohort/replication/transport/messages';
export { TransportError } from '@cohort/replication/transport/transport.port';
export { formatEpochCheckpoint } from '@cohort/replication/epoch/epoch-checkpoint-format';

// Helpers.
export { produce } from './produce';
export { makeTempDir, removeDir } from './temp-dir';
export { failSyncs } from './failing-syncs';
export { edgeCaseBatch, flatten, rec, replay } from './record-fixtures';
export { logCommands, runLogCommands, type LogCommand, type LogHarness } from './log-properties';
export { metadataStoreContract, partitionState, type MetadataStoreHarness } from './metadata-store-contract';
export { freePort } from './free-port';
export { OwnRedisServer, pause, until } from './own-redis-server';
export { RedisStoreFixture, TEST_REDIS_URL, uniqueClusterId } from './redis-test-support';
export * from './page-cache-model';
export { journalFixture, type JournaledLogs } from './journal-fixture';
