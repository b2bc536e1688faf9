/**
 * The consumer group settings (Kafka's `group.consumer.*`): the node's configuration maps
 * GROUP_CONSUMER_* onto these. Times in milliseconds.
 */
export interface ConsumerGroupConfig {
  /** GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: told to members in every response. */
  heartbeatIntervalMs: number;
  /** GROUP_CONSUMER_SESSION_TIMEOUT_MS: a member that does not heartbeat this long is fenced. */
  sessionTimeoutMs: number;
  /** GROUP_CONSUMER_MAX_SIZE: GROUP_MAX_SIZE_REACHED beyond it; `Infinity` when unlimited. */
  maxSize: number;
}

export const DEFAULT_CONSUMER_GROUP_CONFIG: Readonly<ConsumerGroupConfig> = Object.freeze({
  heartbeatIntervalMs: 5000,
  sessionTimeoutMs: 45_000,
  maxSize: Number.POSITIVE_INFINITY,
});

export function consumerGroupConfig(overrides: Partial<ConsumerGroupConfig> = {}): ConsumerGroupConfig {
  return { ...DEFAULT_CONSUMER_GROUP_CONFIG, ...overrides };
}
