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
 * connection would grow it without bound). Members are found by group, then member id, never by a key
 * joining the two: every heartbeat binds its member, and building and hashing a new key string each
 * time was most of that cost in a burst of joins. A connection holding one member (the usual client)
 * keeps it as is, without a collection of its own.
 */
export class MemberConnections {
  /** groupId → memberId → its binding. */
  private readonly byMember = new Map<string, Map<string, Binding>>();
  /** connectionId → its one member's binding, or the set of them once it holds more than one. */
  private readonly byConnection = new Map<string, Binding | Set<Binding>>();
  /** Members pushed a HeartbeatNow that have not heartbeated since (docs/protocol.md: one push until they do), by group. */
  private readonly told = new Map<string, Set<string>>();
  private bound = 0;

  /** Binds the member to `connectionId`; true when it was bound to another connection before (it moved). */
  bind(groupId: string, memberId: string, connectionId: string): boolean {
    let members = this.byMember.get(groupId);
    if (!members) this.byMember.set(groupId, (members = new Map()));
    const previous = members.get(memberId);
    if (previous?.connectionId === connectionId) return false;
    if (previous) this.dropFromConnection(previous);
    else this.bound++;
    const binding: Binding = { groupId, memberId, connectionId };
    members.set(memberId, binding);
    const held = this.byConnection.get(connectionId);
    if (held === undefined) this.byConnection.set(connectionId, binding);
    else if (held instanceof Set) held.add(binding);
    else this.byConnection.set(connectionId, new Set([held, binding]));
    return previous !== undefined;
  }

  connectionOf(groupId: string, memberId: string): string | undefined {
    return this.byMember.get(groupId)?.get(memberId)?.connectionId;
  }

  /**
   * A push to the member is due: true when it should go, false when one already went and the member has
   * not heartbeated since (that heartbeat, still to come, reads the group as it is by then).
   */
  tell(groupId: string, memberId: string): boolean {
    let told = this.told.get(groupId);
    if (!told) this.told.set(groupId, (told = new Set()));
    if (told.has(memberId)) return false;
    told.add(memberId);
    return true;
  }

  /** The member heartbeated: the next change it must hear of is pushed again. */
  heard(groupId: string, memberId: string): void {
    if (this.told.size === 0) return;
    const told = this.told.get(groupId);
    if (told?.delete(memberId) && told.size === 0) this.told.delete(groupId);
  }

  /** The member is gone (left, fenced, its group deleted): its entry goes. */
  forget(groupId: string, memberId: string): void {
    this.heard(groupId, memberId);
    const members = this.byMember.get(groupId);
    const binding = members?.get(memberId);
    if (!members || !binding) return;
    members.delete(memberId);
    if (members.size === 0) this.byMember.delete(groupId);
    this.bound--;
    this.dropFromConnection(binding);
  }

  /** The members bound to a connection that closed; the connection is forgotten, its members stay bound to it until they move or go. */
  membersOf(connectionId: string): ConnectedMember[] {
    const held = this.byConnection.get(connectionId);
    if (held === undefined) return [];
    const bindings = held instanceof Set ? [...held] : [held];
    return bindings.map(({ groupId, memberId }) => ({ groupId, memberId }));
  }

  get size(): number {
    return this.bound;
  }

  clear(): void {
    this.told.clear();
    this.byMember.clear();
    this.byConnection.clear();
    this.bound = 0;
  }

  private dropFromConnection(binding: Binding): void {
    const held = this.byConnection.get(binding.connectionId);
    if (held === binding) this.byConnection.delete(binding.connectionId);
    else if (held instanceof Set) {
      held.delete(binding);
      if (held.size === 0) this.byConnection.delete(binding.connectionId);
    }
  }
}

/** Where one member's pushes go. */
interface Binding extends ConnectedMember {
  readonly connectionId: string;
}
