import type { Clock, Random } from '@cohort/replication';
import type { PushSink } from '../ports/group-coordinator.api';
import type { CoordinatorConfig } from '../ports/coordinator-config';
import type { MemberQuotas } from '../group/member-quotas';
import type { CoordinatorLogger, CoordinatorMetrics } from '../ports/coordinator-metrics.port';
import type { ConsumerGroupAssignorPort } from '../ports/consumer-assignor.port';
import type { ServerAssignorLookup } from '../ports/server-assignor.port';
import type { TopicRegistry } from '../ports/topic-registry.port';
import type { TopicAccessPort } from '../ports/topic-access.port';

/** What every shard shares: configuration and the ports to the outside world. */
export interface ShardEnv {
  config: CoordinatorConfig;
  clock: Clock;
  random: Random;
  topics: TopicRegistry;
  assignors: ServerAssignorLookup;
  /** The consumer groups' server assignors in GROUP_CONSUMER_ASSIGNORS order: the first is the default. */
  consumerAssignors: readonly ConsumerGroupAssignorPort[];
  push: PushSink;
  metrics: CoordinatorMetrics;
  logger: CoordinatorLogger;
  /** What each principal holds through membership, node-wide (every shard charges the same ledger). */
  quotas: MemberQuotas;
  /** DESCRIBE TOPIC by the app's ACLs (absent when they are off): filters each regex member's matches. */
  topicAccess?: TopicAccessPort;
}
