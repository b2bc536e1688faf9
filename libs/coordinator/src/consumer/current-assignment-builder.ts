import { ConsumerGroupError } from './consumer-errors';
import { type ConsumerGroupMember, updatedMember, withMemberEpoch } from './consumer-group-member';
import { MemberState } from './member-state';
import { regexTopicsOf } from './regex-access';
import {
  NO_PARTITIONS,
  ownsAnyOf,
  samePartitions,
  type TopicPartitionList,
  type TopicPartitions,
} from './topic-partitions';

/** The epoch of a partition's current owner, or -1 when nobody owns it (Kafka's `currentPartitionEpoch`). */
export type PartitionEpochLookup = (topic: string, partition: number) => number;

const NO_REGEXES: ReadonlyMap<string, ReadonlySet<string>> = new Map();
// The defaults as shared functions, not two new closures per builder (one builder per reconciliation).
const NOBODY_OWNS: PartitionEpochLookup = () => -1;
const EVERY_TOPIC_EXISTS = (): boolean => true;

/**
 * The reconciliation engine of the consumer group protocol (Kafka's `CurrentAssignmentBuilder`, ported
 * line for line): given a member and its target, the member's next state. Partitions are revoked before
 * any is assigned; a partition still owned by another member (its epoch is not -1) is withheld until it
 * is released; the member epoch reaches the target epoch only when nothing remains to revoke.
 */
export class CurrentAssignmentBuilder {
  private targetAssignmentEpoch = 0;
  private targetAssignment: TopicPartitions = NO_PARTITIONS;
  private hasSubscriptionChanged = false;
  private resolvedRegularExpressions: ReadonlyMap<string, ReadonlySet<string>> = NO_REGEXES;
  private currentPartitionEpoch: PartitionEpochLookup = NOBODY_OWNS;
  private ownedTopicPartitions: readonly TopicPartitionList[] | null = null;
  /** Kafka's metadata image: a topic that does not exist is not subscribed, whatever the names say. */
  private topicExists: (topic: string) => boolean = EVERY_TOPIC_EXISTS;

  constructor(private readonly member: ConsumerGroupMember) {}

  withTargetAssignment(targetAssignmentEpoch: number, targetAssignment: TopicPartitions): this {
    this.targetAssignmentEpoch = targetAssignmentEpoch;
    this.targetAssignment = targetAssignment;
    return this;
  }

  /** True when the member changed its subscription in this heartbeat: unsubscribed topics go at once. */
  withHasSubscriptionChanged(hasSubscriptionChanged: boolean): this {
    this.hasSubscriptionChanged = hasSubscriptionChanged;
    return this;
  }

  /** The group's resolved regular expressions: regex → the topics it matched. */
  withResolvedRegularExpressions(resolved: ReadonlyMap<string, ReadonlySet<string>>): this {
    this.resolvedRegularExpressions = resolved;
    return this;
  }

  withCurrentPartitionEpoch(lookup: PartitionEpochLookup): this {
    this.currentPartitionEpoch = lookup;
    return this;
  }

  /** The partitions the member reported in this heartbeat; null when it did not send them. */
  withOwnedTopicPartitions(owned: readonly TopicPartitionList[] | null): this {
    this.ownedTopicPartitions = owned;
    return this;
  }

  withTopicExists(topicExists: (topic: string) => boolean): this {
    this.topicExists = topicExists;
    return this;
  }

  /** The member's next state, or the same object when it cannot move forward yet. */
  build(): ConsumerGroupMember {
    const member = this.member;
    switch (member.state) {
      case MemberState.STABLE:
        // A newer target: reconcile towards it. Otherwise keep the assignment consistent with a changed subscription.
        if (member.memberEpoch !== this.targetAssignmentEpoch) {
          return this.computeNextAssignment(member.memberEpoch, member.assignedPartitions);
        } else if (this.hasSubscriptionChanged) {
          return this.updateCurrentAssignment(member.assignedPartitions);
        }
        return member;

      case MemberState.UNREVOKED_PARTITIONS:
        // Wait until the member stops reporting the partitions it must give up (more may go if its
        // subscription changed meanwhile).
        if (this.ownsRevokedPartitions(member.partitionsPendingRevocation)) {
          return this.hasSubscriptionChanged ? this.updateCurrentAssignment(member.assignedPartitions) : member;
        }
        // Everything is revoked: the next epoch, never past the target's (a subscription change can put a
        // member here before its new target exists).
        return this.computeNextAssignment(
          Math.min(member.memberEpoch + 1, this.targetAssignmentEpoch),
          member.assignedPartitions,
        );

      case MemberState.UNRELEASED_PARTITIONS:
        // Reconcile again: partitions released meanwhile are assigned now.
        return this.computeNextAssignment(member.memberEpoch, member.assignedPartitions);

      default:
        // A state written by a newer coordinator: fence the member unless it already dropped everything,
        // so it rejoins from scratch.
        if (this.ownedTopicPartitions === null || this.ownedTopicPartitions.length > 0) {
          throw new ConsumerGroupError(
            'FENCED_MEMBER_EPOCH',
            'The consumer group member is in a unknown state. The member must abandon all its partitions and rejoin.',
          );
        }
        return this.computeNextAssignment(this.targetAssignmentEpoch, member.assignedPartitions);
    }
  }

