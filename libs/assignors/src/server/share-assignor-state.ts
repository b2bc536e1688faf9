/** What both of the share assignor's builders share: the members' old and new assignments, and their quotas. */
import type { ModelMember } from './group-model';

/** A member's assignment: topic index → partitions. */
export type MemberTopics = Map<number, Set<number>>;

export interface ShareAssignmentState {
  /** Each member's current target, by member index (Kafka's `oldGroupAssignment`). */
  old: MemberTopics[];
  /** The members whose assignment changed (Kafka's `newGroupAssignment`); the others keep `old`. */
  next: Map<number, MemberTopics>;
}

export function ownedOf(member: ModelMember): MemberTopics {
  return new Map(member.owned.map(({ topic, partitions }) => [topic, new Set(partitions)]));
}

/**
 * Kafka's desired assignment count per member: the slots (`desiredSharing` members on each of
 * `numTargets` partitions) spread over `numMembers` members, the first ones rounding up, computed in
 * doubles exactly as Java does so that the same members get the extra slot.
 */
export function desiredCounts(desiredSharing: number, numTargets: number, numMembers: number): number[] {
  const precise = (desiredSharing * numTargets) / numMembers;
  const counts: number[] = [];
  for (let m = 0; m < numMembers; m++) counts.push(Math.ceil(precise * (m + 1)) - Math.ceil(precise * m));
  return counts;
}
