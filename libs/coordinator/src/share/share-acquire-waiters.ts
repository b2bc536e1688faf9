import { ErrorCode } from '@cohort/protocol';
import type { OperationEffects } from '../runtime/operation-effects';

/** A ShareAcquire held because nothing could be leased (Kafka's DelayedShareFetch in its purgatory). */
export interface ShareAcquireWaiter {
  readonly groupId: string;
  readonly memberId: string;
  /** Tries to lease now; true when the request is answered by it (it leased something). */
  attempt(): boolean;
  /** The wait is over without a lease: the time ran out (NONE), or the member or group went. */
  finish(errorCode: number): void;
}

interface Held {
  readonly waiter: ShareAcquireWaiter;
  readonly timerKey: string;
}

let nextWaitId = 0;

/**
 * The held ShareAcquire requests of one shard, by group and member. Each is woken when one of its
 * group's partitions can lease again (an end-offset report, a release, an expired lock, a redelivery,
 * SPSO moving), and answered as soon as it leases something, or when `maxWaitMs` runs out.
 *
 * A member has at most one held request: a new one answers the older one at once with no leases, as
 * its wait running out would. Kafka serves one ShareFetch at a time per connection and share session
 * (a client sends its next fetch only once the last one was answered), so a member with a second
 * request no longer waits on the first; answering it, rather than refusing the new one, also serves a
 * member whose answer was lost with its connection and that asks again on a new one. So a wake tries
 * at most one request per member of the group (GROUP_SHARE_MAX_SIZE), however many a client sends:
 * 20,000 held requests of one member made every end-offset report of the node take 5 s before.
 */
export class ShareAcquireWaiters {
  private readonly byGroup = new Map<string, Map<string, Held>>();
  private count = 0;

  constructor(private readonly effects: OperationEffects) {}

  park(waiter: ShareAcquireWaiter, maxWaitMs: number): void {
    const older = this.byGroup.get(waiter.groupId)?.get(waiter.memberId);
    if (older) this.end(older, ErrorCode.NONE);
    const held: Held = { waiter, timerKey: `share-wait\u0000${++nextWaitId}` };
    let group = this.byGroup.get(waiter.groupId);
    if (!group) this.byGroup.set(waiter.groupId, (group = new Map()));
    group.set(waiter.memberId, held);
    this.count++;
    this.effects.schedule(held.timerKey, maxWaitMs, () => {
      if (this.remove(held)) waiter.finish(ErrorCode.NONE);
    });
  }

  /** Offsets of the group can be leased: its held requests try again, oldest first. */
  wake(groupId: string): void {
    const group = this.byGroup.get(groupId);
    if (!group) return;
    for (const held of [...group.values()]) this.retry(held);
  }

  /** The member went: its held request is answered UNKNOWN_MEMBER_ID. */
  dropMember(groupId: string, memberId: string): void {
    const held = this.byGroup.get(groupId)?.get(memberId);
    if (held) this.end(held, ErrorCode.UNKNOWN_MEMBER_ID);
  }

  /** The group was deleted: its held requests are answered GROUP_ID_NOT_FOUND. */
  dropGroup(groupId: string): void {
    for (const held of [...(this.byGroup.get(groupId)?.values() ?? [])]) this.end(held, ErrorCode.GROUP_ID_NOT_FOUND);
  }

  /** The shard closes: every held request is answered `errorCode` (its timers go with the shard's). */
  failAll(errorCode: number): void {
    const all = [...this.byGroup.values()].flatMap((group) => [...group.values()]);
    this.byGroup.clear();
    this.count = 0;
    for (const held of all) held.waiter.finish(errorCode);
  }

  /** The requests held, at most one per member. */
  get size(): number {
    return this.count;
  }

  /** A held request tries again; answered (it leased something), it is held no more. */
  private retry(held: Held): void {
    if (!this.isHeld(held)) return;
    if (held.waiter.attempt() && this.remove(held)) this.effects.cancel(held.timerKey);
  }

  private end(held: Held, errorCode: number): void {
    if (!this.remove(held)) return;
    this.effects.cancel(held.timerKey);
    held.waiter.finish(errorCode);
  }

  private isHeld(held: Held): boolean {
    return this.byGroup.get(held.waiter.groupId)?.get(held.waiter.memberId) === held;
  }

  private remove(held: Held): boolean {
    if (!this.isHeld(held)) return false;
    const { groupId, memberId } = held.waiter;
    const group = this.byGroup.get(groupId)!;
    group.delete(memberId);
    if (group.size === 0) this.byGroup.delete(groupId);
    this.count--;
    return true;
  }
}
