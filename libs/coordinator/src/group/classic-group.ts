import type { JoinGroupMember, JoinGroupProtocol } from '@cohort/protocol';
import { CONSUMER_PROTOCOL_TYPE, ErrorCode } from '@cohort/protocol';
import { joinError, syncError } from '../responses/group-responses';
import { GroupOffsets } from './group-offsets';
import { ParkedReplies } from './parked-replies';
import type { GroupState } from './group-state';
import { canRebalanceFrom, isValidTransition, VALID_PREVIOUS_STATES } from './group-state';
import type { JoinCallback, MemberMetadata } from './member-metadata';
import { parseSubscription } from './protocol-metadata';
import { ProtocolSupport, voteProtocol } from './protocol-support';
import { RebalanceHistory } from './rebalance-history';
import { GroupLagWindows } from './group-lag-windows';
import { LAG_MIN_DISTANCE_MS, LAG_WINDOW_SIZE } from './lag-window';

/** What a group without members reads; never written (the fields are replaced by their own collections on the first write). */
const NO_MEMBERS: ReadonlyMap<string, MemberMetadata> = new Map();
const NO_STATIC_MEMBERS: ReadonlyMap<string, string> = new Map();
const NO_IDS: ReadonlySet<string> = new Set();

/** Which delayed join operation watches a group in PreparingRebalance (Kafka's rebalance purgatory). */
export type PendingJoin = 'initial' | 'regular';

/**
 * A classic group's membership and state (Kafka's GroupMetadata.scala, without the locking): members,
 * static instance ids, KIP-394 pending ids, the protocol vote, the leader, the generation, the parked
 * join/sync replies, and the group's offsets. It changes nothing outside itself; timers, writes and
 * replies to parked requests are driven by the rebalance modules.
 */
export class ClassicGroup {
  private currentState: GroupState;
  /** The state before the current one (Kafka 4.x `previousState`): a rebalance that started from Empty is an initial one. */
  private lastState: GroupState;
  currentStateTimestamp: number | null;
  protocolType: string | null = null;
  protocolName: string | null = null;
  generationId = 0;
  leaderId: string | null = null;
  /** When protocolType is `consumer`: the topics members subscribe to; null when unknown. */
  subscribedTopics: Set<string> | null = null;
  /** A new member joined during the initial delay of a rebalance that started from Empty, which extends the delay (KIP-134). */
  newMemberAdded = false;
  /** The delayed join watching this group while it prepares a rebalance. */
  pendingJoin: PendingJoin | null = null;
  /** The server-side assignor that computes this generation's assignment (docs/protocol.md), or null (leader assigns). */
  serverAssignor: string | null = null;

  readonly history: RebalanceHistory;
  /** The JoinGroup and SyncGroup replies waiting for this group's rebalance. */
  readonly parked = new ParkedReplies();
  /** The recent commits of each partition, for the lag evaluation (docs/lag.md); in memory only. */
  readonly lagWindows = new GroupLagWindows(LAG_WINDOW_SIZE, LAG_MIN_DISTANCE_MS);

  // Made on the first write: most groups on a big node only hold offsets, and four empty collections
  // cost ~600 bytes and eight objects a group. Reads go through the read-only views below.
  private membersMap: Map<string, MemberMetadata> | undefined;
  private staticMembersMap: Map<string, string> | undefined;
  private pendingMembersSet: Set<string> | undefined;
  private pendingSyncMembersSet: Set<string> | undefined;
  private readonly protocolSupport = new ProtocolSupport();

  constructor(
    readonly groupId: string,
    initialState: GroupState,
    now: number,
    historySize: number,
    /** Offsets replayed from the log (a load hands over what it built instead of copying it). */
    readonly offsets: GroupOffsets = new GroupOffsets(),
  ) {
    this.currentState = initialState;
    this.lastState = initialState;
    this.currentStateTimestamp = now;
    this.history = new RebalanceHistory(historySize);
  }

  private get members(): ReadonlyMap<string, MemberMetadata> {
    return this.membersMap ?? NO_MEMBERS;
  }

  private get staticMembers(): ReadonlyMap<string, string> {
    return this.staticMembersMap ?? NO_STATIC_MEMBERS;
  }

  private get pendingMembers(): ReadonlySet<string> {
    return this.pendingMembersSet ?? NO_IDS;
  }

  private get pendingSyncMembers(): ReadonlySet<string> {
    return this.pendingSyncMembersSet ?? NO_IDS;
  }

  get state(): GroupState {
    return this.currentState;
  }

  get previousState(): GroupState {
    return this.lastState;
  }

  is(state: GroupState): boolean {
    return this.currentState === state;
  }

  get canRebalance(): boolean {
    return canRebalanceFrom(this.currentState);
  }

  transitionTo(target: GroupState, now: number): void {
    if (!isValidTransition(this.currentState, target)) {
      throw new Error(
        `group ${this.groupId} should be in ${VALID_PREVIOUS_STATES[target].join(', ')} before moving to ${target}; it is ${this.currentState}`,
      );
    }
    this.lastState = this.currentState;
    this.currentState = target;
    this.currentStateTimestamp = now;
  }

