/**
 * The coordinator's settings: the variables of README.md's configuration table that concern groups and offsets, already parsed
 * and validated by the app (src/config). Names follow Kafka's config names in camelCase.
 */
export interface CoordinatorConfig {
  /** OFFSETS_TOPIC_NUM_PARTITIONS: fixed for the life of a cluster (changing it remaps every group). */
  numPartitions: number;
  /** GROUP_MIN_SESSION_TIMEOUT_MS / GROUP_MAX_SESSION_TIMEOUT_MS: JoinGroup outside → INVALID_SESSION_TIMEOUT. */
  groupMinSessionTimeoutMs: number;
  groupMaxSessionTimeoutMs: number;
  /** GROUP_INITIAL_REBALANCE_DELAY_MS: InitialDelayedJoin (KIP-134). */
  groupInitialRebalanceDelayMs: number;
  /** GROUP_MAX_SIZE (KIP-389); `Infinity` when unlimited. */
  groupMaxSize: number;
  /**
   * MAX_MEMBERS_PER_PRINCIPAL: members and KIP-394 pending ids one principal may hold on the node, across
   * its groups; beyond it a JoinGroup is answered THROTTLING_QUOTA_EXCEEDED. 0 = no limit.
   */
  maxMembersPerPrincipal: number;
  /** MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL: the bytes of JoinGroup protocols those members hold. 0 = no limit. */
  maxMemberMetadataBytesPerPrincipal: number;
  /** OFFSET_METADATA_MAX_BYTES: longer commit metadata → OFFSET_METADATA_TOO_LARGE for that partition. */
  offsetMetadataMaxBytes: number;
  /** OFFSETS_RETENTION_MINUTES (KIP-211 rules) and OFFSETS_RETENTION_CHECK_INTERVAL_MS (purge period). */
  offsetsRetentionMinutes: number;
  offsetsRetentionCheckIntervalMs: number;
  /** OFFSETS_COMMIT_TIMEOUT_MS: how long a write may wait for the high watermark. */
  offsetsCommitTimeoutMs: number;
  /** MEMBER_DISCONNECT_GRACE_MS: a dynamic member whose connection closed is removed after this. */
  memberDisconnectGraceMs: number;
  /**
   * Expiry of a new member whose JoinGroup is parked (Kafka's hard-coded NewMemberJoinTimeoutMs,
   * KAFKA-7610). Not an environment variable; configurable here for tests.
   */
  newMemberJoinTimeoutMs: number;
  /**
   * Whether a consumer group heartbeat whose member is left waiting for partitions other members must
   * first revoke has its answer held until they are released, for at most a fifth of the heartbeat
   * interval (`HeldAnswers`). Not an environment variable; on by default, off in tests that play each
   * member's heartbeats one at a time (an answer they await would wait for a heartbeat they send after it).
   */
  consumerHoldsUnreleasedAnswers: boolean;
  /**
   * How many parked heartbeats one turn of the event loop reconciles (`HeartbeatBatch.step`: the first
   * turn runs the batch's first halves and computes each group's target once; the reconciliations, each
   * with its record, follow this many a turn), so a burst (thousands of members joining, or a node behind
   * on its heartbeats) leaves sockets, timers and commits served between turns instead of after one long one.
   * Short turns also keep a burst's revocations quick: a joiner whose target is still held by a member
   * told to revoke waits for it (its answer held, `HeldAnswers`, or, past the hold's bound, answered
   * without it and pushed again once it is released), and the revoking member needs two round trips, each
   * waiting for a turn to end. Before answers were held, about 2,000 of 10,000 joiners were answered
   * before the release came at 500 a turn, about 800 at 200 (`npm run bench -- consumer-groups 10000
   * forming`, heartbeats per member). Not an environment variable: 200; the simulator sets a few, so
   * that the batches of its small groups span turns and meet its faults between them.
   */
  consumerHeartbeatPartsPerTurn: number;
  /** Records read per chunk while loading a partition. */
  loadBatchRecords: number;
  /** Rebalances kept per group for `GET /v1/groups/:groupId/rebalances`, and written with each GroupMetadata record. */
  rebalanceHistorySize: number;
  /** GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: told to consumer group members in every response. */
  groupConsumerHeartbeatIntervalMs: number;
  /** GROUP_CONSUMER_SESSION_TIMEOUT_MS: a consumer group member that does not heartbeat this long is fenced. */
  groupConsumerSessionTimeoutMs: number;
  /** GROUP_CONSUMER_MAX_SIZE: GROUP_MAX_SIZE_REACHED beyond it; `Infinity` when unlimited. */
  groupConsumerMaxSize: number;
  /** GROUP_SHARE_HEARTBEAT_INTERVAL_MS: told to share group members in every response. */
  groupShareHeartbeatIntervalMs: number;
  /** GROUP_SHARE_SESSION_TIMEOUT_MS: a share group member that does not heartbeat this long is fenced. */
  groupShareSessionTimeoutMs: number;
  /** GROUP_SHARE_MAX_SIZE: members per share group; GROUP_MAX_SIZE_REACHED beyond it. */
  groupShareMaxSize: number;
  /** GROUP_SHARE_RECORD_LOCK_DURATION_MS: how long a lease holds its offsets unless renewed. */
  groupShareRecordLockDurationMs: number;
  /** GROUP_SHARE_DELIVERY_COUNT_LIMIT: deliveries before an offset is archived (2 to 10). */
  groupShareDeliveryCountLimit: number;
  /** GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS: the most offsets past the share-partition start offset in flight. */
  groupSharePartitionMaxRecordLocks: number;
  /**
   * GROUP_SHARE_MAX_ACQUIRE_RECORDS: the most offsets one ShareAcquire leases over all its partitions,
   * whatever its `maxRecords`, so an answer stays far below the socket output limit.
   */
  groupShareMaxAcquireRecords: number;
  /** GROUP_SHARE_AUTO_OFFSET_RESET: where a new share group starts, the reported end or start of each partition. */
  groupShareAutoOffsetReset: 'latest' | 'earliest';
  /**
   * GROUP_CONSUMER_MIGRATION_POLICY (Kafka's `group.consumer.migration.policy`): whether a classic group
   * with members becomes a consumer group when a ConsumerGroupHeartbeat member joins it (`upgrade`), and
   * a consumer group of classic members becomes classic again when its last consumer-protocol member
   * leaves (`downgrade`). Empty groups change type either way whatever the policy.
   */
  groupConsumerMigrationPolicy: ConsumerGroupMigrationPolicy;
  /**
   * GROUP_COORDINATOR_REBALANCE_PROTOCOLS: the group protocols this node serves. Without `consumer`,
   * ConsumerGroupHeartbeat and ConsumerGroupDescribe answer UNSUPPORTED_VERSION (Kafka's KafkaApis).
   */
  rebalanceProtocols: readonly ('classic' | 'consumer' | 'share')[];
}

