import { type CoordinatorConfig, coordinatorConfig } from '@cohort/coordinator';
import type { CohortConfig } from '../config/cohort-config';

/** The coordinator's settings from the validated configuration (README.md's configuration table); the rest keep the library's defaults. */
export function coordinatorConfigOf(config: CohortConfig): CoordinatorConfig {
  return coordinatorConfig({
    numPartitions: config.offsetsTopicNumPartitions,
    groupMinSessionTimeoutMs: config.groupMinSessionTimeoutMs,
    groupMaxSessionTimeoutMs: config.groupMaxSessionTimeoutMs,
    groupInitialRebalanceDelayMs: config.groupInitialRebalanceDelayMs,
    groupMaxSize: config.groupMaxSize,
    maxMembersPerPrincipal: config.security.maxMembersPerPrincipal,
    maxMemberMetadataBytesPerPrincipal: config.security.maxMemberMetadataBytesPerPrincipal,
    offsetMetadataMaxBytes: config.offsetMetadataMaxBytes,
    offsetsRetentionMinutes: config.offsetsRetentionMinutes,
    offsetsRetentionCheckIntervalMs: config.offsetsRetentionCheckIntervalMs,
    offsetsCommitTimeoutMs: config.offsetsCommitTimeoutMs,
    memberDisconnectGraceMs: config.memberDisconnectGraceMs,
    groupConsumerHeartbeatIntervalMs: config.groupConsumerHeartbeatIntervalMs,
    groupConsumerSessionTimeoutMs: config.groupConsumerSessionTimeoutMs,
    groupConsumerMaxSize: config.groupConsumerMaxSize,
    groupShareHeartbeatIntervalMs: config.groupShareHeartbeatIntervalMs,
    groupShareSessionTimeoutMs: config.groupShareSessionTimeoutMs,
    groupShareMaxSize: config.groupShareMaxSize,
    groupShareRecordLockDurationMs: config.groupShareRecordLockDurationMs,
    groupShareDeliveryCountLimit: config.groupShareDeliveryCountLimit,
    groupSharePartitionMaxRecordLocks: config.groupSharePartitionMaxRecordLocks,
    groupShareMaxAcquireRecords: config.groupShareMaxAcquireRecords,
    groupShareAutoOffsetReset: config.groupShareAutoOffsetReset,
    groupConsumerMigrationPolicy: config.groupConsumerMigrationPolicy,
    rebalanceProtocols: config.groupCoordinatorRebalanceProtocols,
  });
}
