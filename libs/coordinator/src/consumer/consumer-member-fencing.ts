import { groupMemberHolder } from '../group/member-quotas';
import type { ConsumerGroup } from './consumer-group';
import type { ConsumerGroupManagerDeps, Fencing } from './consumer-group-manager.types';
import type { ConsumerGroupMember } from './consumer-group-member';
import { memberTombstones } from './consumer-group-records';
import type { ConsumerGroupWrites } from './consumer-group-writes';
import { consumerRebalanceKey, consumerSessionKey } from './consumer-timer-keys';
import type { EpochBumpReason } from './epoch-history';
import type { EpochRecorder } from './epoch-recorder';
import type { MemberProgress } from './member-progress';
import { metadataHash } from './subscription-metadata';

/** A member's session timer: its key among the shard's timers, and the fencing it runs when it fires. */
export interface MemberSession {
  readonly key: string;
  readonly expire: () => void;
}

/** What fencing a member needs of the consumer group manager's dependencies. */
export type ConsumerFencingDeps = Pick<
  ConsumerGroupManagerDeps,
  | 'groups'
  | 'effects'
  | 'clock'
  | 'config'
  | 'onMemberGone'
  | 'heartbeatWaiting'
  | 'groupMoved'
  | 'migration'
  | 'quotas'
>;

/**
 * Fencing a consumer group member, and the timers that do it: its session, its rebalance timeout, a
 * classic member's join and sync deadlines, and (through `fenceMember`) the shard's disconnect grace.
 * Timers are scheduled and cancelled in the step's effects; when one fires, its fencing is a write of
 * its own through the same effects. Built by `ConsumerGroupManager` over the parts it shares with it
 * (its member progress, epoch recorder and writes).
 */
export class ConsumerMemberFencing {
  constructor(
    private readonly deps: ConsumerFencingDeps,
    private readonly progress: MemberProgress,
    private readonly epochs: EpochRecorder,
    private readonly applied: ConsumerGroupWrites,
  ) {}

  /**
   * Kafka's `consumerGroupFenceMember`: the member's records go, the group epoch moves, its timers stop;
   * or, when it was the last consumer-protocol member of classic ones, the group becomes classic.
   */
  fence(group: ConsumerGroup, member: ConsumerGroupMember, reason: EpochBumpReason): Fencing {
    this.deps.effects.cancel(consumerSessionKey(group.groupId, member.memberId));
    this.deps.effects.cancel(consumerRebalanceKey(group.groupId, member.memberId));
    this.deps.onMemberGone?.(group.groupId, member.memberId);
    this.deps.quotas?.release(groupMemberHolder('consumer', group.groupId, member.memberId));
    this.progress.access?.forget(group.groupId, member.memberId);
    const downgrade = this.deps.migration?.downgradeOnFence(group, member);
    if (downgrade) return downgrade;
    const now = this.deps.clock.now();
    const hash = metadataHash(this.progress.subscriptionAfter(group, member, undefined).metadata);
    const cause = { reason, memberId: member.memberId };
    const bump = this.epochs.bumpRecord(group, group.groupEpoch + 1, hash, cause, group.size - 1, now);
    // Kafka leaves the new target to the next heartbeat of a member (5 s away by default); here it is
    // computed at the end of the turn and the members it concerns are told at once.
    this.deps.groupMoved?.(group.groupId);
    return { records: [...memberTombstones(group.groupId, member.memberId, now), bump] };
  }

  /** The member's session: fenced unless heard from within `timeoutMs` (a classic member's own session timeout). */
  scheduleSessionTimeout(groupId: string, memberId: string, timeoutMs = this.deps.config.sessionTimeoutMs): void {
    this.fenceAfter(consumerSessionKey(groupId, memberId), groupId, memberId, timeoutMs);
  }

  /**
   * `scheduleSessionTimeout(groupId, memberId)` with the key and expiry of `session(groupId, memberId)`,
   * which a member that heartbeats every interval can keep instead of building them each time.
   */
  restartSession(session: MemberSession): void {
    this.deps.effects.schedule(session.key, this.deps.config.sessionTimeoutMs, session.expire);
  }

  /** The session timer's key of a member and what its expiry does, as `scheduleSessionTimeout` arms them. */
  session(groupId: string, memberId: string): MemberSession {
    const key = consumerSessionKey(groupId, memberId);
    return { key, expire: this.fencing(key, groupId, memberId, this.deps.config.sessionTimeoutMs) };
  }

  /** Arms timer `key`: when it fires, the member is fenced if still there (a session, a classic member's join or sync deadline). */
  fenceAfter(key: string, groupId: string, memberId: string, timeoutMs: number): void {
    this.deps.effects.schedule(key, timeoutMs, this.fencing(key, groupId, memberId, timeoutMs));
  }

  /**
   * What a member's session or deadline does when it fires: fences the member if it is still there, unless
   * a heartbeat of it arrived and waits for the batches under way. Kafka runs an expired timer behind the
   * requests already received, so that heartbeat restarts the session first: here the timer starts again
   * (fencing it only brought it back as a new member, two epoch bumps and targets, after a pause of the node).
   */
  private fencing(key: string, groupId: string, memberId: string, timeoutMs: number): () => void {
    const expire = (): void => {
      if (this.deps.heartbeatWaiting?.(groupId, memberId)) this.deps.effects.schedule(key, timeoutMs, expire);
      else this.fenceMember(groupId, memberId, () => true);
    };
    return expire;
  }

  /** Fences the member if it is still at `memberEpoch` when the deadline passes (it did not revoke in time). */
  scheduleRebalanceTimeout(groupId: string, memberId: string, memberEpoch: number, timeoutMs: number): void {
    this.deps.effects.schedule(consumerRebalanceKey(groupId, memberId), timeoutMs, () =>
      this.fenceMember(groupId, memberId, (member) => member.memberEpoch === memberEpoch),
    );
  }

  /** The member no longer has to revoke anything: its rebalance timeout stops. */
  cancelRebalanceTimeout(groupId: string, memberId: string): void {
    this.deps.effects.cancel(consumerRebalanceKey(groupId, memberId));
  }

  /** A timer's fencing (session, rebalance timeout, disconnect grace): a write nobody waits on, if the group and member are still there. */
  fenceMember(groupId: string, memberId: string, stillDue: (member: ConsumerGroupMember) => boolean): void {
    const group = this.deps.groups.get(groupId);
    const member = group?.member(memberId);
    if (!group || !member || !stillDue(member)) return;
    const fenced = this.fence(group, member, 'member-fenced');
    this.deps.effects.write(this.applied.written<never>(fenced.records, undefined, groupId, fenced.settled));
  }
}