/** Kafka's `ConsumerGroupMigrationPolicy`. */
export type ConsumerGroupMigrationPolicy = 'bidirectional' | 'upgrade' | 'downgrade' | 'disabled';

export function isUpgradeEnabled(policy: ConsumerGroupMigrationPolicy): boolean {
  return policy === 'bidirectional' || policy === 'upgrade';
}

export function isDowngradeEnabled(policy: ConsumerGroupMigrationPolicy): boolean {
  return policy === 'bidirectional' || policy === 'downgrade';
}

/** README.md's configuration table defaults (and Kafka's, where these docs are silent). */
export const DEFAULT_COORDINATOR_CONFIG: Readonly<CoordinatorConfig> = Object.freeze({
  numPartitions: 50,
  groupMinSessionTimeoutMs: 6000,
  groupMaxSessionTimeoutMs: 1_800_000,
  groupInitialRebalanceDelayMs: 3000,
  groupMaxSize: 10_000,
  maxMembersPerPrincipal: 0,
  maxMemberMetadataBytesPerPrincipal: 0,
  offsetMetadataMaxBytes: 4096,
  offsetsRetentionMinutes: 10_080,
  offsetsRetentionCheckIntervalMs: 600_000,
  offsetsCommitTimeoutMs: 5000,
  memberDisconnectGraceMs: 0,
  newMemberJoinTimeoutMs: 300_000,
  consumerHoldsUnreleasedAnswers: true,
  consumerHeartbeatPartsPerTurn: 200,
  loadBatchRecords: 1000,
  rebalanceHistorySize: 20,
  groupConsumerHeartbeatIntervalMs: 5000,
  groupConsumerSessionTimeoutMs: 45_000,
  groupConsumerMaxSize: Number.POSITIVE_INFINITY,
  groupShareHeartbeatIntervalMs: 5000,
  groupShareSessionTimeoutMs: 45_000,
  groupShareMaxSize: 200,
  groupShareRecordLockDurationMs: 30_000,
  groupShareDeliveryCountLimit: 5,
  groupSharePartitionMaxRecordLocks: 2000,
  groupShareMaxAcquireRecords: 10_000,
  groupShareAutoOffsetReset: 'latest',
  groupConsumerMigrationPolicy: 'bidirectional',
  rebalanceProtocols: ['classic', 'consumer', 'share'] as const,
});

export function coordinatorConfig(overrides: Partial<CoordinatorConfig> = {}): CoordinatorConfig {
  return { ...DEFAULT_COORDINATOR_CONFIG, ...overrides };
}
