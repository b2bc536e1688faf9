import type { LogRecord } from '@cohort/replication';
import type { ConsumerGroupAssignorPort } from '../ports/consumer-assignor.port';
import type { ConsumerGroup } from './consumer-group';
import { type ConsumerGroupMember, hasRegex, isReconciledTo } from './consumer-group-member';
import { currentAssignmentRecord, memberSubscriptionRecord } from './consumer-records';
import type { EpochRecorder } from './epoch-recorder';
import { CurrentAssignmentBuilder } from './current-assignment-builder';
import { sameMember, sameNames } from './member-equality';
import { MemberState } from './member-state';
import { MemberFilteredRegexes, RegexAccess } from './regex-access';
import type { TopicAccessPort } from '../ports/topic-access.port';
import {
  groupSubscription,
  type GroupSubscription,
  metadataHash,
  type PartitionCountLookup,
  subscribedRegexesAfter,
} from './subscription-metadata';
import { ExistingSubscribedTopics } from './existing-subscribed-topics';
import { topicMatches } from './topic-regex';
import { updateTargetAssignment } from './target-assignment-update';
import type { TopicPartitionList, TopicPartitions } from './topic-partitions';

export interface MemberProgressDeps {
  assignors: readonly ConsumerGroupAssignorPort[];
  partitionsOf: PartitionCountLookup;
  topicNames: () => readonly string[];
  /** How many topics the registry holds (it moves exactly when one is created). */
  topicCount: () => number;
  /** The epoch record of a bump (with the group's epoch history), from the manager's `EpochRecorder`. */
  bumpRecord: EpochRecorder['bumpRecord'];
  /** The member must revoke partitions: fence it unless it has moved past `memberEpoch` within `timeoutMs`. */
  armRebalanceTimeout: (groupId: string, memberId: string, memberEpoch: number, timeoutMs: number) => void;
  /** The member no longer has to revoke anything. */
  cancelRebalanceTimeout: (groupId: string, memberId: string) => void;
  /** DESCRIBE TOPIC by the app's ACLs: each regex member's matches are filtered by it (absent when ACLs are off). */
  topicAccess?: TopicAccessPort;
}

/** One member's change, as a heartbeat (or a classic member's JoinGroup) brings it. */
export interface MemberChange {
  group: ConsumerGroup;
  /** False when the group exists only once these records are applied (its first member). */
  groupExists: boolean;
  /** The member as the group knows it (or a new one). */
  member: ConsumerGroupMember;
  /** The member with what the request changed. */
  updated: ConsumerGroupMember;
  /** The partitions the member says it owns; null when it did not say. */
  owned: readonly TopicPartitionList[] | null;
}

/** A member's change after steps 1 and 2, waiting for its target (step 3) to be reconciled (step 4). */
export interface PreparedChange extends MemberChange {
  /** The member's topic names or regex changed: unsubscribed topics' partitions go at once. */
  subscriptionChanged: boolean;
  /** The group epoch once the change's records are applied. */
  groupEpoch: number;
  /** The group's subscription with the change. */
  subscription: GroupSubscription;
}

/** What step 4 reads of a prepared change (not the group's subscription: the target was computed from it). */
export type ReconcilingChange = Omit<PreparedChange, 'subscription'>;

/** A heartbeat's first half (`ConsumerGroupManager.prepareJoin`): its change after steps 1 and 2, and its records. */
export interface PreparedJoin {
  prepared: PreparedChange;
  records: LogRecord[];
  /** A join, or a request with every field: its answer carries the assignment. */
  full: boolean;
}

/** A first half once its records are written, as its second half (`ConsumerGroupManager.finishJoin`) needs it. */
export interface ParkedJoin {
  prepared: ReconcilingChange;
  full: boolean;
}

/**
 * Steps 1-4 of Kafka's `consumerGroupHeartbeat` once the member is known, shared by the consumer
 * protocol's heartbeat and a classic member's JoinGroup (`classicGroupJoinToConsumerGroup`): the
 * member's record if it changed, the group epoch bumped when a subscription or a subscribed topic
 * changed, a new target assignment when the epoch is ahead of it, and the member reconciled towards
 * its target. Records are appended to `records`; the member as it ends is returned.
 */
export class MemberProgress {
  /** Each regex member's caller (the one that receives its assignment), whose ACLs filter what its pattern gives it. */
  readonly access?: RegexAccess;
  /** Each group's topics subscribed by name that exist, kept while the names, the topics and their sizes stay. */
  private readonly existing: ExistingSubscribedTopics;

