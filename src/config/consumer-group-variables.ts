import { Expose } from 'class-transformer';
import { IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import { EnvInt, EnvTrimmed } from './env-transforms';
import { SecurityVariables } from './security-variables';

/** Kafka's int32 millisecond configs; also the largest delay a Node timer accepts. */
const MAX_MS = 2_147_483_647;

/** GROUP_CONSUMER_ASSIGNORS: comma-separated assignor names (each is looked up once the plugins are loaded). */
export const ASSIGNOR_LIST_PATTERN = /^\s*[^\s,]+\s*(,\s*[^\s,]+\s*)*$/;

/** GROUP_COORDINATOR_REBALANCE_PROTOCOLS: comma-separated protocol names (Kafka's `group.coordinator.rebalance.protocols`). */
export const REBALANCE_PROTOCOLS_PATTERN = /^\s*(classic|consumer|share)\s*(,\s*(classic|consumer|share)\s*)*$/i;

/** GROUP_CONSUMER_MIGRATION_POLICY: Kafka's `ConsumerGroupMigrationPolicy` names. */
export type ConsumerGroupMigrationPolicy = 'bidirectional' | 'upgrade' | 'downgrade' | 'disabled';
export const MIGRATION_POLICY_PATTERN = /^(bidirectional|upgrade|downgrade|disabled)$/i;

/**
 * The consumer group settings (KIP-848, Kafka's `group.consumer.*`), kept apart so that the schema of
 * each stays readable; EnvironmentVariables extends this class. The rules between them (a value inside
 * its min and max, the interval below the timeout) are checked with the other cross-field rules.
 */
export class ConsumerGroupVariables extends SecurityVariables {
  /** Told to members in every ConsumerGroupHeartbeat response. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: number = 5_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS: number = 1_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_CONSUMER_MAX_HEARTBEAT_INTERVAL_MS: number = 15_000;

  /** A member that does not heartbeat this long is fenced. */
  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_CONSUMER_SESSION_TIMEOUT_MS: number = 45_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS: number = 6_000;

  @Expose()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(MAX_MS)
  GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS: number = 60_000;

  /** Members per consumer group; unset = unlimited (Kafka's default is Integer.MAX_VALUE). */
  @Expose()
  @IsOptional()
  @EnvInt()
  @IsInt()
  @Min(1)
  @Max(2_147_483_647)
  GROUP_CONSUMER_MAX_SIZE?: number;

  /** Server assignors, the first the default: uniform, range or a plugin's name (ASSIGNOR_PLUGINS). */
  @Expose()
  @EnvTrimmed()
  @IsString()
  @Matches(ASSIGNOR_LIST_PATTERN, { message: '$property must be a comma-separated list of assignor names' })
  GROUP_CONSUMER_ASSIGNORS: string = 'uniform,range';

  /** The group protocols this node serves; `classic` is required (Kafka cannot turn it off either). */
  @Expose()
  @EnvTrimmed()
  @IsString()
  @Matches(REBALANCE_PROTOCOLS_PATTERN, {
    message: '$property must be a comma-separated list of classic, consumer and share',
  })
  GROUP_COORDINATOR_REBALANCE_PROTOCOLS: string = 'classic,consumer,share';

  /**
   * Online migration between the classic and the consumer protocol (Kafka's
   * `group.consumer.migration.policy`, case-insensitive like Kafka's): which way a group may convert
   * while it has members. Empty groups convert either way whatever it says.
   */
  @Expose()
  @EnvTrimmed()
  @IsString()
  @Matches(MIGRATION_POLICY_PATTERN, { message: '$property must be bidirectional, upgrade, downgrade or disabled' })
  GROUP_CONSUMER_MIGRATION_POLICY: string = 'bidirectional';
}

/** GROUP_COORDINATOR_REBALANCE_PROTOCOLS as a list of lower-case names, each once. */
export function rebalanceProtocolsOf(value: string): ('classic' | 'consumer' | 'share')[] {
  const names = value.split(',').map((entry) => entry.trim().toLowerCase());
  return [...new Set(names)] as ('classic' | 'consumer' | 'share')[];
}

/**
 * Kafka's GroupCoordinatorConfig requirements: each default inside its min and max, and the heartbeat
 * interval below the session timeout (a member told to heartbeat less often than it is fenced would be
 * fenced between two heartbeats). One line per broken rule, naming the variables.
 */
export function consumerGroupProblems(config: ConsumerGroupVariables): string[] {
  const problems: string[] = [];
  const within = (name: string, value: number, minName: string, min: number, maxName: string, max: number) => {
    if (min > max) problems.push(`${minName}=${min} must not exceed ${maxName}=${max}`);
    else if (value < min || value > max)
      problems.push(`${name}=${value} must be between ${minName}=${min} and ${maxName}=${max}`);
  };
  within(
    'GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS',
    config.GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS,
    'GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS',
    config.GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS,
    'GROUP_CONSUMER_MAX_HEARTBEAT_INTERVAL_MS',
    config.GROUP_CONSUMER_MAX_HEARTBEAT_INTERVAL_MS,
  );
  within(
    'GROUP_CONSUMER_SESSION_TIMEOUT_MS',
    config.GROUP_CONSUMER_SESSION_TIMEOUT_MS,
    'GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS',
    config.GROUP_CONSUMER_MIN_SESSION_TIMEOUT_MS,
    'GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS',
    config.GROUP_CONSUMER_MAX_SESSION_TIMEOUT_MS,
  );
  const protocols = config.GROUP_COORDINATOR_REBALANCE_PROTOCOLS;
  if (REBALANCE_PROTOCOLS_PATTERN.test(protocols) && !rebalanceProtocolsOf(protocols).includes('classic'))
    problems.push(
      `GROUP_COORDINATOR_REBALANCE_PROTOCOLS="${protocols}" must include classic (the classic protocol cannot be turned off, as in Kafka)`,
    );
  if (config.GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS >= config.GROUP_CONSUMER_SESSION_TIMEOUT_MS) {
    problems.push(
      `GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS=${config.GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS} must be less than GROUP_CONSUMER_SESSION_TIMEOUT_MS=${config.GROUP_CONSUMER_SESSION_TIMEOUT_MS}`,
    );
  }
  return problems;
}
