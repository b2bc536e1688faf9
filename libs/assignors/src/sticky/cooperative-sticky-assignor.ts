/**
 * Kafka's CooperativeStickyAssignor ("cooperative-sticky"): the sticky algorithm, but a partition that
 * changes owner is left out of this round's assignment; its owner revokes it and rejoins, and the
 * follow-up round assigns it. Members send only their generation as user data; previous ownership
 * comes from the subscription's ownedPartitions.
 */
import type { MemberAssignment } from '@cohort/protocol';
import type { ClusterView, MemberSubscription, PartitionAssignor } from '../api/partition-assignor';
import { assignmentFromOwners } from '../common/assignment-output';
import { readGroup } from '../common/group-input';
import type { RackAwareOptions } from '../common/rack-awareness';
import { DEFAULT_GENERATION, cooperativeMemberData, type CooperativeUserData } from './member-data';
import { stickyAssign, withholdTransfers } from './sticky-core';

export const COOPERATIVE_STICKY_ASSIGNOR_NAME = 'cooperative-sticky';

export interface CooperativeStickyAssignor extends PartitionAssignor {
  subscriptionUserData(topics: string[]): CooperativeUserData;
  onAssignment(assignment: MemberAssignment, generationId: number): void;
}

export function createCooperativeStickyAssignor(options: RackAwareOptions = {}): CooperativeStickyAssignor {
  let generation = DEFAULT_GENERATION;
  return {
    name: COOPERATIVE_STICKY_ASSIGNOR_NAME,
    supportedProtocols: ['cooperative', 'eager'],
    subscriptionUserData(): CooperativeUserData {
      return { generation };
    },
    onAssignment(_assignment: MemberAssignment, generationId: number): void {
      generation = generationId;
    },
    assign(cluster: ClusterView, members: MemberSubscription[]): Record<string, MemberAssignment> {
      const input = readGroup(cluster, members);
      const outcome = stickyAssign(input, { ...options, memberData: (m) => cooperativeMemberData(input.members[m].subscription) });
      withholdTransfers(input, outcome);
      return assignmentFromOwners(input, outcome.owner);
    },
  };
}
