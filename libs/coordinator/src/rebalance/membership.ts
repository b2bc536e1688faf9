import type { JoinGroupProtocol } from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';
import type { JoinCallback, MemberInit } from '../group/member-metadata';
import { MemberMetadata } from '../group/member-metadata';
import { pendingHolder, protocolBytes } from '../group/member-quotas';
import { joinError, syncError } from '../responses/group-responses';
import type { GroupRegistry } from '../group/group-registry';
import type { ConnectionIndex } from '../context/connection-index';
import type { ShardEnv } from '../context/shard-env';
import type { MemberLiveness } from './member-liveness';
import type { MemberRemoval, RebalanceTrigger } from './rebalance-ports';

export interface MembershipDeps {
  groups: GroupRegistry;
  connections: ConnectionIndex;
  liveness: MemberLiveness;
  env: Pick<ShardEnv, 'config' | 'random' | 'quotas'>;
  /** Bound after construction: the join phase removes members through this class. */
  rebalance: () => RebalanceTrigger;
}

/**
 * Adding, updating and removing members, and what each of these does to the group's state
 * (Kafka's `addMemberAndRebalance`, `updateMemberAndRebalance`, `removeMemberAndUpdateGroup`).
 */
export class Membership implements MemberRemoval {
  constructor(private readonly deps: MembershipDeps) {}

  /** Kafka's `generateMemberId`: `clientId-uuid`, or `instanceId-uuid` for static members. */
  generateMemberId(clientId: string, groupInstanceId: string | null): string {
    return `${groupInstanceId ?? clientId}-${uuid(this.deps.env.random.next.bind(this.deps.env.random))}`;
  }

  addMemberAndRebalance(
    group: ClassicGroup,
    init: MemberInit,
    callback: JoinCallback,
    connectionId: string | undefined,
    reason: string,
    principal?: string,
  ): MemberMetadata {
    if (group.isPendingMember(init.memberId)) this.forgetPending(group, init.memberId);
    const member = new MemberMetadata(init);
    member.isNew = true;
    // A member joining during the initial delay extends it (KIP-134). Kafka 4.x asks whether the
    // rebalance started from Empty; the Scala coordinator asked for generation 0 (brand-new groups only).
    if (group.is('PreparingRebalance') && group.previousState === 'Empty') group.newMemberAdded = true;
    group.add(member, callback);
    this.charge(group, member, principal);
    this.deps.connections.bind(group, member, connectionId);
    // While its JoinGroup is parked a new member cannot heartbeat; give it the new-member join timeout.
    this.deps.liveness.heartbeat(group, member, this.deps.env.config.newMemberJoinTimeoutMs);
    this.deps.rebalance().maybePrepareRebalance(group, reason);
    return member;
  }

  updateMemberAndRebalance(
    group: ClassicGroup,
    member: MemberMetadata,
    protocols: JoinGroupProtocol[],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    callback: JoinCallback,
    reason: string,
  ): void {
    this.updateMember(group, member, protocols, rebalanceTimeoutMs, sessionTimeoutMs, callback);
    this.deps.rebalance().maybePrepareRebalance(group, reason);
  }

  /**
   * KIP-394: a dynamic member was handed `memberId` and must join with it within its session timeout,
   * or before its connection's disconnect grace ends once that connection is gone.
   */
  addPendingMember(
    group: ClassicGroup,
    memberId: string,
    sessionTimeoutMs: number,
    connectionId: string | undefined,
    principal: string | undefined,
  ): void {
    group.addPendingMember(memberId);
    this.deps.liveness.expectPendingMember(group, memberId, sessionTimeoutMs);
    this.deps.connections.bindPending(group, memberId, connectionId);
    this.deps.env.quotas.hold(
      pendingHolder(group.groupId, memberId),
      principal,
      0,
      () => this.deps.groups.owns(group) && group.isPendingMember(memberId),
    );
  }

  /** Charges `member` and its protocols to `principal` (MAX_MEMBERS_PER_PRINCIPAL and its bytes), replacing its charge. */
  charge(group: ClassicGroup, member: MemberMetadata, principal: string | undefined): void {
    const { quotas } = this.deps.env;
    if (!quotas.counts(principal)) return;
    quotas.hold(
      member,
      principal,
      protocolBytes(member.supportedProtocols),
      () => this.deps.groups.owns(group) && group.get(member.memberId) === member,
    );
  }

  /**
   * Parks a member's new JoinGroup. Kafka silently drops an older parked JoinGroup of the same member;
   * here it is answered (REBALANCE_IN_PROGRESS) so no acknowledgement is left hanging.
   */
  updateMember(
    group: ClassicGroup,
    member: MemberMetadata,
    protocols: JoinGroupProtocol[],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    callback: JoinCallback | null,
  ): void {
    if (callback !== null && group.isAwaitingJoin(member)) {
      group.parked.completeJoin(
        member,
        joinError(
          member.memberId,
          ErrorCode.REBALANCE_IN_PROGRESS,
          'superseded by a newer JoinGroup of the same member',
        ),
      );
    }
    group.updateMember(member, protocols, rebalanceTimeoutMs, sessionTimeoutMs, callback);
  }

  /**
   * A member leaves (LeaveGroup, session expiry, closed connection): its parked JoinGroup is answered
   * UNKNOWN_MEMBER_ID, and the group rebalances (or completes the join phase it was waiting on).
   */
  removeMemberAndUpdateGroup(group: ClassicGroup, member: MemberMetadata, reason: string): void {
    group.parked.completeJoin(
      member,
      joinError('', ErrorCode.UNKNOWN_MEMBER_ID, `member ${member.memberId} was removed: ${reason}`),
    );
    // Kafka leaves a parked SyncGroup of a removed member unanswered; a closed connection can remove
    // a member that waits on one here, so it is answered too.
    group.parked.completeSync(
      member,
      syncError(ErrorCode.UNKNOWN_MEMBER_ID, `member ${member.memberId} was removed: ${reason}`),
    );
    this.drop(group, member.memberId);
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance':
        this.deps.rebalance().maybePrepareRebalance(group, reason);
        break;
      case 'PreparingRebalance':
        this.deps.rebalance().checkJoin(group);
        break;
      default:
        break;
    }
  }

  /**
   * Takes a member (or a KIP-394 pending id) out of the group with its timers and connection binding,
   * and nothing else: no reply, no rebalance. Callers decide what the removal means for the group.
   */
  drop(group: ClassicGroup, memberId: string): void {
    const member = group.get(memberId);
    if (group.isPendingMember(memberId)) this.forgetPending(group, memberId);
    group.remove(memberId);
    if (member) {
      this.deps.liveness.forget(group, member);
      this.deps.env.quotas.release(member);
    }
  }

  removePendingMemberAndUpdateGroup(group: ClassicGroup, memberId: string): void {
    this.forgetPending(group, memberId);
    group.remove(memberId);
    if (group.is('PreparingRebalance')) this.deps.rebalance().checkJoin(group);
    else this.deps.groups.dropIfUnused(group);
  }

  /** A pending id stops being one: its timers, connection binding and charge go. */
  private forgetPending(group: ClassicGroup, memberId: string): void {
    this.deps.liveness.forgetPending(group, memberId);
    this.deps.env.quotas.release(pendingHolder(group.groupId, memberId));
  }
}

/** An RFC 4122 version-4 UUID from the injected random source (seeded in simulations). */
function uuid(next: () => number): string {
  const bytes = new Array<number>(16);
  for (let i = 0; i < 16; i++) bytes[i] = Math.floor(next() * 256) & 0xff;
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
