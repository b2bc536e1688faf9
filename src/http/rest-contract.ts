/**
 * Compile-time check (run by `npm run lint`) that what the REST controllers answer has exactly the
 * shape @cohort/protocol's `rest` module declares, which the SDK's admin client, the CLI and the
 * dashboard are typed by. A field renamed or added on one side only fails here.
 */
import type { AssignorDescription } from '@cohort/assignors';
import type { GroupSummaryView, GroupView, RebalanceView, TopicInfo } from '@cohort/coordinator';
import type * as Rest from '@cohort/protocol';
import type { NodeView, PartitionView } from '../node/cluster-status';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type WithCoordinator<T> = T & { coordinator: number | null };

export const REST_BODIES_MATCH: [
  Same<WithCoordinator<GroupSummaryView>, Rest.GroupListing>,
  Same<WithCoordinator<GroupView>, Rest.GroupDescription>,
  Same<RebalanceView, Rest.RebalanceRecord>,
  Same<TopicInfo, Rest.TopicInfo>,
  Same<NodeView, Rest.ClusterNode>,
  Same<PartitionView, Rest.PartitionInfo>,
  Same<AssignorDescription, Rest.AssignorInfo>,
] = [true, true, true, true, true, true, true];
