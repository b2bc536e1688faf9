import type { AdminOptions, CohortAdmin } from '@cohort/client';

/**
 * The admin calls the CLI makes: the SDK's `CohortAdmin` (`@cohort/client`), on which the CLI runs, and
 * which tests can replace by a fake. The commands depend on this interface only; the response types are
 * the REST API's (`@cohort/protocol`, docs/rest.md).
 */
export type AdminApi = Pick<
  CohortAdmin,
  | 'listGroups'
  | 'describeGroup'
  | 'deleteGroup'
  | 'groupRebalances'
  | 'groupLag'
  | 'fetchOffsets'
  | 'setOffsets'
  | 'resetOffsets'
  | 'deleteOffsets'
  | 'listTopics'
  | 'describeTopic'
  | 'createTopic'
  | 'alterTopic'
  | 'reportOffsets'
  | 'cluster'
  | 'clusterPartitions'
  | 'listAcls'
  | 'createAcls'
  | 'deleteAcls'
  | 'listAssignors'
  | 'assign'
>;

export type { AdminOptions };
export type {
  AclBinding,
  GroupDescription,
  GroupOffsets,
  ResetOffsetsRequest,
  ResetOffsetsResult,
  TopicInfo,
} from '@cohort/protocol';
