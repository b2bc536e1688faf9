/**
 * Replication settings (README.md's configuration table). Names mirror the env vars.
 */
export interface ReplicationConfig {
  /** OFFSETS_TOPIC_NUM_PARTITIONS: partitions the controller creates. */
  numPartitions: number;
  /** OFFSETS_TOPIC_REPLICATION_FACTOR. */
  replicationFactor: number;
  /** MIN_INSYNC_REPLICAS: acks=all gate and (strict min ISR, KIP-966) HW gate. */
  minInsyncReplicas: number;
  /** UNCLEAN_LEADER_ELECTION_ENABLE: elect a non-ISR replica when no ISR/ELR member can lead. */
  uncleanLeaderElectionEnable: boolean;
  /** KIP-966 eligible leader replicas: keep replicas dropped below min ISR electable. */
  eligibleLeaderReplicasEnable: boolean;
  /** REPLICA_LAG_TIME_MAX_MS: ISR removal window; the ISR-expiry task runs every half of it. */
  replicaLagTimeMaxMs: number;
  /** REPLICA_FETCH_WAIT_MAX_MS: follower long-poll. */
  replicaFetchWaitMaxMs: number;
  /** Back-off after a fetch error (replica.fetch.backoff.ms). */
  replicaFetchBackoffMs: number;
  /** Records per partition per fetch (replica.fetch.max.bytes, counted in records). */
  replicaFetchMaxRecords: number;
  /** NODE_SESSION_TIMEOUT_MS: a node that stops renewing its registration this long is fenced. */
  nodeSessionTimeoutMs: number;
  /** How often a node renews its registration (broker.heartbeat.interval.ms). */
  nodeHeartbeatIntervalMs: number;
  /** Controller lease length; the holder renews it every third of it. */
  controllerLeaseMs: number;
  /** replica.high.watermark.checkpoint.interval.ms */
  highWatermarkCheckpointIntervalMs: number;
  /** LOG_FLUSH_POLICY: `always` = fsync before an offset counts towards the HW; `replicated` = like Kafka. */
  logFlushPolicy: 'always' | 'replicated';
  /** AUTO_LEADER_REBALANCE_ENABLE: preferred-leader rebalancing (auto.leader.rebalance.enable). */
  autoLeaderRebalanceEnable: boolean;
  /** LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS, in ms: how often the controller checks the balance. */
  leaderImbalanceCheckIntervalMs: number;
  /** LEADER_IMBALANCE_PER_BROKER_PERCENTAGE: a node's share of preferred partitions led elsewhere that triggers elections. */
  leaderImbalancePerBrokerPercentage: number;
  /** Timeout of replica-to-replica and replica-to-controller requests (replica.socket.timeout.ms). */
  requestTimeoutMs: number;
  /** Period of the log cleaner over compacted partitions (log.cleaner.backoff.ms). */
  logCleanerIntervalMs: number;
  /** delete.retention.ms: how long a tombstone survives after the cleaning that first sees it. */
  deleteRetentionMs: number;
}

/** Kafka's defaults where Cohort has no env var of its own (the cluster-mode values of README.md's configuration table). */
export const DEFAULT_REPLICATION_CONFIG: ReplicationConfig = {
  numPartitions: 50,
  replicationFactor: 3,
  minInsyncReplicas: 2,
  uncleanLeaderElectionEnable: false,
  eligibleLeaderReplicasEnable: true,
  replicaLagTimeMaxMs: 10_000,
  replicaFetchWaitMaxMs: 500,
  replicaFetchBackoffMs: 1_000,
  replicaFetchMaxRecords: 1_000,
  nodeSessionTimeoutMs: 6_000,
  nodeHeartbeatIntervalMs: 1_000,
  controllerLeaseMs: 6_000,
  highWatermarkCheckpointIntervalMs: 5_000,
  logFlushPolicy: 'replicated',
  autoLeaderRebalanceEnable: true,
  leaderImbalanceCheckIntervalMs: 300_000,
  leaderImbalancePerBrokerPercentage: 10,
  requestTimeoutMs: 30_000,
  logCleanerIntervalMs: 15_000,
  deleteRetentionMs: 86_400_000,
};

/** min(MIN_INSYNC_REPLICAS, replication factor): what acks=all and the HW gate actually require. */
export function effectiveMinIsr(
  config: Pick<ReplicationConfig, 'minInsyncReplicas'>,
  replicationFactor: number,
): number {
  return Math.min(config.minInsyncReplicas, replicationFactor);
}

/**
 * The controller lease production runs with for a node session timeout: a third of the session, at
 * least a second (and never longer than the session), so a dead controller is replaced well before the
 * nodes it led are fenced, as Kafka's controller quorum elects a new leader
 * (controller.quorum.fetch.timeout.ms, 2 s) well within broker.session.timeout.ms (9 s). Cluster mode
 * and the simulator both take it from here.
 */
export function controllerLeaseMsFor(nodeSessionTimeoutMs: number): number {
  return Math.min(nodeSessionTimeoutMs, Math.max(1_000, Math.floor(nodeSessionTimeoutMs / 3)));
}
