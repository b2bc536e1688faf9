import { resolve } from 'node:path';
import { type ConsumerGroupMigrationPolicy, rebalanceProtocolsOf } from './consumer-group-variables';
import type { EnvironmentVariables } from './environment-variables';
import { replicationSettings } from './mode-defaults';
import { SecurityConfig } from './security-config';

/**
 * The validated configuration, typed and with every default resolved. Injected by class; built once
 * from the environment that @nestjs/config validated (see AppModule.forRoot).
 */
export class CohortConfig {
  readonly port: number;
  readonly host: string;
  /** REPLICATION_PORT; null = derived from PORT (src/node/cluster/replication-settings.ts). */
  readonly replicationPort: number | null;
  /** ADVERTISED_URL when set; otherwise derived from the bound address once listening (NodeAddress). */
  readonly advertisedUrl: string | null;
  readonly nodeId: number;
  /** Absolute, so that a later chdir cannot move the log. */
  readonly dataDir: string;
  readonly clusterMode: 'embedded' | 'redis';
  readonly redisUrl: string;
  /** REDIS_SENTINELS parsed; empty = connect to REDIS_URL directly. */
  readonly redisSentinels: Array<{ host: string; port: number }>;
  readonly redisSentinelName: string;
  readonly clusterId: string;
  readonly offsetsTopicNumPartitions: number;
  readonly offsetsTopicReplicationFactor: number;
  readonly minInsyncReplicas: number;
  readonly uncleanLeaderElectionEnable: boolean;
  readonly replicaLagTimeMaxMs: number;
  readonly replicaFetchWaitMaxMs: number;
  readonly nodeSessionTimeoutMs: number;
  readonly logFlushPolicy: 'always' | 'replicated';
  /** LOG_RECOVERY_TRUNCATE_ON_CORRUPTION: cut a corrupt log on start, losing written records, instead of leaving its partition unserved. */
  readonly logRecoveryTruncateOnCorruption: boolean;
  readonly autoLeaderRebalanceEnable: boolean;
  readonly leaderImbalancePerBrokerPercentage: number;
  readonly leaderImbalanceCheckIntervalSeconds: number;
  readonly groupMinSessionTimeoutMs: number;
  readonly groupMaxSessionTimeoutMs: number;
  readonly groupInitialRebalanceDelayMs: number;
  /** Infinity when unlimited. */
  readonly groupMaxSize: number;
  /** GROUP_CONSUMER_*: the consumer groups' (KIP-848) heartbeat interval, session timeout and size; Infinity when unlimited. */
  readonly groupConsumerHeartbeatIntervalMs: number;
  readonly groupConsumerSessionTimeoutMs: number;
  readonly groupConsumerMaxSize: number;
  /** GROUP_CONSUMER_MIGRATION_POLICY, lower case. */
  readonly groupConsumerMigrationPolicy: ConsumerGroupMigrationPolicy;
  /** GROUP_CONSUMER_ASSIGNORS: the consumer groups' server assignors, the first the default. */
  readonly groupConsumerAssignors: string[];
  /** GROUP_SHARE_*: the share groups' (KIP-932) membership timing and size, and their share partitions' leases. */
  readonly groupShareHeartbeatIntervalMs: number;
  readonly groupShareSessionTimeoutMs: number;
  readonly groupShareMaxSize: number;
  readonly groupShareRecordLockDurationMs: number;
  readonly groupShareMinRecordLockDurationMs: number;
  readonly groupShareMaxRecordLockDurationMs: number;
  readonly groupShareDeliveryCountLimit: number;
  readonly groupSharePartitionMaxRecordLocks: number;
  readonly groupShareMaxAcquireRecords: number;
  readonly groupShareAutoOffsetReset: 'latest' | 'earliest';
  /** GROUP_COORDINATOR_REBALANCE_PROTOCOLS: the group protocols this node serves (always classic). */
  readonly groupCoordinatorRebalanceProtocols: ('classic' | 'consumer' | 'share')[];
  readonly offsetMetadataMaxBytes: number;
  readonly offsetsRetentionMinutes: number;
  readonly offsetsRetentionCheckIntervalMs: number;
  readonly offsetsCommitTimeoutMs: number;
  readonly memberDisconnectGraceMs: number;
  readonly assignorPlugins: string[];
  readonly maxPayloadBytes: number;
  /** Each socket connection's unsent output: closed past `hardBytes`, or above `softBytes` for `softSeconds` (0 turns a limit off). */
  readonly socketOutputLimits: { hardBytes: number; softBytes: number; softSeconds: number };
  /** What all connections may hold of messages not yet whole (0 = no limit). */
  readonly socketInputBufferBytes: number;
  readonly logLevel: string;
  readonly metricsPartitionLag: boolean;
  readonly metricsMaxGroups: number;
  /** Authentication, protected mode, TLS, the cluster secret, limits and origins (docs/security.md). */
  readonly security: SecurityConfig;

