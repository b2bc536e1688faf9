import { CONSUMER_PROTOCOL_TYPE } from '@cohort/protocol';
import { type ConsumerGroupMember, hasRegex, isReconciledTo } from './consumer-group-member';
import { EpochHistory } from './epoch-history';
import { MemberState } from './member-state';
import { type HeldPartitions, PartitionEpochs } from './partition-epochs';
import { SubscribedNameCounts } from './subscribed-name-counts';
import { topicMatches } from './topic-regex';
import { NO_PARTITIONS, type TopicPartitions } from './topic-partitions';

/** Kafka's `ConsumerGroup.ConsumerGroupState`, under the names Cohort shows. */
export type ConsumerGroupState = 'Empty' | 'Assigning' | 'Reconciling' | 'Stable' | 'Dead';

/** Whether every member subscribes to the same topics (Kafka's `SubscriptionType`); assignors take shortcuts when so. */
export type SubscriptionType = 'homogeneous' | 'heterogeneous';

/**
 * The state of one consumer group (Kafka's `ConsumerGroup` over `ModernGroup`): its epochs, members,
 * target assignment and the indexes kept beside them — the epoch at which each partition is currently
 * owned (who must release it before anyone else gets it), the inverted target, subscriber counts per
 * topic, static members and assignor votes. Everything here is rebuilt by replaying the group's
 * records; `maybeUpdateGroupState` keeps the state a function of the rest, as Kafka's does.
 */
export class ConsumerGroup {
  private _groupEpoch = 0;
  private _assignmentEpoch = 0;
  /**
   * Members not stable at the assignment epoch, kept as members change so the state costs O(1) per
   * change instead of Kafka's walk over every member (a 10,000-member group is loaded member by member).
   */
  private unreconciled = 0;
  private _state: ConsumerGroupState = 'Empty';
  /** Kafka 4.x's `MetadataHash`: the subscribed topics as of the last group epoch bump (0: none computed). */
  metadataHash = 0;
  private readonly _members = new Map<string, ConsumerGroupMember>();
  private readonly _targetAssignment = new Map<string, TopicPartitions>();
  private readonly inverted = new Map<string, Map<number, string>>();
  private readonly partitionEpochs = new PartitionEpochs();
  private readonly names = new SubscribedNameCounts();
  /** Subscriber count per `subscribedTopicRegex` (Kafka's `subscribedRegularExpressions`). */
  private readonly _subscribedRegexes = new Map<string, number>();
  private readonly _staticMembers = new Map<string, string>();
  private readonly serverAssignors = new Map<string, number>();
  /** Kafka's `numClassicProtocolMembers` and `classicProtocolMembersSupportedProtocols`. */
  private classicMembers = 0;
  private readonly classicProtocols = new Map<string, number>();

  /** The last epoch bumps with their reasons and times to converge, for operators (REST `rebalances`). */
  readonly history: EpochHistory;

  constructor(
    readonly groupId: string,
    historySize = DEFAULT_HISTORY_SIZE,
  ) {
    this.history = new EpochHistory(historySize);
  }

  get groupEpoch(): number {
    return this._groupEpoch;
  }

  setGroupEpoch(epoch: number): void {
    this._groupEpoch = epoch;
    this.maybeUpdateGroupState();
  }

  get assignmentEpoch(): number {
    return this._assignmentEpoch;
  }

  setTargetAssignmentEpoch(epoch: number): void {
    if (epoch !== this._assignmentEpoch) {
      this._assignmentEpoch = epoch;
      this.unreconciled = 0;
      for (const member of this._members.values()) if (!isReconciledTo(member, epoch)) this.unreconciled++;
    }
    this.maybeUpdateGroupState();
  }

  get state(): ConsumerGroupState {
    return this._state;
  }

  markDead(): void {
    this._state = 'Dead';
  }

  /** Back from Dead, when the write that deleted the group failed. */
  revive(): void {
    this._state = 'Empty';
    this.maybeUpdateGroupState();
  }

  get members(): ReadonlyMap<string, ConsumerGroupMember> {
    return this._members;
  }

