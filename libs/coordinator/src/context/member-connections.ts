/** One member of a KIP-848 style group (consumer or share), as a connection knows it. */
export interface ConnectedMember {
  groupId: string;
  memberId: string;
}

/**
 * Which connection each member of a heartbeat-driven group (consumer, share) last heartbeated on, and
 * the reverse: pushes (HeartbeatNow) go to a member's connection, and a connection's closing finds its
 * members without scanning every group. An entry lives as long as its member: `forget` when the member
 * leaves or is fenced, so the index never holds more than the shard's members (a fenced member's entry
 * would otherwise stay until its connection closed, and a client churning member ids on one long-lived
 * connection would grow it without bound).
 */
export class MemberConnections {
  private readonly byMember = new Map<string, string>();
  private readonly byConnection = new Map<string, Map<string, ConnectedMember>>();
  /** Members pushed a HeartbeatNow that have not heartbeated since (docs/protocol.md: one push until they do). */
  private readonly told = new Set<string>();

  /** Binds the member to `connectionId`; true when it was bound to another connection before (it moved). */
  bind(groupId: string, memberId: string, connectionId: string): boolean {
    const key = memberKey(groupId, memberId);
    const previous = this.byMember.get(key);
    if (previous === connectionId) return false;
    if (previous !== undefined) this.dropFromConnection(previous, key);
    this.byMember.set(key, connectionId);
    let members = this.byConnection.get(connectionId);
    if (!members) this.byConnection.set(connectionId, (members = new Map()));
    members.set(key, { groupId, memberId });
    return previous !== undefined;
  }

  connectionOf(groupId: string, memberId: string): string | undefined {
    return this.byMember.get(memberKey(groupId, memberId));
  }

  /**
   * A push to the member is due: true when it should go, false when one already went and the member has
   * not heartbeated since (that heartbeat, still to come, reads the group as it is by then).
   */
  tell(groupId: string, memberId: string): boolean {
    const key = memberKey(groupId, memberId);
    if (this.told.has(key)) return false;
    this.told.add(key);
    return true;
  }

  /** The member heartbeated: the next change it must hear of is pushed again. */
  heard(groupId: string, memberId: string): void {
    if (this.told.size > 0) this.told.delete(memberKey(groupId, memberId));
  }

  /** The member is gone (left, fenced, its group deleted): its entry goes. */
  forget(groupId: string, memberId: string): void {
    const key = memberKey(groupId, memberId);
    this.told.delete(key);
    const connectionId = this.byMember.get(key);
    if (connectionId === undefined) return;
    this.byMember.delete(key);
    this.dropFromConnection(connectionId, key);
  }

  /** The members bound to a connection that closed; the connection is forgotten, its members stay bound to it until they move or go. */
  membersOf(connectionId: string): ConnectedMember[] {
    const members = this.byConnection.get(connectionId);
    return members ? [...members.values()] : [];
  }

  get size(): number {
    return this.byMember.size;
  }

  clear(): void {
    this.told.clear();
    this.byMember.clear();
    this.byConnection.clear();
  }

  private dropFromConnection(connectionId: string, key: string): void {
    const members = this.byConnection.get(connectionId);
    members?.delete(key);
    if (members?.size === 0) this.byConnection.delete(connectionId);
  }
}

const memberKey = (groupId: string, memberId: string): string => `${groupId}\u0000${memberId}`;
