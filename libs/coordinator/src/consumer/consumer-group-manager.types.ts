import type { Clock, LogRecord } from '@cohort/replication';
import type { MemberQuotas } from '../group/member-quotas';
import type { OperationEffects } from '../runtime/operation-effects';
import type { ConsumerGroupAssignorPort } from '../ports/consumer-assignor.port';
import type { CoordinatorMetrics } from '../ports/coordinator-metrics.port';
import type { TopicAccessPort } from '../ports/topic-access.port';
import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupConfig } from './consumer-group-config';
import type { ConsumerGroupMember } from './consumer-group-member';
import type { ConsumerGroupStore } from './consumer-group-replay';
import type { PartitionCountLookup } from './subscription-metadata';

// What `ConsumerGroupManager` is built from, and what it asks of the online migration when it fences.

export interface ConsumerGroupManagerDeps {
  groups: ConsumerGroupStore;
  effects: OperationEffects;
  clock: Clock;
  config: ConsumerGroupConfig;
  /** The server assignors in GROUP_CONSUMER_ASSIGNORS order: the first is the default. */
  assignors: readonly ConsumerGroupAssignorPort[];
  /** Partition counts of existing topics (the topic registry). */
  partitionsOf: PartitionCountLookup;
  /** The names of every known topic, which regular expressions are matched against. */
  topicNames: () => readonly string[];
  /** How many topics the registry holds: topics are never deleted, so it moves exactly when one is created. */
  topicCount: () => number;
  /** A member left or was fenced: what is kept beside the group for it (its connection) can go. */
  onMemberGone?: (groupId: string, memberId: string) => void;
  /** A heartbeat of the member has arrived and is not answered yet (queued, or under way in a batch). */
  heartbeatWaiting?: (groupId: string, memberId: string) => boolean;
  /**
   * A member left or was fenced and the group epoch moved: the group's target is to be computed soon,
   * without waiting for another member's heartbeat, so those it concerns can be told (HeartbeatNow, docs/protocol.md).
   */
  groupMoved?: (groupId: string) => void;
  /** Epoch bumps and convergence times (optional: tests leave it out). */
  metrics?: CoordinatorMetrics;
  /** Online migration to the classic protocol (absent: a group never changes type while it has members). */
  migration?: ConsumerGroupDowngradePort;
  /** The node's per-principal membership limits (absent: nothing is counted). */
  quotas?: MemberQuotas;
  /** DESCRIBE TOPIC as the app's ACLs answer it (absent when ACLs are off: regex matches are not filtered). */
  topicAccess?: TopicAccessPort;
}

/**
 * What a fencing asks of the online migration (Kafka's `validateOnlineDowngradeWithFencedMember` and
 * `convertToClassicGroup`): when the last consumer-protocol member leaves a group of classic members,
 * the group becomes classic and these records (the consumer group's tombstones, the classic group's
 * record) replace the member's removal; `settled` learns whether they were committed.
 */
export interface ConsumerGroupDowngradePort {
  downgradeOnFence(group: ConsumerGroup, leaving: ConsumerGroupMember): Fencing | undefined;
}

/** The records of a fencing, and what must learn whether they committed. */
export interface Fencing {
  records: LogRecord[];
  settled?: (ok: boolean) => void;
}