  get size(): number {
    return this._members.size;
  }

  member(memberId: string): ConsumerGroupMember | undefined {
    return this._members.get(memberId);
  }

  /** Subscriber count per topic name. */
  get subscribedTopicNames(): ReadonlyMap<string, number> {
    return this.names.counts;
  }

  /** Moves whenever `subscribedTopicNames` changes (and never goes back): what is derived from them can be kept while it stays. */
  get subscribedTopicNamesVersion(): number {
    return this.names.version;
  }

  /** Subscriber count per regular expression. */
  get subscribedRegexes(): ReadonlyMap<string, number> {
    return this._subscribedRegexes;
  }

  /** Subscribed by name or matched by a member's regular expression (Kafka counts resolved topics as subscribed). */
  isSubscribedToTopic(topic: string): boolean {
    if (this.names.counts.has(topic)) return true;
    for (const pattern of this._subscribedRegexes.keys()) if (topicMatches(pattern, topic)) return true;
    return false;
  }

  /** Kafka's `ModernGroup.subscriptionType`: homogeneous when every topic has every member as subscriber. */
  get subscriptionType(): SubscriptionType {
    for (const count of this.names.counts.values()) {
      if (count !== this._members.size) return 'heterogeneous';
    }
    return 'homogeneous';
  }

  /** instance id → member id. */
  get staticMembers(): ReadonlyMap<string, string> {
    return this._staticMembers;
  }

  staticMemberId(instanceId: string | null): string | undefined {
    return instanceId === null ? undefined : this._staticMembers.get(instanceId);
  }

  staticMember(instanceId: string): ConsumerGroupMember | undefined {
    const memberId = this._staticMembers.get(instanceId);
    return memberId === undefined ? undefined : this._members.get(memberId);
  }

  get targetAssignment(): ReadonlyMap<string, TopicPartitions> {
    return this._targetAssignment;
  }

  targetAssignmentOf(memberId: string): TopicPartitions {
    return this._targetAssignment.get(memberId) ?? NO_PARTITIONS;
  }

  /** Kafka's `targetAssignment(memberId, instanceId)`: a static member taking over gets its predecessor's target. */
  targetAssignmentFor(memberId: string, instanceId: string | null): TopicPartitions {
    if (instanceId === null) return this.targetAssignmentOf(memberId);
    const previous = this._staticMembers.get(instanceId);
    return previous === undefined ? NO_PARTITIONS : this.targetAssignmentOf(previous);
  }

  /** topic → partition → the member whose target holds it. */
  get invertedTargetAssignment(): ReadonlyMap<string, ReadonlyMap<number, string>> {
    return this.inverted;
  }

  /** The epoch of the member that owns the partition now (assigned or pending revocation), or -1. */
  currentPartitionEpoch(topic: string, partition: number): number {
    return this.partitionEpochs.get(topic, partition);
  }

  /** Kafka's `preferredServerAssignor`: the assignor most members asked for (the first counted on a tie). */
  preferredServerAssignor(): string | undefined {
    return mostVoted(this.serverAssignors);
  }

  /** The preferred assignor once `oldMember` is replaced by `newMember` (either may be absent), without changing the group. */
  computePreferredServerAssignor(
    oldMember: ConsumerGroupMember | undefined,
    newMember: ConsumerGroupMember | undefined,
  ): string | undefined {
    const counts = new Map(this.serverAssignors);
    countAssignors(counts, oldMember, newMember);
    return mostVoted(counts);
  }

  /** Kafka's `waitingOnUnreleasedPartition`: a partition of the member's target is still owned by someone else. */
  waitingOnUnreleasedPartition(member: ConsumerGroupMember): boolean {
    if (member.state !== MemberState.UNRELEASED_PARTITIONS) return false;
    for (const [topic, partitions] of this.targetAssignmentOf(member.memberId)) {
      const assigned = member.assignedPartitions.get(topic);
      for (const p of partitions) {
        if (!assigned?.has(p) && this.currentPartitionEpoch(topic, p) !== -1) return true;
      }
    }
    return false;
  }

