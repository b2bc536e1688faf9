/**
 * Kafka's StickyAssignor ("sticky", eager): balanced, and as few partitions moved as balance allows.
 * A member remembers its last assignment and generation (onAssignment) and sends them back as user
 * data at the next join; the leader reads previous ownership from there (see member-data.ts).
 */
import type { MemberAssignment } from '@cohort/protocol';
import type { ClusterView, MemberSubscription, PartitionAssignor } from '../api/partition-assignor';
import { assignmentFromOwners } from '../common/assignment-output';
import { readGroup } from '../common/group-input';
import type { RackAwareOptions } from '../common/rack-awareness';
import { stickyMemberData, type StickyUserData } from './member-data';
import { stickyAssign } from './sticky-core';

export const STICKY_ASSIGNOR_NAME = 'sticky';

export interface StickyAssignor extends PartitionAssignor {
  subscriptionUserData(topics: string[]): StickyUserData | null;
  onAssignment(assignment: MemberAssignment, generationId: number): void;
}

export function createStickyAssignor(options: RackAwareOptions = {}): StickyAssignor {
  let memberAssignment: MemberAssignment['partitions'] | null = null;
  let generation: number | undefined;
  return {
    name: STICKY_ASSIGNOR_NAME,
    supportedProtocols: ['eager'],
    subscriptionUserData(): StickyUserData | null {
      if (memberAssignment === null) return null;
      return generation === undefined
        ? { previousAssignment: memberAssignment }
        : { previousAssignment: memberAssignment, generation };
    },
    onAssignment(assignment: MemberAssignment, generationId: number): void {
      memberAssignment = assignment.partitions.map((entry) => ({
        topic: entry.topic,
        partitions: [...entry.partitions],
      }));
      generation = generationId;
    },
    assign(cluster: ClusterView, members: MemberSubscription[]): Record<string, MemberAssignment> {
      const input = readGroup(cluster, members);
      const outcome = stickyAssign(input, {
        ...options,
        memberData: (m) => stickyMemberData(input.members[m].subscription),
      });
      return assignmentFromOwners(input, outcome.owner);
    },
  };
}
