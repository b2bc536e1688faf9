/**
 * Shapes of the REST answers the dashboard reads (docs/dashboard.md lists which page reads which): the
 * protocol library's, shared with the server, the SDK and the CLI (docs/rest.md).
 */
export type {
  AnyGroupStateName,
  ClusterInfo,
  GroupDescription,
  GroupLag,
  GroupListing,
  GroupMemberDescription as GroupMember,
  GroupStateName,
  LagSample,
  LagStatus,
  PartitionInfo,
  PartitionLag,
  RebalanceRecord,
  ResetOffsetsRequest,
  ResetOffsetsResult,
  ResetStrategy,
  TopicInfo,
  TopicPartitions,
} from '@cohort/protocol';
