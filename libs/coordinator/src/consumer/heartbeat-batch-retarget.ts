import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupManager } from './consumer-group-manager';
import type { BatchTells } from './heartbeat-batch-tells';
import { MemberState } from './member-state';
import type { GroupSubscription } from './subscription-metadata';

/**
 * A group a member left or was fenced from, none of whose heartbeats is in the batch's round: its target
 * at its new epoch, computed now rather than at the next heartbeat of one of its members (5 s away by
 * default), so the members whose target changed, and those waiting for partitions that are free now, are
 * told to heartbeat at once. Returns the members the target weighed (0 when none was due), or null when
 * the assignor failed: that leaves it to the next heartbeat, which answers the error.
 */
export function retargetMovedGroup(
  manager: ConsumerGroupManager,
  group: ConsumerGroup,
  subscription: () => GroupSubscription,
  now: number,
  tells: BatchTells,
): number | null {
  const { groupId } = group;
  let work = 0;
  try {
    const target = manager.computeTarget(group, subscription, now);
    if (target) {
      work = target.targetAssignment.size;
      manager.write(target.records, groupId);
      for (const memberId of target.changed) tells.add(groupId, memberId);
    }
  } catch {
    return null;
  }
  for (const member of group.members.values())
    if (member.state === MemberState.UNRELEASED_PARTITIONS && !group.waitingOnUnreleasedPartition(member))
      tells.add(groupId, member.memberId);
  return work;
}