  /** Kafka's `ownsRevokedPartitions`: a member that did not report its partitions is assumed to own them all. */
  private ownsRevokedPartitions(pending: TopicPartitions): boolean {
    if (this.ownedTopicPartitions === null) return true;
    return ownsAnyOf(this.ownedTopicPartitions, pending);
  }

  /**
   * Kafka's `updateCurrentAssignment`: drops the partitions of topics the member no longer subscribes to,
   * without the full reconciliation; they become pending revocation if the member still owns them.
   */
  private updateCurrentAssignment(memberAssigned: TopicPartitions): ConsumerGroupMember {
    const member = this.member;
    const subscribed = this.subscribedTopics();
    let newAssigned: TopicPartitions;
    let newPending: TopicPartitions;
    if (subscribed.size === 0 && member.partitionsPendingRevocation.size === 0) {
      newAssigned = NO_PARTITIONS;
      newPending = memberAssigned;
    } else {
      newAssigned = memberAssigned;
      newPending = member.partitionsPendingRevocation;
      let assigned: Map<string, ReadonlySet<number>> | undefined;
      let pending: Map<string, ReadonlySet<number>> | undefined;
      for (const [topic, partitions] of memberAssigned) {
        if (subscribed.has(topic)) continue;
        if (!assigned || !pending) {
          assigned = new Map(memberAssigned);
          pending = new Map(member.partitionsPendingRevocation);
          newAssigned = assigned;
          newPending = pending;
        }
        assigned.delete(topic);
        const existing = pending.get(topic);
        pending.set(topic, existing ? new Set([...existing, ...partitions]) : partitions);
      }
    }
    // Nothing was removed: the member stays as it is.
    if (newAssigned === memberAssigned) return member;
    if (newPending.size > 0 && this.ownsRevokedPartitions(newPending)) {
      return updatedMember(member, {
        state: MemberState.UNREVOKED_PARTITIONS,
        assignedPartitions: newAssigned,
        partitionsPendingRevocation: newPending,
      });
    }
    // The removed partitions were already given up: only the assignment shrinks.
    return updatedMember(member, { assignedPartitions: newAssigned });
  }

  /** Kafka's `computeNextAssignment`, per topic: keep = assigned ∩ target, revoke the rest, add what is free. */
  private computeNextAssignment(memberEpoch: number, memberAssigned: TopicPartitions): ConsumerGroupMember {
    const member = this.member;
    if (this.holdsExactlyTarget(memberAssigned)) {
      // What the general case gives (everything kept, nothing to revoke or add) with the member's own
      // partitions, not a copy: its record, answer and partition epochs then find them unchanged.
      return updatedMember(member, {
        state: MemberState.STABLE,
        memberEpoch: this.targetAssignmentEpoch,
        previousMemberEpoch: member.memberEpoch,
        assignedPartitions: memberAssigned,
        partitionsPendingRevocation: NO_PARTITIONS,
      });
    }
    const subscribed = this.subscribedTopics();
    let hasUnreleasedPartitions = false;
    const newAssigned = new Map<string, Set<number>>();
    const newPendingRevocation = new Map<string, Set<number>>();
    const newPendingAssignment = new Map<string, Set<number>>();

    // The target's topics, then the member's others (Kafka's union of the two).
    const next: NextAssignment = { newAssigned, newPendingRevocation, newPendingAssignment };
    for (const topic of this.targetAssignment.keys())
      if (this.reconcileTopic(topic, subscribed, memberAssigned, next)) hasUnreleasedPartitions = true;
    for (const topic of memberAssigned.keys())
      if (!this.targetAssignment.has(topic) && this.reconcileTopic(topic, subscribed, memberAssigned, next))
        hasUnreleasedPartitions = true;

    if (newPendingRevocation.size > 0 && this.ownsRevokedPartitions(newPendingRevocation)) {
      // Something must be revoked first: the member stays at its epoch, keeps only what it keeps, and
      // gets nothing new until it acknowledges the revocation.
      return updatedMember(member, {
        state: MemberState.UNREVOKED_PARTITIONS,
        ...withMemberEpoch(member, memberEpoch),
        assignedPartitions: newAssigned,
        partitionsPendingRevocation: newPendingRevocation,
      });
    }
    if (newPendingAssignment.size > 0) {
      // New partitions go straight into the assignment, at the target epoch.
      for (const [topic, partitions] of newPendingAssignment) {
        const set = newAssigned.get(topic);
        if (set) for (const p of partitions) set.add(p);
        else newAssigned.set(topic, partitions);
      }
    }
    // The target epoch: STABLE, or UNRELEASED_PARTITIONS while part of the target is still owned elsewhere.
    return updatedMember(member, {
      state: hasUnreleasedPartitions ? MemberState.UNRELEASED_PARTITIONS : MemberState.STABLE,
      ...withMemberEpoch(member, this.targetAssignmentEpoch),
      assignedPartitions: this.shared(newAssigned, memberAssigned),
      partitionsPendingRevocation: NO_PARTITIONS,
    });
  }

