import type { ErrorFields } from './error-codes';
import type { TopicPartitions } from './consumer-protocol';

/**
 * Kafka 4's consumer group protocol (KIP-848) on the wire (docs/protocol.md, consumer groups): the
 * coordinator computes every member's target assignment and each member reconciles towards it.
 */

/**
 * `ConsumerGroupHeartbeat` (Kafka's ConsumerGroupHeartbeatRequest, topics named): fields left out or
 * null are unchanged since the member's last heartbeat.
 */
export interface ConsumerGroupHeartbeatRequest {
  groupId: string;
  /** Chosen by the client (a UUID, KIP-1082) and sent from the first heartbeat on. */
  memberId: string;
  /** 0 joins, -1 leaves, -2 leaves for now (static members), above 0 the member's current epoch. */
  memberEpoch: number;
  instanceId?: string | null;
  rackId?: string | null;
  /** -1 or absent: unchanged. */
  rebalanceTimeoutMs?: number | null;
  subscribedTopicNames?: string[] | null;
  subscribedTopicRegex?: string | null;
  serverAssignor?: string | null;
  /** The partitions the member owns; sent when they changed, and always after an error or a reconnect. */
  topicPartitions?: TopicPartitions[] | null;
}

export interface ConsumerGroupHeartbeatResponse extends ErrorFields {
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** The member's whole assignment; null when it did not change and the request was not a full one. */
  assignment: { topicPartitions: TopicPartitions[] } | null;
}

export interface ConsumerGroupDescribeRequest {
  groupIds: string[];
}

/** One member in a ConsumerGroupDescribe answer. */
export interface DescribedConsumerGroupMember {
  memberId: string;
  instanceId: string | null;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  subscribedTopicRegex: string;
  assignment: { topicPartitions: TopicPartitions[] };
  targetAssignment: { topicPartitions: TopicPartitions[] };
  /** Kafka's member type: 1 for the consumer protocol (0 would be a classic member of a converted group). */
  memberType: number;
}

export interface DescribedConsumerGroup extends ErrorFields {
  groupId: string;
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  assignorName: string;
  members: DescribedConsumerGroupMember[];
}

export interface ConsumerGroupDescribeResponse extends ErrorFields {
  groups: DescribedConsumerGroup[];
}

/** The group types of `ListGroups` (`typesFilter`, `groupType`). */
export type GroupType = 'classic' | 'consumer' | 'share';

/** `HeartbeatNow`: the member's target changed or a partition it waits for was released; heartbeat at once. */
export interface HeartbeatNowPush {
  groupId: string;
  memberEpoch: number;
  reason: string;
}
