import type { LogRecord } from '@cohort/replication';
import type { ConsumerGroupAssignorPort } from '../ports/consumer-assignor.port';
import type { ConsumerGroup } from './consumer-group';
import { type GroupSubscription, metadataHash } from './subscription-metadata';
import { updateTargetAssignment } from './target-assignment-update';
import { samePartitions } from './topic-partitions';

/** A group moved outside a heartbeat (a topic or an ACL change), and the members whose target changed. */
export interface MovedGroup {
  groupId: string;
  memberIds: string[];
}

export interface GroupMovesDeps {
  groups: Iterable<ConsumerGroup>;
  assignors: readonly ConsumerGroupAssignorPort[];
  now: number;
  /** The group's subscription as it stands (names and regexes resolved, regexes filtered by ACLs). */
  subscription(group: ConsumerGroup): GroupSubscription;
  /** The record that moves the group to `groupEpoch` with `hash`, for a change no member made. */
  bump(group: ConsumerGroup, groupEpoch: number, hash: number): LogRecord;
  /** Applies the records of the group now and writes them with the step. */
  write(records: LogRecord[], groupId: string): void;
}

/**
 * Moves each group `affected` selects whose subscription metadata changed, or that `moved` says moved
 * (the group epoch, then the target assignment), outside any heartbeat, so the members whose target
 * changed can be told to heartbeat now. An assignor that fails leaves the epoch bumped; the next
 * heartbeat tries again (and answers its error).
 */
export function moveGroups(
  deps: GroupMovesDeps,
  affected: (group: ConsumerGroup) => boolean,
  moved: (group: ConsumerGroup, subscription: GroupSubscription) => boolean,
): MovedGroup[] {
  const result: MovedGroup[] = [];
  for (const group of deps.groups) {
    if (!affected(group) || group.size === 0) continue;
    const subscription = deps.subscription(group);
    const { metadata, resolved } = subscription;
    const hash = metadataHash(metadata);
    if (hash === group.metadataHash && !moved(group, subscription)) continue;
    const groupEpoch = group.groupEpoch + 1;
    const records = [deps.bump(group, groupEpoch, hash)];
    const memberIds: string[] = [];
    try {
      const target = updateTargetAssignment(group, groupEpoch, deps.assignors, metadata, resolved, deps.now);
      records.push(...target.records);
      for (const [memberId, partitions] of target.targetAssignment)
        if (!samePartitions(partitions, group.targetAssignmentOf(memberId))) memberIds.push(memberId);
    } catch {
      // The next heartbeat runs the assignor again and answers its error.
    }
    deps.write(records, group.groupId);
    result.push({ groupId: group.groupId, memberIds });
  }
  return result;
}
