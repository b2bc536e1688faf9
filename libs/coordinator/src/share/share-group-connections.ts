import type { OperationEffects } from '../runtime/operation-effects';

/** A share group member's lease release after its connection closed (MEMBER_DISCONNECT_GRACE_MS). */
export const shareDisconnectKey = (groupId: string, memberId: string): string =>
  `share-disconnect\u0000${groupId}\u0000${memberId}`;

const keyOf = (groupId: string, memberId: string): string => `${groupId}\u0000${memberId}`;

/**
 * The connection each share group member last heartbeated on: where its HeartbeatNow pushes go, and
 * whose closing gives its leases back once the disconnect grace has passed without the member coming
 * back on another connection (SPEC: "a member whose socket closes beyond the grace gives its leases
 * back at once"). The member stays in the group until its session times out, as in Kafka, where a
 * closed connection ends the share session (its leases) but not the membership.
 */
export class ShareMemberConnections {
  private readonly byMember = new Map<string, { groupId: string; memberId: string; connectionId: string }>();

  connectionOf(groupId: string, memberId: string): string | undefined {
    return this.byMember.get(keyOf(groupId, memberId))?.connectionId;
  }

  /** The member spoke on `connectionId` (undefined: a caller without a connection, e.g. a test). */
  remember(groupId: string, memberId: string, connectionId: string | undefined, effects: OperationEffects): void {
    effects.cancel(shareDisconnectKey(groupId, memberId));
    if (connectionId === undefined) this.byMember.delete(keyOf(groupId, memberId));
    else this.byMember.set(keyOf(groupId, memberId), { groupId, memberId, connectionId });
  }

  forget(groupId: string, memberId: string, effects: OperationEffects): void {
    effects.cancel(shareDisconnectKey(groupId, memberId));
    this.byMember.delete(keyOf(groupId, memberId));
  }

  /**
   * `connectionId` closed: each member that last spoke on it has its leases released after `graceMs`,
   * unless it heartbeats on another connection first (which cancels the timer).
   */
  connectionClosed(
    connectionId: string,
    graceMs: number,
    effects: OperationEffects,
    release: (groupId: string, memberId: string) => void,
  ): void {
    for (const entry of this.byMember.values()) {
      if (entry.connectionId !== connectionId) continue;
      const { groupId, memberId } = entry;
      const fire = (): void => {
        if (this.byMember.get(keyOf(groupId, memberId))?.connectionId !== connectionId) return;
        this.byMember.delete(keyOf(groupId, memberId));
        release(groupId, memberId);
      };
      if (graceMs <= 0) fire();
      else effects.schedule(shareDisconnectKey(groupId, memberId), graceMs, fire);
    }
  }

  clear(): void {
    this.byMember.clear();
  }
}