  get isConsumerGroup(): boolean {
    return this.protocolType === CONSUMER_PROTOCOL_TYPE;
  }

  // ---- members --------------------------------------------------------------------------------

  has(memberId: string): boolean {
    return this.members.has(memberId);
  }

  get(memberId: string): MemberMetadata | undefined {
    return this.members.get(memberId);
  }

  get size(): number {
    return this.members.size;
  }

  allMembers(): MemberMetadata[] {
    return [...this.members.values()];
  }

  isLeader(memberId: string): boolean {
    return this.leaderId === memberId;
  }

  add(member: MemberMetadata, callback: JoinCallback | null): void {
    if (this.members.has(member.memberId))
      throw new Error(`member ${member.memberId} is already a member of group ${this.groupId}`);
    if (member.groupInstanceId !== null) {
      if (this.staticMembers.has(member.groupInstanceId)) {
        throw new Error(`static member ${member.groupInstanceId} is already a member of group ${this.groupId}`);
      }
      (this.staticMembersMap ??= new Map()).set(member.groupInstanceId, member.memberId);
    }
    if (this.members.size === 0) this.protocolType = member.protocolType;
    if (this.leaderId === null) this.leaderId = member.memberId;
    (this.membersMap ??= new Map()).set(member.memberId, member);
    this.protocolSupport.count(member, +1);
    this.parked.parkJoin(member, callback);
    this.pendingMembersSet?.delete(member.memberId);
  }

  remove(memberId: string): void {
    const member = this.members.get(memberId);
    if (member) {
      this.membersMap?.delete(memberId);
      this.protocolSupport.count(member, -1);
      this.parked.forget(member);
      if (member.groupInstanceId !== null) this.staticMembersMap?.delete(member.groupInstanceId);
    }
    if (this.isLeader(memberId)) this.leaderId = this.members.keys().next().value ?? null;
    this.pendingMembersSet?.delete(memberId);
    this.pendingSyncMembersSet?.delete(memberId);
  }

  /** Changes a member's protocols and timeouts, and parks (or clears) its JoinGroup reply. */
  updateMember(
    member: MemberMetadata,
    protocols: JoinGroupProtocol[],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    callback: JoinCallback | null,
  ): void {
    this.protocolSupport.count(member, -1);
    member.supportedProtocols = protocols;
    this.protocolSupport.count(member, +1);
    member.rebalanceTimeoutMs = rebalanceTimeoutMs;
    member.sessionTimeoutMs = sessionTimeoutMs;
    this.parked.parkJoin(member, callback);
  }

  isAwaitingJoin(member: MemberMetadata): boolean {
    return this.parked.hasJoin(member);
  }

  /**
   * Kafka's `hasSatisfiedHeartbeat`: a new member must be heard from (it can expire while its join is
   * parked); a member whose JoinGroup or SyncGroup is parked counts as alive; anyone else needs a heartbeat.
   */
  hasSatisfiedHeartbeat(member: MemberMetadata): boolean {
    if (member.isNew) return member.heartbeatSatisfied;
    if (this.parked.hasJoin(member) || this.parked.hasSync(member)) return true;
    return member.heartbeatSatisfied;
  }

  /**
   * Keeps the leader if it rejoined, else makes the first member that rejoined the leader. False when
   * the group has no leader or nobody rejoined (Kafka's `maybeElectNewJoinedLeader`).
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.leaderId === null) return false;
    const leader = this.members.get(this.leaderId);
    if (leader && this.parked.hasJoin(leader)) return true;
    for (const member of this.members.values()) {
      if (this.parked.hasJoin(member)) {
        this.leaderId = member.memberId;
        return true;
      }
    }
    return false;
  }

  get hasAllMembersJoined(): boolean {
    return this.members.size === this.parked.joinCount && this.pendingMembers.size === 0;
  }

  get numAwaiting(): number {
    return this.parked.joinCount;
  }

  notYetRejoinedMembers(): MemberMetadata[] {
    return this.allMembers().filter((m) => !this.parked.hasJoin(m));
  }

  /** The group's rebalance timeout: the largest of its members' (Kafka's `rebalanceTimeoutMs`). */
  get rebalanceTimeoutMs(): number {
    let max = 0;
    for (const member of this.members.values()) max = Math.max(max, member.rebalanceTimeoutMs);
    return max;
  }

  // ---- static members (KIP-345) ----------------------------------------------------------------

  staticMemberId(groupInstanceId: string): string | undefined {
    return this.staticMembers.get(groupInstanceId);
  }

  staticMemberCount(): number {
    return this.staticMembers.size;
  }

