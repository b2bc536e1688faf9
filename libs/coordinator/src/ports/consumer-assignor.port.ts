import type { TopicPartitions as TopicPartitionList } from '@cohort/protocol';

/**
 * The server assignor of a consumer group as the coordinator calls it: libs/assignors'
 * `ConsumerGroupAssignor` (Kafka's `ConsumerGroupPartitionAssignor`), declared structurally here so the
 * coordinator does not depend on libs/assignors (as `ServerAssignor` does for classic groups). Any
 * consumer group assignor of libs/assignors fits.
 */
export interface ConsumerGroupAssignorPort {
  readonly name: string;
  assign(group: ConsumerAssignorGroupSpec, cluster: ConsumerAssignorClusterView): Record<string, TopicPartitionList[]>;
  /**
   * Optional: the same assignment with each member's target at its index in `group.members`, which the
   * coordinator prefers (a record of thousands of member ids costs more to build and read than most
   * assignments); the built-in uniform assignor has it.
   */
  assignTargets?(group: ConsumerAssignorGroupSpec, cluster: ConsumerAssignorClusterView): TopicPartitionList[][];
}

/** One member as the assignor sees it: its subscription and its current target. */
export interface ConsumerAssignorMemberSpec {
  memberId: string;
  instanceId?: string | null;
  rackId?: string | null;
  /** Subscribed topic names, a resolved regex's topics included; topics that do not exist get nothing. */
  subscribedTopics: readonly string[];
  /** The member's current target assignment. */
  assignment: readonly TopicPartitionList[];
}

export interface ConsumerAssignorGroupSpec {
  /** Every member after this change, in the order they were put into the group. */
  members: readonly ConsumerAssignorMemberSpec[];
}

/** The subscribed topics that exist, with their partition counts (Kafka's subscription metadata). */
export interface ConsumerAssignorClusterView {
  partitionsPerTopic: Record<string, number>;
}
