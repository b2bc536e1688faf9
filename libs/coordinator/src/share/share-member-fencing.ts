import type { Clock, LogRecord } from '@cohort/replication';
import { metadataHash } from '../consumer/subscription-metadata';
import { groupMemberHolder, type MemberQuotas } from '../group/member-quotas';
import type { OperationEffects } from '../runtime/operation-effects';
import type { ShareGroup, ShareGroupMember } from './share-group-model';
import { shareGroupEpochRecord, shareMemberTombstones } from './share-group-records';
import { computeShareTargets, shareSubscriptionMetadata } from './share-group-target';

/** A share group member's session expiry. */
export const shareSessionKey = (groupId: string, memberId: string): string =>
  `share-session\u0000${groupId}\u0000${memberId}`;

/** What fencing a member needs of the share group manager's dependencies. */
export interface ShareFencingDeps {
  effects: OperationEffects;
  clock: Clock;
  /** Partition counts of existing topics (the topic registry). */
  partitionsOf: (topic: string) => number | undefined;
  quotas?: MemberQuotas;
}

/**
 * Kafka's `shareGroupFenceMember`: the member's records go and the group epoch moves; the last
 * member's going also moves the assignment epoch. Cohort also gives the others their new targets now.
 * The member's session timer and its charge against its principal's limits go with it. `topicsAfter`:
 * the topics the group subscribes to without the member that exist.
 */
export function fenceShareMember(
  deps: ShareFencingDeps,
  group: ShareGroup,
  member: ShareGroupMember,
  topicsAfter: Iterable<string>,
): { records: LogRecord[]; changed: string[] } {
  const now = deps.clock.now();
  const metadata = shareSubscriptionMetadata(topicsAfter, deps.partitionsOf);
  const groupEpoch = group.groupEpoch + 1;
  const records = [
    ...shareMemberTombstones(group.groupId, member.memberId, now),
    shareGroupEpochRecord(group.groupId, groupEpoch, metadataHash(metadata), now),
  ];
  let changed: string[] = [];
  if (group.size === 1) {
    records.push(...computeShareTargets(group, groupEpoch, metadata, now, { removed: member.memberId }).records);
  } else {
    try {
      const result = computeShareTargets(group, groupEpoch, metadata, now, { removed: member.memberId });
      records.push(...result.records);
      changed = result.changed;
    } catch {
      // The others' next heartbeat runs the assignor again (the group epoch is ahead of the target's).
    }
  }
  deps.effects.cancel(shareSessionKey(group.groupId, member.memberId));
  deps.quotas?.release(groupMemberHolder('share', group.groupId, member.memberId));
  return { records, changed };
}
