/**
 * Shapes of the REST answers the dashboard reads (docs/dashboard.md lists which page reads which): the
 * protocol library's, shared with the server, the SDK and the CLI (docs/rest.md).
 */
export type {
  AnyGroupStateName,
  ClusterInfo,
  DeadLetterRange,
  DeadLetters,
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
  SharePartitionView,
  TopicInfo,
  TopicPartitions,
} from '@cohort/protocol';
