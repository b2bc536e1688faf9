import type { ErrorFields } from './error-codes';
import type { TopicPartitions } from './consumer-protocol';

/**
 * Share groups' membership on the wire (KIP-932, docs/protocol.md "Share groups"): KIP-848's
 * heartbeat without revocation, the coordinator assigning every partition of the subscribed topics,
 * shared by several members when there are more members than partitions.
 */

/** `ShareGroupHeartbeat` (Kafka's ShareGroupHeartbeatRequest, topics named): fields left out or null are unchanged. */
export interface ShareGroupHeartbeatRequest {
  groupId: string;
  /** Chosen by the client (a UUID) and kept for the life of the member. */
  memberId: string;
  /** 0 joins, -1 leaves, above 0 the member's current epoch. */
  memberEpoch: number;
  rackId?: string | null;
  /** Required when joining; sent again in full after an error or a reconnect. */
  subscribedTopicNames?: string[] | null;
}

export interface ShareGroupHeartbeatResponse extends ErrorFields {
  memberId: string | null;
  memberEpoch: number;
  heartbeatIntervalMs: number;
  /** The member's whole assignment; null when it did not change and the request was not a full one. */
  assignment: { topicPartitions: TopicPartitions[] } | null;
}

export interface ShareGroupDescribeRequest {
  groupIds: string[];
}

/** One member in a ShareGroupDescribe answer. */
export interface DescribedShareGroupMember {
  memberId: string;
  rackId: string | null;
  memberEpoch: number;
  clientId: string;
  clientHost: string;
  subscribedTopicNames: string[];
  assignment: { topicPartitions: TopicPartitions[] };
}

export interface DescribedShareGroup extends ErrorFields {
  groupId: string;
  /** `Empty` or `Stable` (Kafka's share group states). */
  groupState: string;
  groupEpoch: number;
  assignmentEpoch: number;
  /** `simple`, Kafka's share assignor. */
  assignorName: string;
  members: DescribedShareGroupMember[];
}

export interface ShareGroupDescribeResponse extends ErrorFields {
  groups: DescribedShareGroup[];
}
