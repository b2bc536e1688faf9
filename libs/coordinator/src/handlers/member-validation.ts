import { ErrorCode } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';

/**
 * Kafka's `validateCurrentMember`: a static member's instance id must map to this member id
 * (FENCED_INSTANCE_ID otherwise, UNKNOWN_MEMBER_ID when the instance is unknown), and the member must exist.
 */
export function validateCurrentMember(
  group: ClassicGroup,
  memberId: string,
  groupInstanceId: string | null | undefined,
): number {
  if (groupInstanceId !== null && groupInstanceId !== undefined) {
    const current = group.staticMemberId(groupInstanceId);
    if (current === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (current !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
  }
  return group.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
}

/** Kafka's `acceptJoiningMember` (KIP-389): may this member join without exceeding GROUP_MAX_SIZE? */
export function acceptJoiningMember(group: ClassicGroup, memberId: string, groupMaxSize: number): boolean {
  switch (group.state) {
    case 'Empty':
    case 'Dead':
      return true;
    // Awaiting joins are counted, not the size: the size may already exceed a lowered limit, and this
    // turns away the last members to rejoin.
    case 'PreparingRebalance': {
      const member = group.get(memberId);
      return (member !== undefined && group.isAwaitingJoin(member)) || group.numAwaiting < groupMaxSize;
    }
    case 'CompletingRebalance':
    case 'Stable':
      return group.has(memberId) || group.size < groupMaxSize;
  }
}
