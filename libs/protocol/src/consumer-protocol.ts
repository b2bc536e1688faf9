/** The `consumer` protocol type's metadata and assignment (docs/protocol.md; libs/assignors/README.md): JSON, not Kafka's binary encoding. */

export interface TopicPartitions {
  topic: string;
  partitions: number[];
}

/** A member's JoinGroup `metadata` when `protocolType` is `consumer`. */
export interface Subscription {
  topics: string[];
  userData?: unknown;
  ownedPartitions?: TopicPartitions[];
  generationId?: number;
  rackId?: string | null;
}

/** A member's SyncGroup `assignment` when `protocolType` is `consumer`. */
export interface MemberAssignment {
  partitions: TopicPartitions[];
  userData?: unknown;
}

export const CONSUMER_PROTOCOL_TYPE = 'consumer';