  constructor(private readonly deps: MemberProgressDeps) {
    this.access = deps.topicAccess && new RegexAccess(deps.topicAccess);
    this.existing = new ExistingSubscribedTopics(deps.partitionsOf, deps.topicCount);
  }

  advance(change: MemberChange, records: LogRecord[], now: number): ConsumerGroupMember {
    const prepared = this.prepare(change, records, now);
    const { group, updated } = change;
    // 3. A new target assignment when the group epoch is ahead of it.
    let targetEpoch = group.assignmentEpoch;
    let target: TopicPartitions;
    if (prepared.groupEpoch > group.assignmentEpoch) {
      const { metadata, resolved } = prepared.subscription;
      const result = updateTargetAssignment(group, prepared.groupEpoch, this.deps.assignors, metadata, resolved, now, {
        previous: change.member,
        updated: prepared.updated,
      });
      records.push(...result.records);
      target = result.targetAssignment.get(updated.memberId) ?? new Map();
      targetEpoch = prepared.groupEpoch;
    } else {
      target = group.targetAssignmentFor(updated.memberId, updated.instanceId);
    }
    return this.reconcile(
      prepared,
      prepared.updated,
      targetEpoch,
      target,
      prepared.subscription.resolved,
      records,
      now,
    );
  }

  /**
   * Steps 1 and 2: the member's record if it changed, and the group epoch bump, appended to `records`
   * (not applied). What step 4 needs is returned.
   */
  prepare(change: MemberChange, records: LogRecord[], now: number): PreparedChange {
    const { group, member, updated } = change;
    const groupId = group.groupId;
    // 1. The member's record if anything changed.
    let subscriptionChanged = false;
    if (!sameMember(updated, member)) {
      records.push(memberSubscriptionRecord(groupId, updated, now));
      subscriptionChanged =
        !sameNames(updated.subscribedTopicNames, member.subscribedTopicNames) ||
        updated.subscribedTopicRegex !== member.subscribedTopicRegex;
    }

    // 2. The group epoch moves when the group is new, a subscription changed or a subscribed topic did.
    const previousId = group.staticMemberId(updated.instanceId);
    const replaced = previousId !== undefined && previousId !== updated.memberId ? group.member(previousId) : undefined;
    const previous = replaced ?? group.member(updated.memberId);
    // The replaced static member is gone with its caller (forgetting it can only give less).
    if (replaced) this.access?.forget(groupId, replaced.memberId);
    // A member subscribed as before leaves the group's counts as they are: no copies of them to build.
    const sameSubscription =
      previous !== undefined &&
      previous.subscribedTopicRegex === updated.subscribedTopicRegex &&
      sameNames(previous.subscribedTopicNames, updated.subscribedTopicNames);
    const subscription = sameSubscription
      ? this.currentSubscription(group)
      : this.subscriptionAfter(group, previous, updated);
    const hash = metadataHash(subscription.metadata);
    let groupEpoch = group.groupEpoch;
    if (
      !change.groupExists ||
      subscriptionChanged ||
      hash !== group.metadataHash ||
      this.regexAccessChanged(group, updated, subscription)
    ) {
      groupEpoch += 1;
      const reason = !previous
        ? 'member-joined'
        : subscriptionChanged
          ? 'subscription-changed'
          : 'topic-metadata-changed';
      const cause = { reason, memberId: updated.memberId } as const;
      records.push(this.deps.bumpRecord(group, groupEpoch, hash, cause, group.size + (previous ? 0 : 1), now));
    }
    // Spelled out: spreading `change` was the costliest line of a steady heartbeat (a slow generic copy).
    const { groupExists, owned } = change;
    return { group, groupExists, member, updated, owned, subscriptionChanged, groupEpoch, subscription };
  }

  /**
   * Step 4: `member` (the prepared member, as the group now holds it) reconciled towards `target` at
   * `targetEpoch`; its record, if it changed, appended to `records`.
   */
  reconcile(
    prepared: ReconcilingChange,
    member: ConsumerGroupMember,
    targetEpoch: number,
    target: TopicPartitions,
    resolved: ReadonlyMap<string, ReadonlySet<string>> | (() => ReadonlyMap<string, ReadonlySet<string>>),
    records: LogRecord[],
    now: number,
  ): ConsumerGroupMember {
    const { group, owned, subscriptionChanged } = prepared;
    const groupId = group.groupId;
    if (!subscriptionChanged && isReconciledTo(member, targetEpoch)) return member;
    const next = new CurrentAssignmentBuilder(member)
      .withTargetAssignment(targetEpoch, target)
      .withHasSubscriptionChanged(subscriptionChanged)
      .withResolvedRegularExpressions(typeof resolved === 'function' ? resolved() : resolved)
      .withCurrentPartitionEpoch((topic, p) => group.currentPartitionEpoch(topic, p))
      .withOwnedTopicPartitions(owned ?? null)
      .withTopicExists((topic) => this.deps.partitionsOf(topic) !== undefined)
      .build();
    if (sameMember(next, member)) return member;
    records.push(currentAssignmentRecord(groupId, next, now));
    if (next.state === MemberState.UNREVOKED_PARTITIONS)
      this.deps.armRebalanceTimeout(groupId, next.memberId, next.memberEpoch, next.rebalanceTimeoutMs);
    else this.deps.cancelRebalanceTimeout(groupId, next.memberId);
    return next;
  }

