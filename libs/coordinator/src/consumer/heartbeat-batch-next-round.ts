import { MemberKeys, memberKeys } from './member-keys';

/**
 * The heartbeats a batch puts off to its next round: each one of a member (or of a static member's
 * instance) that already has a heartbeat parked in the round under way. Answering it at once would first
 * need that heartbeat's answer, and so its group's target, at once. After a pause of the node, when every
 * member's join and its retry arrive together, that was one target computation over the whole group per
 * member: 10,000 of them, a minute in one turn of the event loop, no socket read meanwhile. Put off, the
 * round's parked heartbeats share one target and the next round's share another, and each member's
 * requests still run in the order they arrived. Members' requests are concurrent with each other's, so
 * running one member's second request after another member's first is an order they could have arrived in.
 */
export class NextRound {
  private indexes: number[] = [];
  private readonly keys = new MemberKeys();

  get isEmpty(): boolean {
    return this.indexes.length === 0;
  }

  /** Heartbeat `index` of the batch waits for the next round. */
  add(index: number, groupId: string, memberId: string, instanceId: string | null | undefined): void {
    this.indexes.push(index);
    this.keys.add(groupId, memberKeys(memberId, instanceId));
  }

  /** Whether a heartbeat of this member (or of its instance) waits for the next round. */
  holds(groupId: string, memberId: string, instanceId?: string | null): boolean {
    return this.keys.has(groupId, memberId, instanceId);
  }

  /** Whether a heartbeat of the group waits for the next round (its changes to the group are not applied yet). */
  holdsGroup(groupId: string): boolean {
    return this.keys.hasGroup(groupId);
  }

  /** The heartbeats put off, in arrival order, for the round that starts now; none is then put off. */
  take(): number[] {
    const taken = this.indexes;
    this.indexes = [];
    this.keys.clear();
    return taken;
  }
}