  /** Adds or replaces a member, keeping every index in step (Kafka's `updateMember`). */
  updateMember(newMember: ConsumerGroupMember): void {
    const oldMember = this._members.get(newMember.memberId);
    // First, as it may refuse the change: nothing else has moved then.
    this.partitionEpochs.swap(oldMember ? held(oldMember) : [], held(newMember));
    this._members.set(newMember.memberId, newMember);
    if (oldMember) this.countReconciled(oldMember, -1);
    this.countReconciled(newMember, 1);
    this.countSubscriptions(oldMember, newMember);
    countAssignors(this.serverAssignors, oldMember, newMember);
    this.countClassic(oldMember, newMember);
    if (newMember.instanceId !== null) this._staticMembers.set(newMember.instanceId, newMember.memberId);
    this.maybeUpdateGroupState();
  }

  /** Kafka's `removeMember`. */
  removeMember(memberId: string): void {
    const oldMember = this._members.get(memberId);
    if (!oldMember) return;
    this.partitionEpochs.swap(held(oldMember), []);
    this._members.delete(memberId);
    this.countReconciled(oldMember, -1);
    this.countSubscriptions(oldMember, undefined);
    countAssignors(this.serverAssignors, oldMember, undefined);
    this.countClassic(oldMember, undefined);
    if (oldMember.instanceId !== null && this._staticMembers.get(oldMember.instanceId) === memberId) {
      this._staticMembers.delete(oldMember.instanceId);
    }
    this.maybeUpdateGroupState();
  }

  /** How many members speak the classic protocol. */
  get numClassicProtocolMembers(): number {
    return this.classicMembers;
  }

  /** Kafka's `allMembersUseClassicProtocolExcept`: `memberId` is a consumer-protocol member and the only one. */
  allMembersUseClassicProtocolExcept(memberId: string): boolean {
    const member = this._members.get(memberId);
    return (
      member !== undefined && member.classicMemberMetadata === null && this.classicMembers === this._members.size - 1
    );
  }

  /**
   * Kafka's `supportsClassicProtocols`: a classic member may join with protocol type `consumer` and a
   * protocol every classic member already supports (any protocol when the group is empty).
   */
  supportsClassicProtocols(protocolType: string, protocols: readonly string[]): boolean {
    if (protocolType !== CONSUMER_PROTOCOL_TYPE) return false;
    if (this._members.size === 0) return protocols.length > 0;
    return protocols.some((name) => (this.classicProtocols.get(name) ?? 0) === this.classicMembers);
  }

  /** Kafka's `updateTargetAssignment`, with the inverted index. */
  updateTargetAssignment(memberId: string, target: TopicPartitions): void {
    this.updateInverted(memberId, this.targetAssignmentOf(memberId), target);
    this._targetAssignment.set(memberId, target);
  }

  removeTargetAssignment(memberId: string): void {
    this.updateInverted(memberId, this.targetAssignmentOf(memberId), NO_PARTITIONS);
    this._targetAssignment.delete(memberId);
  }

  /**
   * Kafka's `maybeUpdateGroupState`: Empty without members, Assigning while the target lags the group
   * epoch, Reconciling while a member is not stable at the target epoch, Stable otherwise.
   */
  private maybeUpdateGroupState(): void {
    if (this._state === 'Dead') return;
    if (this._members.size === 0) this._state = 'Empty';
    else if (this._groupEpoch > this._assignmentEpoch) this._state = 'Assigning';
    else this._state = this.unreconciled > 0 ? 'Reconciling' : 'Stable';
  }

  private countClassic(oldMember: ConsumerGroupMember | undefined, newMember: ConsumerGroupMember | undefined): void {
    // Two calls, not a loop over [member, delta] pairs: every member change comes here.
    if (oldMember) this.countClassicMember(oldMember, -1);
    if (newMember) this.countClassicMember(newMember, 1);
  }

