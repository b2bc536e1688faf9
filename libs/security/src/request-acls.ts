import { type AclOperation, type AclResourceType, ErrorCode } from '@cohort/protocol';

/**
 * What each request needs, as Kafka's KafkaApis checks it (docs/security.md has the table): the
 * operation on the group it names, on each topic it names, and on the cluster. The edges (the
 * socket.io gateway, the REST guard) read their checks from here, and the table test walks it.
 *
 * - `group` fails with 30 GROUP_AUTHORIZATION_FAILED (per group where the request names several);
 * - `topic` fails with 29 TOPIC_AUTHORIZATION_FAILED per topic or partition, or leaves the topic out
 *   of an all-topics answer;
 * - `cluster` fails with 31 CLUSTER_AUTHORIZATION_FAILED; where `group` or `topic` is also given it
 *   is the wider grant that makes the narrower check unnecessary (ListGroups: DESCRIBE CLUSTER lists
 *   every group, else each group needs DESCRIBE; topic create: CREATE CLUSTER, else CREATE TOPIC).
 */
export interface RequestAcl {
  readonly group?: AclOperation;
  readonly topic?: AclOperation;
  readonly cluster?: AclOperation;
}

export const REQUEST_ACLS = {
  FindCoordinator: { group: 'DESCRIBE' },
  JoinGroup: { group: 'READ' },
  SyncGroup: { group: 'READ' },
  Heartbeat: { group: 'READ' },
  LeaveGroup: { group: 'READ' },
  OffsetCommit: { group: 'READ', topic: 'READ' },
  OffsetFetch: { group: 'DESCRIBE', topic: 'DESCRIBE' },
  OffsetDelete: { group: 'DELETE', topic: 'READ' },
  DescribeGroups: { group: 'DESCRIBE' },
  ListGroups: { cluster: 'DESCRIBE', group: 'DESCRIBE' },
  DeleteGroups: { group: 'DELETE' },
  // KIP-848: the heartbeat reads the group and describes the topics it subscribes to; the describe
  // leaves out a group that shows topics the caller may not describe (Kafka 4's KafkaApis).
  ConsumerGroupHeartbeat: { group: 'READ', topic: 'DESCRIBE' },
  ConsumerGroupDescribe: { group: 'DESCRIBE', topic: 'DESCRIBE' },
  // KIP-932: leasing and acknowledging read the group and each topic (a refused topic's partitions get 29).
  ShareAcquire: { group: 'READ', topic: 'READ' },
  ShareAcknowledge: { group: 'READ', topic: 'READ' },
  // KIP-932: as KIP-848's (Kafka 4's KafkaApis handleShareGroupHeartbeat / handleShareGroupDescribe).
  ShareGroupHeartbeat: { group: 'READ', topic: 'DESCRIBE' },
  ShareGroupDescribe: { group: 'DESCRIBE', topic: 'DESCRIBE' },
  Metadata: { topic: 'DESCRIBE' },
  CreateTopic: { cluster: 'CREATE', topic: 'CREATE' },
  AlterTopic: { topic: 'ALTER' },
  ReportEndOffsets: { topic: 'WRITE' },
  DescribeCluster: { cluster: 'DESCRIBE' },
  DescribeAcls: { cluster: 'DESCRIBE' },
  AlterAcls: { cluster: 'ALTER' },
} as const satisfies Record<string, RequestAcl>;

export type RequestName = keyof typeof REQUEST_ACLS;

/** The error a failed check of each resource type answers with (Kafka's Errors for each resource). */
export const AUTHORIZATION_ERRORS = {
  GROUP: ErrorCode.GROUP_AUTHORIZATION_FAILED,
  TOPIC: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
  CLUSTER: ErrorCode.CLUSTER_AUTHORIZATION_FAILED,
} as const satisfies Record<AclResourceType, number>;