  /**
   * One topic of `computeNextAssignment`: keep, revoke, add. Its sets are made only once they get a
   * partition (a member taking its first target made two empty ones per topic). True when a partition
   * of the target is still owned by another member.
   */
  private reconcileTopic(
    topic: string,
    subscribed: ReadonlySet<string>,
    memberAssigned: TopicPartitions,
    next: NextAssignment,
  ): boolean {
    // A topic the member no longer subscribes to has an empty target.
    const target = subscribed.has(topic) ? (this.targetAssignment.get(topic) ?? EMPTY) : EMPTY;
    const current = memberAssigned.get(topic) ?? EMPTY;
    const pendingOfTopic = this.member.partitionsPendingRevocation.get(topic) ?? EMPTY;

    let assigned: Set<number> | null = null;
    let revoked: Set<number> | null = null;
    for (const p of current) {
      if (target.has(p)) (assigned ??= new Set()).add(p);
      else (revoked ??= new Set()).add(p);
    }

    let unreleased = false;
    let toAssign: Set<number> | null = null;
    for (const p of target) {
      if (assigned !== null && assigned.has(p)) continue;
      // Owned by someone else: unreleased. A partition this member is itself revoking is not
      // unreleased, since only one member can own a partition at a time.
      if (this.currentPartitionEpoch(topic, p) !== -1 && !pendingOfTopic.has(p)) unreleased = true;
      else (toAssign ??= new Set()).add(p);
    }

    if (assigned !== null) next.newAssigned.set(topic, assigned);
    if (revoked !== null) next.newPendingRevocation.set(topic, revoked);
    if (toAssign !== null) next.newPendingAssignment.set(topic, toAssign);
    return unreleased;
  }

  /**
   * Whether the member holds exactly its target, every topic of it subscribed by name (and existing),
   * with nothing pending revocation: the general case would keep every partition and add none.
   */
  private holdsExactlyTarget(memberAssigned: TopicPartitions): boolean {
    const member = this.member;
    if (member.partitionsPendingRevocation.size > 0 || member.subscribedTopicRegex !== '') return false;
    if (!samePartitions(memberAssigned, this.targetAssignment)) return false;
    for (const topic of this.targetAssignment.keys())
      if (!member.subscribedTopicNames.has(topic) || !this.topicExists(topic)) return false;
    return true;
  }

  /**
   * `assigned`, or the member's partitions or its target when it holds the same: maps already listed
   * (in a record, in an answer) and known to the partition epochs are not built again.
   */
  private shared(assigned: TopicPartitions, memberAssigned: TopicPartitions): TopicPartitions {
    if (samePartitions(assigned, memberAssigned)) return memberAssigned;
    if (samePartitions(assigned, this.targetAssignment)) return this.targetAssignment;
    return assigned;
  }

  /** Kafka's `subscribedTopicIds`: the names, plus the topics of the member's regex once it is resolved. */
  private subscribedTopics(): ReadonlySet<string> {
    const member = this.member;
    let names: ReadonlySet<string> = member.subscribedTopicNames;
    if (member.subscribedTopicRegex !== '') {
      // An unresolved regex matches nothing yet, to be conservative.
      const resolved = regexTopicsOf(member, this.resolvedRegularExpressions);
      if (resolved && resolved.size > 0) names = names.size === 0 ? resolved : new Set([...names, ...resolved]);
    }
    // Every name is of a topic that exists (the usual case): the set as it is, not a copy.
    let allExist = true;
    for (const name of names) if (!this.topicExists(name)) allExist = false;
    if (allExist) return names;
    const existing = new Set<string>();
    for (const name of names) if (this.topicExists(name)) existing.add(name);
    return existing;
  }
}

const EMPTY: ReadonlySet<number> = new Set();

/** What `computeNextAssignment` builds, topic by topic. */
interface NextAssignment {
  newAssigned: Map<string, Set<number>>;
  newPendingRevocation: Map<string, Set<number>>;
  newPendingAssignment: Map<string, Set<number>>;
}
