import { controllerLeaseMsFor, DEFAULT_REPLICATION_CONFIG, type ReplicationConfig } from '@cohort/replication';
import type { CohortConfig } from '../../config/cohort-config';

/** Replication settings of cluster mode from the variables of README.md's configuration table; the rest are Kafka's defaults. */
export function replicationConfigOf(config: CohortConfig): ReplicationConfig {
  const session = config.nodeSessionTimeoutMs;
  return {
    ...DEFAULT_REPLICATION_CONFIG,
    numPartitions: config.offsetsTopicNumPartitions,
    replicationFactor: config.offsetsTopicReplicationFactor,
    minInsyncReplicas: config.minInsyncReplicas,
    uncleanLeaderElectionEnable: config.uncleanLeaderElectionEnable,
    replicaLagTimeMaxMs: config.replicaLagTimeMaxMs,
    replicaFetchWaitMaxMs: config.replicaFetchWaitMaxMs,
    logFlushPolicy: config.logFlushPolicy,
    autoLeaderRebalanceEnable: config.autoLeaderRebalanceEnable,
    leaderImbalancePerBrokerPercentage: config.leaderImbalancePerBrokerPercentage,
    leaderImbalanceCheckIntervalMs: config.leaderImbalanceCheckIntervalSeconds * 1000,
    nodeSessionTimeoutMs: session,
    // A node renews several times per session and fences itself one heartbeat before it would expire.
    nodeHeartbeatIntervalMs: Math.max(
      1,
      Math.min(DEFAULT_REPLICATION_CONFIG.nodeHeartbeatIntervalMs, Math.floor(session / 4)),
    ),
    // A third of a session, at least a second: ISR shrinks proposed when the dead controller's
    // connections closed wait for its successor (issue #13).
    controllerLeaseMs: controllerLeaseMsFor(session),
    // A request must outlive the follower's long-poll (replica.socket.timeout.ms ≥ replica.fetch.wait.max.ms).
    requestTimeoutMs: Math.max(DEFAULT_REPLICATION_CONFIG.requestTimeoutMs, config.replicaFetchWaitMaxMs * 2),
  };
}

/**
 * The port of the replication transport: REPLICATION_PORT when set, else PORT + 1000 (so nodes on
 * consecutive ports, as scripts/start-cluster.sh and docker/compose.yml run them, never collide), and
 * any free port when PORT is 0 (tests).
 */
export function replicationPortOf(config: CohortConfig): number {
  if (config.replicationPort !== null) return config.replicationPort;
  if (config.port === 0) return 0;
  const derived = config.port + 1000;
  if (derived > 65_535)
    throw new Error(`PORT ${config.port} leaves no room for the replication port PORT+1000; set REPLICATION_PORT`);
  return derived;
}
