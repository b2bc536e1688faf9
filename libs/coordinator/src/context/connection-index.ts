import type { ClassicGroup } from '../group/classic-group';
import type { MemberMetadata } from '../group/member-metadata';
import { pendingHolder } from '../group/member-quotas';

export interface BoundMember {
  group: ClassicGroup;
  member: MemberMetadata;
}

/** A KIP-394 pending member id and the connection that asked for it. */
export interface BoundPendingMember {
  group: ClassicGroup;
  memberId: string;
}

/**
 * Which members last spoke on which connection, so `connectionClosed` finds them without scanning
 * every group. Entries are checked when used (the member may have left or moved to another connection
 * since), and dropped then.
 *
 * A member is bound to the connection of its last request (the rebinding rule of docs/protocol.md): a request of a
 * known member over a new connection moves it there, so pushes follow it, the old connection's
 * closing no longer concerns it, and `onRebind` cancels a disconnect grace already running for it
 * (a member whose socket dropped and came back within the grace keeps its membership).
 */
export class ConnectionIndex {
  private readonly byConnection = new Map<string, Set<BoundMember>>();
  private readonly entries = new WeakMap<MemberMetadata, BoundMember>();
  /** Pending ids by connection, and each pending id's connection (by `pendingHolder` key), so leaving either way forgets it. */
  private readonly pendingByConnection = new Map<string, Map<string, BoundPendingMember>>();
  private readonly pendingConnection = new Map<string, string>();

  constructor(private readonly onRebind: (group: ClassicGroup, member: MemberMetadata) => void = () => undefined) {}

  /** Records that `member` of `group` last used `connectionId` (no-op without one). */
  bind(group: ClassicGroup, member: MemberMetadata, connectionId: string | undefined): void {
    if (connectionId === undefined || (member.connectionId === connectionId && this.entries.has(member))) return;
    const moved = member.connectionId !== undefined && member.connectionId !== connectionId;
    this.unbind(member);
    if (moved) this.onRebind(group, member);
    member.connectionId = connectionId;
    const entry: BoundMember = { group, member };
    this.entries.set(member, entry);
    let set = this.byConnection.get(connectionId);
    if (!set) this.byConnection.set(connectionId, (set = new Set()));
    set.add(entry);
  }

  unbind(member: MemberMetadata): void {
    const entry = this.entries.get(member);
    if (!entry || member.connectionId === undefined) return;
    this.entries.delete(member);
    const set = this.byConnection.get(member.connectionId);
    set?.delete(entry);
    if (set?.size === 0) this.byConnection.delete(member.connectionId);
  }

  /** The members still bound to `connectionId`; forgets the connection. */
  take(connectionId: string): BoundMember[] {
    const set = this.byConnection.get(connectionId);
    this.byConnection.delete(connectionId);
    if (!set) return [];
    const out: BoundMember[] = [];
    for (const entry of set) {
      this.entries.delete(entry.member);
      if (entry.member.connectionId === connectionId && entry.group.get(entry.member.memberId) === entry.member)
        out.push(entry);
    }
    return out;
  }

  /** Records that the connection `connectionId` was handed the pending id `memberId` (no-op without one). */
  bindPending(group: ClassicGroup, memberId: string, connectionId: string | undefined): void {
    if (connectionId === undefined) return;
    const key = pendingHolder(group.groupId, memberId);
    this.unbindPending(group, memberId);
    this.pendingConnection.set(key, connectionId);
    let map = this.pendingByConnection.get(connectionId);
    if (!map) this.pendingByConnection.set(connectionId, (map = new Map()));
    map.set(key, { group, memberId });
  }

  /** The pending id left its pending state (joined, expired, dropped). */
  unbindPending(group: ClassicGroup, memberId: string): void {
    const key = pendingHolder(group.groupId, memberId);
    const connectionId = this.pendingConnection.get(key);
    if (connectionId === undefined) return;
    this.pendingConnection.delete(key);
    const map = this.pendingByConnection.get(connectionId);
    map?.delete(key);
    if (map?.size === 0) this.pendingByConnection.delete(connectionId);
  }

  /** The pending ids `connectionId` was handed that are still pending; forgets them. */
  takePending(connectionId: string): BoundPendingMember[] {
    const map = this.pendingByConnection.get(connectionId);
    this.pendingByConnection.delete(connectionId);
    if (!map) return [];
    const out: BoundPendingMember[] = [];
    for (const [key, entry] of map) {
      this.pendingConnection.delete(key);
      if (entry.group.isPendingMember(entry.memberId)) out.push(entry);
    }
    return out;
  }

  clear(): void {
    this.byConnection.clear();
    this.pendingByConnection.clear();
    this.pendingConnection.clear();
  }
}
