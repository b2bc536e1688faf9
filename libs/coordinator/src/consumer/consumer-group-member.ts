import type { JoinGroupProtocol } from '@cohort/protocol';
import { MemberState } from './member-state';
import { NO_PARTITIONS, type TopicPartitions } from './topic-partitions';

/**
 * One member of a consumer group (Kafka's `ConsumerGroupMember` and `ModernGroupMember`). Immutable,
 * like Kafka's: every change builds a new member (`updatedMember`), so the group can compare the old
 * and new member to keep its counts and partition epochs right, and records can be built from either.
 * Everything here is backed by the MemberMetadata and CurrentMemberAssignment records.
 */
export interface ConsumerGroupMember {
  readonly memberId: string;
  /** The epoch of the assignment the member holds; 0 before its first, -1 once it left (replay), -2 a static member away. */
  readonly memberEpoch: number;
  /** The epoch before the last bump: a member whose bump reply was lost may still heartbeat with it. */
  readonly previousMemberEpoch: number;
  readonly state: MemberState;
  readonly instanceId: string | null;
  readonly rackId: string | null;
  readonly rebalanceTimeoutMs: number;
  readonly clientId: string;
  readonly clientHost: string;
  readonly subscribedTopicNames: ReadonlySet<string>;
  /** '' when the member subscribes by names only. */
  readonly subscribedTopicRegex: string;
  readonly serverAssignorName: string | null;
  readonly assignedPartitions: TopicPartitions;
  readonly partitionsPendingRevocation: TopicPartitions;
  /** Set for a member that speaks the classic protocol (JoinGroup/SyncGroup/Heartbeat) in a consumer group. */
  readonly classicMemberMetadata: ClassicMemberMetadata | null;
}

/**
 * Kafka's `ConsumerGroupMemberMetadataValue.ClassicMemberMetadata`: what a classic member told its last
 * JoinGroup, kept so its session is timed by its own session timeout, its SyncGroup and a downgrade find
 * its protocols (with their embedded `consumer` subscriptions), and a new leader knows it is classic.
 */
export interface ClassicMemberMetadata {
  readonly sessionTimeoutMs: number;
  readonly supportedProtocols: readonly JoinGroupProtocol[];
}

/** Kafka's `new ConsumerGroupMember.Builder(memberId).build()` defaults, with `fields` over them. */
export function newConsumerGroupMember(
  memberId: string,
  fields: Partial<Omit<ConsumerGroupMember, 'memberId'>> = {},
): ConsumerGroupMember {
  return {
    memberId,
    memberEpoch: 0,
    previousMemberEpoch: -1,
    state: MemberState.STABLE,
    instanceId: null,
    rackId: null,
    rebalanceTimeoutMs: -1,
    clientId: '',
    clientHost: '',
    subscribedTopicNames: new Set(),
    subscribedTopicRegex: '',
    serverAssignorName: null,
    assignedPartitions: NO_PARTITIONS,
    partitionsPendingRevocation: NO_PARTITIONS,
    classicMemberMetadata: null,
    ...fields,
  };
}

/** A copy of `member` with `changes`. */
export function updatedMember(member: ConsumerGroupMember, changes: Partial<ConsumerGroupMember>): ConsumerGroupMember {
  return { ...member, ...changes };
}

/** Kafka's `Builder.updateMemberEpoch`: the new epoch, the current one becoming the previous. */
export function withMemberEpoch(member: ConsumerGroupMember, memberEpoch: number): Partial<ConsumerGroupMember> {
  return { memberEpoch, previousMemberEpoch: member.memberEpoch };
}

/** Kafka's `ModernGroupMember.isReconciledTo`: stable at the group's target assignment epoch. */
export function isReconciledTo(member: ConsumerGroupMember, targetAssignmentEpoch: number): boolean {
  return member.state === MemberState.STABLE && member.memberEpoch === targetAssignmentEpoch;
}

/** Whether the member subscribed with a regular expression (Kafka: a non-empty `subscribedTopicRegex`). */
export function hasRegex(member: ConsumerGroupMember): boolean {
  return member.subscribedTopicRegex !== '';
}

/** Kafka's `useClassicProtocol`: the member joined through JoinGroup, not ConsumerGroupHeartbeat. */
export function usesClassicProtocol(member: ConsumerGroupMember): boolean {
  return member.classicMemberMetadata !== null;
}
