import type { Clock, LogRecord } from '@cohort/replication';
import type { ExistingSubscribedTopics } from '../consumer/existing-subscribed-topics';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { metadataHash } from '../consumer/subscription-metadata';
import { groupMemberHolder, type MemberQuotas } from '../group/member-quotas';
import type { OperationEffects } from '../runtime/operation-effects';
import type { ShareGroup, ShareGroupMember } from './share-group-model';
import type { ShareGroupStore } from './share-group-replay';
import type { ShareLeaseOwner } from './share-ports';
import { shareGroupEpochRecord, shareMemberTombstones } from './share-group-records';
import { computeShareTargets, shareSubscriptionMetadata } from './share-group-target';

/** A share group member's session expiry. */
export const shareSessionKey = (groupId: string, memberId: string): string =>
  `share-session\u0000${groupId}\u0000${memberId}`;

/** A share group's target once the sessions that ended at one instant are fenced. */
const shareRetargetKey = (groupId: string): string => `share-retarget\u0000${groupId}`;

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
  deferTarget = false,
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
  } else if (!deferTarget) {
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

/**
 * The share group members' sessions: each heartbeat restarts its member's, and one that ends fences the
 * member by a write nobody waits on, its leases going back. The others' new target is computed once for
 * every session of the group that ended at the same instant (`shareRetargetKey`, a timer armed for now,
 * which runs after them): a thousand workers cut off at once were a thousand runs of the assignor over
 * the group in one go, seconds in which the shard answered nobody. Each fencing still moves the group
 * epoch by one, as Kafka's does.
 */
export class ShareMemberSessions {
  constructor(
    private readonly deps: ShareFencingDeps & {
      groups: ShareGroupStore;
      config: { sessionTimeoutMs: number };
      leases: () => ShareLeaseOwner;
    },
    private readonly existing: ExistingSubscribedTopics,
    private readonly manager: {
      /** `records` applied now, in the write that commits them. */
      written: (records: LogRecord[]) => CoordinatorResult<never>;
      /** Told once a write that changed the targets of `memberIds` commits. */
      targetsChanged: (groupId: string, memberIds: string[]) => void;
    },
  ) {}

  /** The member heartbeated (or was loaded): its session starts again. */
  restart(groupId: string, memberId: string): void {
    this.deps.effects.schedule(shareSessionKey(groupId, memberId), this.deps.config.sessionTimeoutMs, () =>
      this.expire(groupId, memberId),
    );
  }

  private expire(groupId: string, memberId: string): void {
    const group = this.deps.groups.get(groupId);
    const member = group?.member(memberId);
    if (!group || !member) return;
    const topicsAfter = this.existing.after(group, member, undefined);
    const { records } = fenceShareMember(this.deps, group, member, topicsAfter, true);
    this.deps.effects.write(this.manager.written(records));
    this.deps.leases().releaseMember(groupId, memberId);
    if (group.size > 0) this.deps.effects.schedule(shareRetargetKey(groupId), 0, () => this.retarget(groupId));
  }

  /** The group's target at its epoch, once for the fencings before it; its members whose target changed are told. */
  private retarget(groupId: string): void {
    const group = this.deps.groups.get(groupId);
    if (!group || group.size === 0 || group.groupEpoch <= group.assignmentEpoch) return;
    const metadata = shareSubscriptionMetadata(this.existing.of(group), this.deps.partitionsOf);
    let target;
    try {
      target = computeShareTargets(group, group.groupEpoch, metadata, this.deps.clock.now(), {});
    } catch {
      return; // the members' next heartbeat runs the assignor again and answers its error
    }
    const write = this.manager.written(target.records);
    const applied = write.appendFuture;
    const { changed } = target;
    write.appendFuture = (outcome) => {
      applied?.(outcome);
      if (outcome.ok && changed.length > 0) this.manager.targetsChanged(groupId, changed);
    };
    this.deps.effects.write(write);
  }
}
