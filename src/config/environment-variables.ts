import { Expose } from 'class-transformer';
import {
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  IsUrl,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
} from 'class-validator';
import { EnvBoolean, EnvInt, EnvTrimmed } from './env-transforms';
import { ShareGroupVariables } from './share-group-variables';

/** REDIS_SENTINELS: comma-separated host:port (the ports' range is checked with the other cross-field rules). */
export const SENTINELS_PATTERN = /^\s*[^\s,:]+:\d{1,5}\s*(,\s*[^\s,:]+:\d{1,5}\s*)*$/;

/** Largest delay a Node timer accepts; Kafka's int32 millisecond configs share the bound. */
const MAX_MS = 2_147_483_647;

/**
 * The environment as README.md's configuration table names it, with its defaults. Mode-dependent defaults (replication factor,
 * min ISR, flush policy) stay undefined here and are resolved in CohortConfig, which knows the mode.
 * The share group, consumer group and security variables are in ShareGroupVariables, ConsumerGroupVariables
 * and SecurityVariables.
 */
export class EnvironmentVariables extends ShareGroupVariables {
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  PORT: number = 3000;

  @Expose()
  @EnvTrimmed()
  @IsString()
  @MinLength(1)
  HOST: string = '0.0.0.0';

  /** Cluster mode: the replication transport's port (unset = PORT + 1000; 0 = any free port). */
  @Expose()
  @IsOptional()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(65535)
  REPLICATION_PORT?: number;

  @Expose()
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'], require_protocol: true })
  ADVERTISED_URL?: string;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(2_147_483_647)
  NODE_ID: number = 0;

  @Expose()
  @IsString()
  @MinLength(1)
  DATA_DIR: string = './data';

  @Expose()
  @EnvTrimmed()
  @IsIn(['embedded', 'redis'])
  CLUSTER_MODE: 'embedded' | 'redis' = 'embedded';

  @Expose()
  @IsUrl({ require_tld: false, protocols: ['redis', 'rediss'], require_protocol: true })
  REDIS_URL: string = 'redis://127.0.0.1:6379';

  /** Cluster mode: `host:port,host:port,...` of Redis Sentinels; when set, the master they elect is used. */
  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @Matches(SENTINELS_PATTERN, { message: 'REDIS_SENTINELS must be host:port[,host:port...]' })
  REDIS_SENTINELS?: string;

  /** The master name the Sentinels monitor (Sentinel's `monitor <name> ...`). */
  @Expose()
  @EnvTrimmed()
  @Matches(/^[A-Za-z0-9._-]+$/, { message: 'REDIS_SENTINEL_NAME must be letters, digits, ".", "_" or "-"' })
  @MaxLength(128)
  REDIS_SENTINEL_NAME: string = 'mymaster';

  // A Redis key prefix: keep it to characters that need no escaping in keys or logs.
  @Expose()
  @Matches(/^[A-Za-z0-9._-]+$/, { message: 'CLUSTER_ID must be letters, digits, ".", "_" or "-"' })
  @MaxLength(64)
  CLUSTER_ID: string = 'cohort';

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(10_000)
  OFFSETS_TOPIC_NUM_PARTITIONS: number = 50;

  @Expose()
  @IsOptional()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(64)
  OFFSETS_TOPIC_REPLICATION_FACTOR?: number;

  @Expose()
  @IsOptional()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(64)
  MIN_INSYNC_REPLICAS?: number;

  @Expose()
  @EnvBoolean()
  @IsBoolean()
  UNCLEAN_LEADER_ELECTION_ENABLE: boolean = false;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  REPLICA_LAG_TIME_MAX_MS: number = 10_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(MAX_MS)
  REPLICA_FETCH_WAIT_MAX_MS: number = 500;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  NODE_SESSION_TIMEOUT_MS: number = 6_000;

  @Expose()
  @IsOptional()
  @EnvTrimmed()
  @IsIn(['always', 'replicated'])
  LOG_FLUSH_POLICY?: 'always' | 'replicated';

