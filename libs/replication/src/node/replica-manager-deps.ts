import type { PartitionLog } from '../log/partition-log';
import type { MetadataStore } from '../metadata/metadata-store.port';
import type { ReplicationRules } from '../partition/replication-rules';
import type { ReplicationConfig } from '../replication-config';
import type { CheckpointStorage } from '../storage/checkpoint-storage.port';
import type { Transport } from '../transport/transport.port';
import type { ControllerLocator } from './alter-partition-sender';
import type { TaskScope } from './task-scope';

/** What a ReplicaManager is built from (its node wires it). */
export interface ReplicaManagerDeps {
  nodeId: number;
  config: ReplicationConfig;
  scope: TaskScope;
  store: MetadataStore;
  transport: Transport;
  checkpoints: CheckpointStorage;
  openLog: (partition: number) => Promise<PartitionLog>;
  controller: ControllerLocator;
  /** Kafka's rules unless the simulator's self-test breaks one on purpose. */
  rules?: ReplicationRules;
  /** Observability hooks (the simulator checks invariants through them). */
  observer?: ReplicaObserver;
}

export interface ReplicaObserver {
  trace?(line: string): void;
  onTruncate?(nodeId: number, partition: number, toOffset: number, hw: number, reason: string): void;
  onError?(nodeId: number, error: unknown, context: string): void;
  /** A partition's log took writes again after a storage fault. */
  onLogHealed?(nodeId: number, partition: number): void;
}
