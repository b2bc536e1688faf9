import type { ClassicGroup } from '../group/classic-group';
import type { MemberMetadata } from '../group/member-metadata';
import type { GroupRegistry } from '../group/group-registry';
import type { ConnectionIndex } from '../context/connection-index';
import type { ShardEnv } from '../context/shard-env';
import type { OperationEffects } from '../runtime/operation-effects';
import { disconnectKey, heartbeatKey } from '../timers/shard-timers';
import type { MemberRemoval } from './rebalance-ports';

export interface LivenessDeps {
  groups: GroupRegistry;
  /** Where its timers are scheduled and cancelled: the step's effects, applied by the shard. */
  effects: OperationEffects;
  connections: ConnectionIndex;
  env: Pick<ShardEnv, 'config' | 'logger' | 'metrics'>;
  /** Bound after construction: membership itself re-arms sessions through this class. */
  removal: () => MemberRemoval;
}

/**
 * Member liveness (Kafka's DelayedHeartbeat): one session timer per member, re-armed by every sign of
 * life; and the removal of dynamic members whose connection closed (docs/protocol.md, MEMBER_DISCONNECT_GRACE_MS).
 */
export class MemberLiveness {
  constructor(private readonly deps: LivenessDeps) {}

  /**
   * Kafka's `completeAndScheduleNextExpiration`: the member was heard from; expect the next sign of life
   * within `timeoutMs` (its session timeout, or the new-member join timeout).
   */
  heartbeat(group: ClassicGroup, member: MemberMetadata, timeoutMs = member.sessionTimeoutMs): void {
    member.heartbeatSatisfied = false;
    const memberId = member.memberId;
    this.deps.effects.schedule(heartbeatKey(group.groupId, memberId), timeoutMs, () => this.onExpire(group, memberId));
  }

  /** A KIP-394 member id was handed out: drop it unless the member joins with it within `timeoutMs`. */
  expectPendingMember(group: ClassicGroup, memberId: string, timeoutMs: number): void {
    this.deps.effects.schedule(heartbeatKey(group.groupId, memberId), timeoutMs, () => {
      if (!this.deps.groups.owns(group) || !group.isPendingMember(memberId)) return;
      this.deps.env.logger.info(`pending member ${memberId} of group ${group.groupId} expired before joining`);
      this.deps.env.metrics.onPendingMemberExpired?.('session-timeout');
      this.deps.removal().removePendingMemberAndUpdateGroup(group, memberId);
    });
  }

  /**
   * The connection that was handed a pending id closed: the id goes after MEMBER_DISCONNECT_GRACE_MS
   * (at once without a grace), or at its session timeout if that comes first. A client that reconnects
   * within the grace may still join with it; one that does not would never use it, and it would
   * otherwise hold its place in memory for the whole session timeout (up to 30 minutes).
   */
  pendingConnectionClosed(group: ClassicGroup, memberId: string): void {
    const remove = (): void => {
      if (!this.deps.groups.owns(group) || !group.isPendingMember(memberId)) return;
      this.deps.env.metrics.onPendingMemberExpired?.('connection-closed');
      this.deps.removal().removePendingMemberAndUpdateGroup(group, memberId);
    };
    const grace = this.deps.env.config.memberDisconnectGraceMs;
    if (grace <= 0) remove();
    else this.deps.effects.schedule(disconnectKey(group.groupId, memberId), grace, remove);
  }

  /** A pending id left its pending state: its expiry timers go with it. */
  forgetPending(group: ClassicGroup, memberId: string): void {
    this.deps.effects.cancel(heartbeatKey(group.groupId, memberId));
    this.deps.effects.cancel(disconnectKey(group.groupId, memberId));
    this.deps.connections.unbindPending(group, memberId);
  }

  /** The member left: its timers go with it. */
  forget(group: ClassicGroup, member: MemberMetadata): void {
    this.deps.effects.cancel(heartbeatKey(group.groupId, member.memberId));
    this.deps.effects.cancel(disconnectKey(group.groupId, member.memberId));
    this.deps.connections.unbind(member);
  }

  /** The member's connection closed: a dynamic member leaves after the grace period; static members wait for their session. */
  connectionClosed(group: ClassicGroup, member: MemberMetadata, connectionId: string): void {
    if (member.isStatic) return;
    const remove = (): void => {
      if (
        !this.deps.groups.owns(group) ||
        group.get(member.memberId) !== member ||
        member.connectionId !== connectionId
      )
        return;
      this.deps
        .removal()
        .removeMemberAndUpdateGroup(group, member, `member ${member.memberId} left: its connection closed`);
    };
    const grace = this.deps.env.config.memberDisconnectGraceMs;
    if (grace <= 0) remove();
    else this.deps.effects.schedule(disconnectKey(group.groupId, member.memberId), grace, remove);
  }

  private onExpire(group: ClassicGroup, memberId: string): void {
    if (!this.deps.groups.owns(group)) return;
    const member = group.get(memberId);
    if (!member || group.hasSatisfiedHeartbeat(member)) return;
    this.deps.env.logger.info(`member ${memberId} of group ${group.groupId} has failed (session timeout), removing it`);
    this.deps.env.metrics.onMemberExpired?.(group.groupId);
    this.deps
      .removal()
      .removeMemberAndUpdateGroup(group, member, `removing member ${memberId} on heartbeat expiration`);
  }
}