  /**
   * Whether a log damaged where records known to be written are (a corrupt segment, not a torn tail)
   * is cut there on start and served (Kafka's recovery), losing those records, or left unserved until
   * the operator decides (the default).
   */
  @Expose()
  @EnvBoolean()
  @IsBoolean()
  LOG_RECOVERY_TRUNCATE_ON_CORRUPTION: boolean = false;

  /** Kafka's auto.leader.rebalance.enable: move leadership back to preferred replicas (cluster mode). */
  @Expose()
  @EnvBoolean()
  @IsBoolean()
  AUTO_LEADER_REBALANCE_ENABLE: boolean = true;

  /** Kafka's leader.imbalance.per.broker.percentage. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(100)
  LEADER_IMBALANCE_PER_BROKER_PERCENTAGE: number = 10;

  /** Kafka's leader.imbalance.check.interval.seconds. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(2_147_483)
  LEADER_IMBALANCE_CHECK_INTERVAL_SECONDS: number = 300;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_MIN_SESSION_TIMEOUT_MS: number = 6_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_MAX_SESSION_TIMEOUT_MS: number = 1_800_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(MAX_MS)
  GROUP_INITIAL_REBALANCE_DELAY_MS: number = 3_000;

  /**
   * Members one classic group may have (KIP-389). Kafka leaves it unlimited for classic groups and caps
   * its consumer groups at 200; 10000 is the largest group this project's bench forms (its join measure
   * starts the node with room for one more), so a group cannot grow past what is known to work.
   */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  GROUP_MAX_SIZE: number = 10_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1_048_576)
  OFFSET_METADATA_MAX_BYTES: number = 4_096;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(35_791_394) // keeps minutes * 60000 below 2^31 ms
  OFFSETS_RETENTION_MINUTES: number = 10_080;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  OFFSETS_RETENTION_CHECK_INTERVAL_MS: number = 600_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  OFFSETS_COMMIT_TIMEOUT_MS: number = 5_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(MAX_MS)
  MEMBER_DISCONNECT_GRACE_MS: number = 3_000;

  @Expose()
  @IsString()
  ASSIGNOR_PLUGINS: string = '';

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1_024)
  @Max(104_857_600)
  MAX_PAYLOAD_BYTES: number = 1_048_576;

  /**
   * Unsent output one socket connection may hold; past it the connection is closed at once (Redis's
   * `client-output-buffer-limit` hard limit). 0 turns it off.
   */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(4_294_967_296)
  MAX_SOCKET_OUTPUT_BUFFER_BYTES: number = 67_108_864;

  /** Unsent output above which a connection is closed once it stays there MAX_SOCKET_OUTPUT_BUFFER_SOFT_SECONDS. 0 turns it off. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(4_294_967_296)
  MAX_SOCKET_OUTPUT_BUFFER_SOFT_BYTES: number = 16_777_216;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(86_400)
  MAX_SOCKET_OUTPUT_BUFFER_SOFT_SECONDS: number = 10;

  /**
   * What all socket connections together may hold of messages received but not yet whole (a websocket
   * frame whose payload is still arriving); past it, a connection holding at least the average is closed
   * (Kafka's `queued.max.request.bytes` bounds its requests' memory the same way). At least
   * MAX_PAYLOAD_BYTES; 0 turns it off.
   */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(68_719_476_736)
  MAX_SOCKET_INPUT_BUFFER_BYTES: number = 268_435_456;

  /** Export `cohort_group_partition_lag{group,topic,partition}` (docs/lag.md); off by default: one series per partition. */
  @Expose()
  @EnvBoolean()
  @IsBoolean()
  METRICS_PARTITION_LAG: boolean = false;

  /** The most groups whose lag a node exports (the largest total lags), keeping label sets bounded (docs/lag.md). */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(0)
  @Max(1_000_000)
  METRICS_MAX_GROUPS: number = 1_000;

  /** pino level; not in README.md's configuration table (an implementer's choice). */
  @Expose()
  @EnvTrimmed()
  @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'])
  LOG_LEVEL: string = 'info';
}
