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
 * The held ShareAcquire requests of one shard, by group. Each is woken when one of its group's
 * partitions can lease again (an end-offset report, a release, an expired lock, a redelivery, SPSO
 * moving) and answered as soon as it leases something, or when `maxWaitMs` runs out.
 */
export class ShareAcquireWaiters {
  private readonly byGroup = new Map<string, Set<Held>>();

  constructor(private readonly effects: OperationEffects) {}

  park(waiter: ShareAcquireWaiter, maxWaitMs: number): void {
    const held: Held = { waiter, timerKey: `share-wait\u0000${++nextWaitId}` };
    let group = this.byGroup.get(waiter.groupId);
    if (!group) this.byGroup.set(waiter.groupId, (group = new Set()));
    group.add(held);
    this.effects.schedule(held.timerKey, maxWaitMs, () => {
      if (this.remove(held)) waiter.finish(ErrorCode.NONE);
    });
  }

  /** Offsets of the group can be leased: held requests try again, oldest first. */
  wake(groupId: string): void {
    const group = this.byGroup.get(groupId);
    if (!group) return;
    for (const held of [...group]) {
      if (!group.has(held)) continue;
      if (held.waiter.attempt() && this.remove(held)) this.effects.cancel(held.timerKey);
    }
  }

  /** The member went: its held requests are answered UNKNOWN_MEMBER_ID. */
  dropMember(groupId: string, memberId: string): void {
    for (const held of [...(this.byGroup.get(groupId) ?? [])])
      if (held.waiter.memberId === memberId) this.end(held, ErrorCode.UNKNOWN_MEMBER_ID);
  }

  /** The group was deleted: its held requests are answered GROUP_ID_NOT_FOUND. */
  dropGroup(groupId: string): void {
    for (const held of [...(this.byGroup.get(groupId) ?? [])]) this.end(held, ErrorCode.GROUP_ID_NOT_FOUND);
  }

  /** The shard closes: every held request is answered `errorCode` (its timers go with the shard's). */
  failAll(errorCode: number): void {
    const all = [...this.byGroup.values()].flatMap((group) => [...group]);
    this.byGroup.clear();
    for (const held of all) held.waiter.finish(errorCode);
  }

  get size(): number {
    let count = 0;
    for (const group of this.byGroup.values()) count += group.size;
    return count;
  }

  private end(held: Held, errorCode: number): void {
    if (!this.remove(held)) return;
    this.effects.cancel(held.timerKey);
    held.waiter.finish(errorCode);
  }

  private remove(held: Held): boolean {
    const group = this.byGroup.get(held.waiter.groupId);
    if (!group?.delete(held)) return false;
    if (group.size === 0) this.byGroup.delete(held.waiter.groupId);
    return true;
  }
}
