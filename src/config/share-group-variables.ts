import { Expose } from 'class-transformer';
import { IsIn, IsInt, Max, Min } from 'class-validator';
import { ConsumerGroupVariables } from './consumer-group-variables';
import { EnvInt, EnvTrimmed } from './env-transforms';

/** Kafka's int32 millisecond configs; also the largest delay a Node timer accepts. */
const MAX_MS = 2_147_483_647;

/**
 * The share group settings (KIP-932, Kafka's `group.share.*`), kept apart so that the schema of each
 * group type stays readable; EnvironmentVariables extends this class. The rules between them (a value
 * inside its min and max, the interval below the timeout) are checked with the other cross-field rules.
 * Ranges are Kafka's (ShareGroupConfig, GroupCoordinatorConfig) where Kafka fixes one.
 */
export class ShareGroupVariables extends ConsumerGroupVariables {
  /** Told to members in every ShareGroupHeartbeat response. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_SHARE_HEARTBEAT_INTERVAL_MS: number = 5_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_SHARE_MIN_HEARTBEAT_INTERVAL_MS: number = 1_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_SHARE_MAX_HEARTBEAT_INTERVAL_MS: number = 15_000;

  /** A share group member that does not heartbeat this long is fenced (its leases go back). */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_SHARE_SESSION_TIMEOUT_MS: number = 45_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_SHARE_MIN_SESSION_TIMEOUT_MS: number = 6_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_SHARE_MAX_SESSION_TIMEOUT_MS: number = 60_000;

  /** Members per share group (Kafka's `group.share.max.size`, 1 to 1000). */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(1000)
  GROUP_SHARE_MAX_SIZE: number = 200;

  /** How long a lease holds its offsets unless renewed. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  GROUP_SHARE_RECORD_LOCK_DURATION_MS: number = 30_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS: number = 1_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1000)
  @Max(3_600_000)
  GROUP_SHARE_MAX_RECORD_LOCK_DURATION_MS: number = 3_600_000;

  /** Deliveries before an offset is archived (Kafka's `group.share.delivery.count.limit`, 2 to 10). */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(2)
  @Max(10)
  GROUP_SHARE_DELIVERY_COUNT_LIMIT: number = 5;

  /** The most offsets past the share-partition start offset in flight per partition (100 to 10000, as Kafka). */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(100)
  @Max(10_000)
  GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS: number = 2_000;

  /**
   * The most offsets one ShareAcquire leases over all its partitions, whatever its `maxRecords` (Kafka
   * bounds a ShareFetch by its bytes; an answer lists offsets, about 70 bytes a lease, so 100000 stays
   * far below MAX_SOCKET_OUTPUT_BUFFER_BYTES). No delivery count moves for offsets past it.
   */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(100_000)
  GROUP_SHARE_MAX_ACQUIRE_RECORDS: number = 10_000;

  /** Where a new share group starts: the reported end (`latest`) or start (`earliest`) of each partition. */
  @Expose()
  @EnvTrimmed()
  @IsIn(['latest', 'earliest'])
  GROUP_SHARE_AUTO_OFFSET_RESET: 'latest' | 'earliest' = 'latest';
}

/**
 * Kafka's ShareGroupConfig requirements: each value inside its min and max, and the heartbeat interval
 * below the session timeout. One line per broken rule, naming the variables.
 */
export function shareGroupProblems(config: ShareGroupVariables): string[] {
  const problems: string[] = [];
  const within = (name: string, minName: string, maxName: string) => {
    const [value, min, max] = [name, minName, maxName].map((key) => (config as unknown as Record<string, number>)[key]);
    if (min > max) problems.push(`${minName}=${min} must not exceed ${maxName}=${max}`);
    else if (value < min || value > max)
      problems.push(`${name}=${value} must be between ${minName}=${min} and ${maxName}=${max}`);
  };
  within(
    'GROUP_SHARE_HEARTBEAT_INTERVAL_MS',
    'GROUP_SHARE_MIN_HEARTBEAT_INTERVAL_MS',
    'GROUP_SHARE_MAX_HEARTBEAT_INTERVAL_MS',
  );
  within('GROUP_SHARE_SESSION_TIMEOUT_MS', 'GROUP_SHARE_MIN_SESSION_TIMEOUT_MS', 'GROUP_SHARE_MAX_SESSION_TIMEOUT_MS');
  within(
    'GROUP_SHARE_RECORD_LOCK_DURATION_MS',
    'GROUP_SHARE_MIN_RECORD_LOCK_DURATION_MS',
    'GROUP_SHARE_MAX_RECORD_LOCK_DURATION_MS',
  );
  if (config.GROUP_SHARE_HEARTBEAT_INTERVAL_MS >= config.GROUP_SHARE_SESSION_TIMEOUT_MS) {
    problems.push(
      `GROUP_SHARE_HEARTBEAT_INTERVAL_MS=${config.GROUP_SHARE_HEARTBEAT_INTERVAL_MS} must be less than GROUP_SHARE_SESSION_TIMEOUT_MS=${config.GROUP_SHARE_SESSION_TIMEOUT_MS}`,
    );
  }
  return problems;
}
