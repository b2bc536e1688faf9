import type { TopicPartitions as TopicPartitionList } from '@cohort/protocol';

/**
 * `ConsumerGroupHeartbeat` as the consumer group core takes it (Kafka's ConsumerGroupHeartbeatRequest,
 * topics named): fields left out or null are unchanged since the member's last heartbeat.
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
  topicPartitions?: TopicPartitionList[] | null;
}

export interface ConsumerGroupHeartbeatResponse {
  errorCode: number;
  errorName?: string;
  errorMessage?: string;
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** The member's whole assignment; null when it did not change and the request was not a full one. */
  assignment: { topicPartitions: TopicPartitionList[] } | null;
}

/** Who sent the request (the connection's client id and host), recorded with the member. */
export interface ConsumerRequestContext {
  clientId: string;
  clientHost: string;
}