  private countClassicMember(member: ConsumerGroupMember, delta: 1 | -1): void {
    const classic = member.classicMemberMetadata;
    if (!classic) return;
    this.classicMembers += delta;
    for (const { name } of classic.supportedProtocols)
      if (delta > 0) increment(this.classicProtocols, name);
      else decrement(this.classicProtocols, name);
  }

  private countReconciled(member: ConsumerGroupMember, delta: 1 | -1): void {
    if (!isReconciledTo(member, this._assignmentEpoch)) this.unreconciled += delta;
  }

  /** Kafka's `updateInvertedTargetAssignment`: a partition moved to another member first is not taken back. */
  private updateInverted(memberId: string, oldTarget: TopicPartitions, newTarget: TopicPartitions): void {
    const topics = new Set([...oldTarget.keys(), ...newTarget.keys()]);
    for (const topic of topics) {
      const oldPartitions = oldTarget.get(topic) ?? EMPTY;
      const newPartitions = newTarget.get(topic) ?? EMPTY;
      let byPartition = this.inverted.get(topic);
      if (!byPartition) this.inverted.set(topic, (byPartition = new Map()));
      for (const p of oldPartitions) {
        if (!newPartitions.has(p) && byPartition.get(p) === memberId) byPartition.delete(p);
      }
      for (const p of newPartitions) if (!oldPartitions.has(p)) byPartition.set(p, memberId);
      if (byPartition.size === 0) this.inverted.delete(topic);
    }
  }

  private countSubscriptions(
    oldMember: ConsumerGroupMember | undefined,
    newMember: ConsumerGroupMember | undefined,
  ): void {
    this.names.replace(oldMember?.subscribedTopicNames, newMember?.subscribedTopicNames);
    if (oldMember && hasRegex(oldMember)) decrement(this._subscribedRegexes, oldMember.subscribedTopicRegex);
    if (newMember && hasRegex(newMember)) increment(this._subscribedRegexes, newMember.subscribedTopicRegex);
  }

  /**
   * Records `partitions` as owned at `epoch`; finding one owned already is an illegal state, as in
   * Kafka. (The rule `updateMember` follows, not private so it can be tested alone.)
   */
  addPartitionEpochs(partitions: TopicPartitions, epoch: number): void {
    this.partitionEpochs.swap([], [{ partitions, epoch }]);
  }

  /** Releases `partitions`, which must be owned at `expectedEpoch` (an illegal state otherwise, as in Kafka). */
  removePartitionEpochs(partitions: TopicPartitions, expectedEpoch: number): void {
    this.partitionEpochs.swap([{ partitions, epoch: expectedEpoch }], []);
  }
}

/** What a member holds at its epoch: its assigned partitions and those pending revocation. */
function held(member: ConsumerGroupMember): HeldPartitions[] {
  return [
    { partitions: member.assignedPartitions, epoch: member.memberEpoch },
    { partitions: member.partitionsPendingRevocation, epoch: member.memberEpoch },
  ];
}

const EMPTY: ReadonlySet<number> = new Set();
/** The coordinator config's default `rebalanceHistorySize`. */
const DEFAULT_HISTORY_SIZE = 20;

function countAssignors(
  counts: Map<string, number>,
  oldMember: ConsumerGroupMember | undefined,
  newMember: ConsumerGroupMember | undefined,
): void {
  if (oldMember?.serverAssignorName) decrement(counts, oldMember.serverAssignorName);
  if (newMember?.serverAssignorName) increment(counts, newMember.serverAssignorName);
}

function mostVoted(counts: ReadonlyMap<string, number>): string | undefined {
  let best: string | undefined;
  let votes = 0;
  for (const [name, count] of counts) {
    if (count > votes) {
      best = name;
      votes = count;
    }
  }
  return best;
}

function increment(counts: Map<string, number>, key: string): void {
  counts.set(key, (counts.get(key) ?? 0) + 1);
}

function decrement(counts: Map<string, number>, key: string): void {
  const next = (counts.get(key) ?? 0) - 1;
  if (next <= 0) counts.delete(key);
  else counts.set(key, next);
}