  constructor(env: EnvironmentVariables) {
    const replication = replicationSettings(env);
    this.port = env.PORT;
    this.host = env.HOST;
    this.replicationPort = env.REPLICATION_PORT ?? null;
    this.advertisedUrl = env.ADVERTISED_URL?.replace(/\/+$/, '') ?? null;
    this.nodeId = env.NODE_ID;
    this.dataDir = resolve(env.DATA_DIR);
    this.clusterMode = env.CLUSTER_MODE;
    this.redisUrl = env.REDIS_URL;
    this.redisSentinels = (env.REDIS_SENTINELS ?? '')
      .split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '')
      .map((entry) => {
        const colon = entry.lastIndexOf(':');
        return { host: entry.slice(0, colon), port: Number(entry.slice(colon + 1)) };
      });
    this.redisSentinelName = env.REDIS_SENTINEL_NAME;
    this.clusterId = env.CLUSTER_ID;
    this.offsetsTopicNumPartitions = env.OFFSETS_TOPIC_NUM_PARTITIONS;
    this.offsetsTopicReplicationFactor = replication.replicationFactor;
    this.minInsyncReplicas = replication.minInsyncReplicas;
    this.uncleanLeaderElectionEnable = env.UNCLEAN_LEADER_ELECTION_ENABLE;
    this.replicaLagTimeMaxMs = env.REPLICA_LAG_TIME_MAX_MS;
    this.replicaFetchWaitMaxMs = env.REPLICA_FETCH_WAIT_MAX_MS;
    this.nodeSessionTimeoutMs = env.NODE_SESSION_TIMEOUT_MS;
    this.logFlushPolicy = replication.logFlushPolicy;
    this.logRecoveryTruncateOnCorruption = env.LOG_RECOVERY_TRUNCATE_ON_CORRUPTION;
    this.autoLeaderRebalanceEnable = env.AUTO_LEADER_REBALANCE_ENABLE;
    this.leaderImbalancePerBrokerPercentage = env.LEADER_IMBALANCE_PER_BROKER_PERCENTAGE;
    this.leaderImbalanceCheckIntervalSeconds = env.LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS;
    this.groupMinSessionTimeoutMs = env.GROUP_MIN_SESSION_TIMEOUT_MS;
    this.groupMaxSessionTimeoutMs = env.GROUP_MAX_SESSION_TIMEOUT_MS;
    this.groupInitialRebalanceDelayMs = env.GROUP_INITIAL_REBALANCE_DELAY_MS;
    this.groupMaxSize = env.GROUP_MAX_SIZE;
    this.groupConsumerHeartbeatIntervalMs = env.GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS;
    this.groupConsumerSessionTimeoutMs = env.GROUP_CONSUMER_SESSION_TIMEOUT_MS;
    this.groupConsumerMaxSize = env.GROUP_CONSUMER_MAX_SIZE ?? Number.POSITIVE_INFINITY;
    this.groupConsumerMigrationPolicy =
      env.GROUP_CONSUMER_MIGRATION_POLICY.toLowerCase() as ConsumerGroupMigrationPolicy;
    this.groupConsumerAssignors = env.GROUP_CONSUMER_ASSIGNORS.split(',').map((entry) => entry.trim());
    this.groupShareHeartbeatIntervalMs = env.GROUP_SHARE_HEARTBEAT_INTERVAL_MS;
    this.groupShareSessionTimeoutMs = env.GROUP_SHARE_SESSION_TIMEOUT_MS;
    this.groupShareMaxSize = env.GROUP_SHARE_MAX_SIZE;
    this.groupShareRecordLockDurationMs = env.GROUP_SHARE_RECORD_LOCK_DURATION_MS;
    this.groupShareMinRecordLockDurationMs = env.GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS;
    this.groupShareMaxRecordLockDurationMs = env.GROUP_SHARE_MAX_RECORD_LOCK_DURATION_MS;
    this.groupShareDeliveryCountLimit = env.GROUP_SHARE_DELIVERY_COUNT_LIMIT;
    this.groupSharePartitionMaxRecordLocks = env.GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS;
    this.groupShareMaxAcquireRecords = env.GROUP_SHARE_MAX_ACQUIRE_RECORDS;
    this.groupShareAutoOffsetReset = env.GROUP_SHARE_AUTO_OFFSET_RESET;
    this.groupCoordinatorRebalanceProtocols = rebalanceProtocolsOf(env.GROUP_COORDINATOR_REBALANCE_PROTOCOLS);
    this.offsetMetadataMaxBytes = env.OFFSET_METADATA_MAX_BYTES;
    this.offsetsRetentionMinutes = env.OFFSETS_RETENTION_MINUTES;
    this.offsetsRetentionCheckIntervalMs = env.OFFSETS_RETENTION_CHECK_INTERVAL_MS;
    this.offsetsCommitTimeoutMs = env.OFFSETS_COMMIT_TIMEOUT_MS;
    this.memberDisconnectGraceMs = env.MEMBER_DISCONNECT_GRACE_MS;
    this.assignorPlugins = env.ASSIGNOR_PLUGINS.split(',')
      .map((entry) => entry.trim())
      .filter((entry) => entry !== '');
    this.maxPayloadBytes = env.MAX_PAYLOAD_BYTES;
    this.socketOutputLimits = {
      hardBytes: env.MAX_SOCKET_OUTPUT_BUFFER_BYTES,
      softBytes: env.MAX_SOCKET_OUTPUT_BUFFER_SOFT_BYTES,
      softSeconds: env.MAX_SOCKET_OUTPUT_BUFFER_SOFT_SECONDS,
    };
    this.socketInputBufferBytes = env.MAX_SOCKET_INPUT_BUFFER_BYTES;
    this.logLevel = env.LOG_LEVEL;
    this.metricsPartitionLag = env.METRICS_PARTITION_LAG;
    this.metricsMaxGroups = env.METRICS_MAX_GROUPS;
    this.security = new SecurityConfig(env);
  }

  /** Clients must authenticate (tokens, JWTs or client certificates); authorization applies. */
  get authenticationEnabled(): boolean {
    return this.security.authenticationEnabled;
  }
}
