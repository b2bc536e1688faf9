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

// Read once here rather than at each use, which is a getter call per member (see common/group-input.ts).
const readMemberData = cooperativeMemberData;

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
      // Every owned partition is read once: checked as it is read rather than validated beforehand.
      const input = readGroup(cluster, members, undefined, 'checked-when-read');
      const outcome = stickyAssign(input, {
        ...options,
        memberData: (m) => readMemberData(input.members[m].subscription),
        ownedPartitionsUnchecked: true,
      });
      withholdTransfers(input, outcome);
      return assignmentFromOwners(input, outcome.owner);
    },
  };
}
