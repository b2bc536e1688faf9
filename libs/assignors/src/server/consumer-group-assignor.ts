/**
 * Server assignors for consumer groups (Kafka 4's consumer group protocol, Kafka's `ConsumerGroupPartitionAssignor`): the
 * coordinator, not a member, computes each member's target assignment. Built in: `uniform` and `range`,
 * giving exactly the assignments of Kafka's `UniformAssignor` and `RangeAssignor` (group-coordinator
 * module) for the same inputs; §5 plugins serve through an adapter (plugin-server-assignor.ts).
 */
import type { TopicPartitions } from '@cohort/protocol';
import type { ClusterView } from '../api/partition-assignor';

/** The two kinds of group an assignor can serve (`GET /v1/assignors` rows carry them). */
export type GroupType = 'classic' | 'consumer';

/** One member as a server assignor sees it: Kafka's `MemberSubscription` and its current target. */
export interface ConsumerGroupMemberSpec {
  memberId: string;
  instanceId?: string | null;
  rackId?: string | null;
  /** Subscribed topic names as the member sent them (a regex's topics resolved); unknown topics get nothing. */
  subscribedTopics: readonly string[];
  /** The member's current target assignment, each topic's partitions in the order the group stored them. */
  assignment: readonly TopicPartitions[];
}

export interface ConsumerGroupSpec {
  /**
   * Every member of the group after this change, in the order they were put into the group's member
   * map (Kafka iterates its `HashMap<String, _>` of members, whose order depends on insertion order
   * where ids share a bucket).
   */
  members: readonly ConsumerGroupMemberSpec[];
}

/**
 * memberId → its new target assignment; every member of the spec has an entry, possibly empty. An
 * entry may be the member's own `assignment` list from the spec, or share its objects (the built-in
 * assignors hand an unchanged target back as given): callers read results and never mutate them.
 */
export type ConsumerGroupAssignment = Record<string, TopicPartitions[]>;

/**
 * The same assignment as one entry per member of the spec, at that member's index in `group.members`:
 * what the coordinator reads, member by member in the spec's order. A record of 10,000 member ids
 * costs V8 about 3 ms to build (and a lookup per member to read), more than the uniform assignor's
 * whole deal of a fresh 10,000-member group; an array costs next to nothing.
 */
export type ConsumerGroupTargets = TopicPartitions[][];

export interface ConsumerGroupAssignor {
  /** The name a member asks for with `serverAssignor` (`uniform`, `range`, or a plugin's). */
  readonly name: string;
  /**
   * Computes the group's target assignment. Synchronous, as Kafka runs its assignors on the
   * coordinator thread; throws `KafkaError` INVALID_REQUEST (42) on input no group can have (a
   * partition in two members' targets), `AssignorError` when a plugin misbehaves.
   */
  assign(group: ConsumerGroupSpec, cluster: ClusterView): ConsumerGroupAssignment;
  /**
   * Optional: the same assignment as `assign`'s, as ConsumerGroupTargets. The coordinator calls it
   * when an assignor has it, `assign` otherwise (a plugin's adapter has only `assign`).
   */
  assignTargets?(group: ConsumerGroupSpec, cluster: ClusterView): ConsumerGroupTargets;
}