  /**
   * Moves a static member to a new member id, keeping its assignment, protocols, leadership and any
   * SyncGroup it still owes. Whoever still waits on the old id's JoinGroup or SyncGroup is fenced at once.
   */
  replaceStaticMember(groupInstanceId: string, oldMemberId: string, newMemberId: string): MemberMetadata {
    const member = this.members.get(oldMemberId);
    if (!member) throw new Error(`cannot replace unknown member ${oldMemberId} of group ${this.groupId}`);
    this.membersMap?.delete(oldMemberId);
    this.parked.completeJoin(member, joinError(oldMemberId, ErrorCode.FENCED_INSTANCE_ID));
    this.parked.completeSync(member, syncError(ErrorCode.FENCED_INSTANCE_ID));
    member.memberId = newMemberId;
    (this.membersMap ??= new Map()).set(newMemberId, member);
    if (this.isLeader(oldMemberId)) this.leaderId = newMemberId;
    (this.staticMembersMap ??= new Map()).set(groupInstanceId, newMemberId);
    // Still owed a SyncGroup: now under the new id (Kafka keeps the old id, which can never sync, so the
    // sync timeout rebalanced a group whose members had all synced).
    if (this.pendingSyncMembersSet?.delete(oldMemberId)) this.pendingSyncMembersSet.add(newMemberId);
    return member;
  }

  // ---- KIP-394 pending members and pending syncs ---------------------------------------------------

  isPendingMember(memberId: string): boolean {
    return this.pendingMembers.has(memberId);
  }

  addPendingMember(memberId: string): void {
    if (this.has(memberId)) throw new Error(`pending member ${memberId} is already a member of group ${this.groupId}`);
    (this.pendingMembersSet ??= new Set()).add(memberId);
  }

  allPendingMembers(): string[] {
    return [...this.pendingMembers];
  }

  get numPending(): number {
    return this.pendingMembers.size;
  }

  addPendingSyncMember(memberId: string): void {
    if (!this.has(memberId)) throw new Error(`pending sync for unknown member ${memberId} of group ${this.groupId}`);
    (this.pendingSyncMembersSet ??= new Set()).add(memberId);
  }

  removePendingSyncMember(memberId: string): void {
    this.pendingSyncMembersSet?.delete(memberId);
  }

  get hasReceivedSyncFromAllMembers(): boolean {
    return this.pendingSyncMembers.size === 0;
  }

  allPendingSyncMembers(): string[] {
    return [...this.pendingSyncMembers];
  }

  clearPendingSyncMembers(): void {
    this.pendingSyncMembersSet?.clear();
  }

  // ---- protocols --------------------------------------------------------------------------------

  /**
   * Whether a member with these protocols may join: an Empty group takes any non-empty type and list;
   * otherwise the type must match and one protocol must be supported by every member.
   */
  supportsProtocols(protocolType: string, protocols: string[]): boolean {
    if (this.is('Empty')) return protocolType.length > 0 && protocols.length > 0;
    return (
      this.protocolType === protocolType &&
      protocols.some((p) => this.protocolSupport.isSupportedByAll(p, this.members.size))
    );
  }

  /** The protocol the members would vote for now. */
  selectProtocol(): string {
    if (this.members.size === 0) throw new Error(`cannot select a protocol for empty group ${this.groupId}`);
    return voteProtocol(this.allMembers(), this.protocolSupport.candidates(this.members.size));
  }

  /**
   * Next generation (Kafka's `initNextGeneration`): with members, vote the protocol and wait for the
   * assignment (CompletingRebalance); without, go Empty. The generation grows either way.
   */
  initNextGeneration(now: number): void {
    this.generationId++;
    if (this.members.size > 0) {
      this.protocolName = this.selectProtocol();
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo('CompletingRebalance', now);
    } else {
      this.protocolName = null;
      this.subscribedTopics = this.computeSubscribedTopics();
      this.transitionTo('Empty', now);
    }
    this.clearPendingSyncMembers();
  }

  /** What the leader receives: every member's metadata for the chosen protocol. */
  currentMemberMetadata(): JoinGroupMember[] {
    if (this.is('Dead') || this.is('PreparingRebalance')) {
      throw new Error(`cannot list member metadata of group ${this.groupId} in state ${this.currentState}`);
    }
    return this.allMembers().map((m) => ({
      memberId: m.memberId,
      groupInstanceId: m.groupInstanceId,
      metadata: m.metadata(this.protocolName!),
    }));
  }

  /** Kafka's `isSubscribedToTopic`: true when unknown, to be safe. */
  isSubscribedToTopic(topic: string): boolean {
    return this.subscribedTopics === null || this.subscribedTopics.has(topic);
  }

  /** Union of the members' `consumer` subscriptions for the chosen protocol; null when unknown. */
  computeSubscribedTopics(): Set<string> | null {
    if (!this.isConsumerGroup) return null;
    if (this.members.size === 0) return new Set();
    if (this.protocolName === null) return null;
    const topics = new Set<string>();
    for (const member of this.members.values()) {
      const subscription = parseSubscription(member.metadata(this.protocolName));
      if (!subscription) return null;
      for (const topic of subscription.topics) topics.add(topic);
    }
    return topics;
  }
}
