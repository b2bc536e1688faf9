import type { CoordinatorMetrics, PushSink, TopicAccessPort } from '@cohort/coordinator';
import type { PeerAuthentication } from '@cohort/replication';
import type { CohortConfig } from '../config/cohort-config';
import type { NodeAddress } from './node-address';

export interface LogFlushMetrics {
  onLogFlush(durationMs: number, bytes: number): void;
  /** The storage of DATA_DIR failed: writes are refused until it heals (cohort_storage_faults_total, cohort_storage_fault). */
  onStorageFault?(): void;
  onStorageHealed?(): void;
  /** A damaged log was cut on start (LOG_RECOVERY_TRUNCATE_ON_CORRUPTION=true), losing `offsets` written offsets. */
  onLogCut?(offsets: number): void;
  /** How many partitions are not served because their log is damaged (cohort_log_damaged_partitions). */
  setDamagedPartitions?(count: number): void;
}

/** What building a node takes from the app, whatever the mode. */
export interface NodeDeps {
  config: CohortConfig;
  push: PushSink;
  metrics: CoordinatorMetrics;
  /** The embedded node's log flushes (LOG_FLUSH_POLICY=always), for /metrics. */
  logMetrics?: LogFlushMetrics;
  address: NodeAddress;
  /**
   * The replication transport's handshake in cluster mode (CLUSTER_SECRET_FILE; none without it). Security
   * reads the secret and hands it in, so the node knows nothing of src/security.
   */
  peerAuthentication?: PeerAuthentication;
  /** DESCRIBE TOPIC by the app's ACLs when they are on (security hands it in): regex members get only what they may describe. */
  topicAccess?: TopicAccessPort;
}