  /** The group's subscription as it stands (its names and regexes, resolved against the registry now). */
  currentSubscription(group: ConsumerGroup): GroupSubscription {
    return this.subscription(group.groupId, this.existing.of(group), group.subscribedRegexes);
  }

  /** The group's subscription once `before` is replaced by `after` (either absent), without changing the group. */
  subscriptionAfter(
    group: ConsumerGroup,
    before?: ConsumerGroupMember,
    after?: ConsumerGroupMember,
  ): GroupSubscription {
    return this.subscription(
      group.groupId,
      this.existing.after(group, before, after),
      subscribedRegexesAfter(group, before, after),
    );
  }

  /**
   * The group's subscribed topics (`names`: those subscribed by name that exist, and the topics its
   * regexes match, resolved against the registry now); with ACLs on, each member's regex gives it only
   * the matches its principal may describe.
   */
  private subscription(
    groupId: string,
    names: Iterable<string>,
    regexes: ReadonlyMap<string, number>,
  ): GroupSubscription {
    const subscription = groupSubscription(names, regexes.keys(), this.deps.topicNames, this.deps.partitionsOf);
    const access = this.access;
    if (!access || subscription.resolved.size === 0) return subscription;
    return { ...subscription, resolved: new MemberFilteredRegexes(subscription.resolved, groupId, access) };
  }

  /**
   * Kafka's `isSubscribedToTopic` as OffsetDelete asks it: a topic is subscribed when a member names it,
   * or a member's regex matches it and that member may be given it. Kafka counts the matches a refresh
   * kept after filtering them by ACLs; here each member is filtered by its own principal, so a topic
   * matched only by members who may not describe it is not subscribed, and its offsets can be deleted.
   */
  subscribesTo(group: ConsumerGroup, topic: string): boolean {
    if (group.subscribedTopicNames.has(topic)) return true;
    const access = this.access;
    for (const pattern of group.subscribedRegexes.keys()) {
      if (!topicMatches(pattern, topic)) continue;
      if (!access) return true;
      for (const member of group.members.values())
        if (member.subscribedTopicRegex === pattern && access.mayBeGiven(group.groupId, member, topic)) return true;
    }
    return false;
  }

  /**
   * Step 2 for a member that changed nothing, without recording anything: true when the group epoch
   * surely stays (its subscribed topics hash as the group last recorded, and the member has no regex
   * whose ACLs could give it other topics); false leaves the heartbeat to `prepare`.
   */
  subscriptionUnchanged(group: ConsumerGroup, member: ConsumerGroupMember): boolean {
    // Subscribed by name only: nothing resolved, no regex whose access could change (the usual group).
    if (group.subscribedRegexes.size === 0) return this.existing.hashOf(group) === group.metadataHash;
    // Checking a regex member's access records what it may be given: that check is the full path's.
    if (this.access && hasRegex(member)) return false;
    return metadataHash(this.currentSubscription(group).metadata) === group.metadataHash;
  }

  /** Whether a regex member of `group` may be given other topics than its target was computed with. */
  regexAccessChangedFor(group: ConsumerGroup, subscription: GroupSubscription): boolean {
    if (!this.access) return false;
    for (const member of group.members.values()) if (this.regexAccessChanged(group, member, subscription)) return true;
    return false;
  }

  /** The member's regex may give it other topics than its target was computed with (ACLs or its caller changed). */
  private regexAccessChanged(
    group: ConsumerGroup,
    member: ConsumerGroupMember,
    subscription: GroupSubscription,
  ): boolean {
    const access = this.access;
    if (!access || member.subscribedTopicRegex === '') return false;
    const matched = subscription.resolved.get(member.subscribedTopicRegex) ?? new Set<string>();
    return access.changed(
      group.groupId,
      member,
      matched,
      group.targetAssignmentFor(member.memberId, member.instanceId).keys(),
    );
  }
}
