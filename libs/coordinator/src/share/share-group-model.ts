import { SubscribedNameCounts } from '../consumer/subscribed-name-counts';
import { NO_PARTITIONS, type TopicPartitions } from '../consumer/topic-partitions';

/**
 * A share group member (Kafka's `ShareGroupMember`): what it subscribed to and the partitions it may
 * work. Share members never revoke (Kafka's `ShareGroupAssignmentBuilder`): each heartbeat at a new
 * target epoch takes the whole target at once. Values are never mutated; a change makes a new member.
 */
export interface ShareGroupMember {
  readonly memberId: string;
  readonly memberEpoch: number;
  readonly previousMemberEpoch: number;
  readonly rackId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly subscribedTopicNames: ReadonlySet<string>;
  readonly assignedPartitions: TopicPartitions;
}

export function newShareGroupMember(memberId: string): ShareGroupMember {
  return {
    memberId,
    memberEpoch: 0,
    previousMemberEpoch: 0,
    rackId: null,
    clientId: '',
    clientHost: '',
    subscribedTopicNames: new Set(),
    assignedPartitions: NO_PARTITIONS,
  };
}

/** Kafka's share group states: Empty without members, Stable with (no rebalance phase to wait in). */
export type ShareGroupState = 'Empty' | 'Stable';

/**
 * A share group of one shard (Kafka's `ShareGroup`): the group epoch and its subscription's metadata
 * hash, the target assignment at its epoch, and the members. Changed only by replaying records
 * (share-group-replay.ts), on the live path as on load.
 */
export class ShareGroup {
  groupEpoch = 0;
  metadataHash = 0;
  assignmentEpoch = 0;
  readonly members = new Map<string, ShareGroupMember>();
  readonly targetAssignment = new Map<string, TopicPartitions>();
  private readonly names = new SubscribedNameCounts();

  constructor(readonly groupId: string) {}

  get state(): ShareGroupState {
    return this.members.size === 0 ? 'Empty' : 'Stable';
  }

  get size(): number {
    return this.members.size;
  }

  member(memberId: string): ShareGroupMember | undefined {
    return this.members.get(memberId);
  }

  targetOf(memberId: string): TopicPartitions {
    return this.targetAssignment.get(memberId) ?? NO_PARTITIONS;
  }

  /** topic → how many members subscribe to it. */
  get subscribedTopicNames(): ReadonlyMap<string, number> {
    return this.names.counts;
  }

  /** Moves whenever `subscribedTopicNames` changes (and never goes back): what is derived from them can be kept while it stays. */
  get subscribedTopicNamesVersion(): number {
    return this.names.version;
  }

  isSubscribedTo(topic: string): boolean {
    return this.subscribedTopicNames.has(topic);
  }

  updateMember(member: ShareGroupMember): void {
    const old = this.members.get(member.memberId);
    this.names.replace(old?.subscribedTopicNames, member.subscribedTopicNames);
    this.members.set(member.memberId, member);
  }

  removeMember(memberId: string): void {
    const old = this.members.get(memberId);
    if (!old) return;
    this.names.replace(old.subscribedTopicNames, undefined);
    this.members.delete(memberId);
  }

  /** A copy that shares the (immutable) members and targets: what a failed write restores. */
  clone(): ShareGroup {
    const copy = new ShareGroup(this.groupId);
    copy.groupEpoch = this.groupEpoch;
    copy.metadataHash = this.metadataHash;
    copy.assignmentEpoch = this.assignmentEpoch;
    for (const [id, member] of this.members) copy.members.set(id, member);
    for (const [id, target] of this.targetAssignment) copy.targetAssignment.set(id, target);
    for (const [topic, n] of this.names.counts) copy.names.counts.set(topic, n);
    return copy;
  }
}
