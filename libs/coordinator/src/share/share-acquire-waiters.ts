import { ErrorCode } from '@cohort/protocol';
import type { OperationEffects } from '../runtime/operation-effects';
import type { ShareTopicPartition } from './share-ports';

/** A ShareAcquire held because nothing could be leased (Kafka's DelayedShareFetch in its purgatory). */
export interface ShareAcquireWaiter {
  readonly groupId: string;
  readonly memberId: string;
  /** The partitions it may lease from (its member's assignment when it was held): only their changes wake it. */
  readonly partitions: readonly ShareTopicPartition[];
  /** Tries to lease now; true when the request is answered by it (it leased something). */
  attempt(): boolean;
  /** The wait is over without a lease: the time ran out (NONE), or the member or group went. */
  finish(errorCode: number): void;
}

interface Held {
  readonly waiter: ShareAcquireWaiter;
  readonly timerKey: string;
  /** The partition keys it is listed under in its group's `byPartition`. */
  keys: readonly string[];
}

/** The held requests of one group: at most one per member, and each listed under every partition it waits on. */
interface GroupWaiters {
  readonly byMember: Map<string, Held>;
  readonly byPartition: Map<string, Set<Held>>;
}

let nextWaitId = 0;

const partitionKey = (topic: string, partition: number): string => `${topic}\u0000${partition}`;

/**
 * The held ShareAcquire requests of one shard, by group. Each is woken when one of the partitions it
 * waits on can lease again (an end-offset report, a release, an expired lock, a redelivery, SPSO
 * moving) and answered as soon as it leases something, or when `maxWaitMs` runs out.
 *
 * A member has at most one held request: a new one answers the older one at once with no leases, as
 * its wait running out would. Kafka serves one ShareFetch at a time per connection and share session
 * (a client sends its next fetch only once the last one was answered), so a member with a second
 * request no longer waits on the first; answering it, rather than refusing the new one, also serves a
 * member whose answer was lost with its connection and that asks again on a new one. A wake visits
 * only the requests waiting on the partition that changed, so its cost does not grow with the
 * requests held on other partitions or in other groups.
 */
export class ShareAcquireWaiters {
  private readonly byGroup = new Map<string, GroupWaiters>();
  private count = 0;

  constructor(private readonly effects: OperationEffects) {}

  park(waiter: ShareAcquireWaiter, maxWaitMs: number): void {
    const older = this.byGroup.get(waiter.groupId)?.byMember.get(waiter.memberId);
    if (older) this.end(older, ErrorCode.NONE);
    const held: Held = { waiter, timerKey: `share-wait\u0000${++nextWaitId}`, keys: [] };
    let group = this.byGroup.get(waiter.groupId);
    if (!group) this.byGroup.set(waiter.groupId, (group = { byMember: new Map(), byPartition: new Map() }));
    group.byMember.set(waiter.memberId, held);
    this.count++;
    this.list(group, held, waiter.partitions);
    this.effects.schedule(held.timerKey, maxWaitMs, () => {
      if (this.remove(held)) waiter.finish(ErrorCode.NONE);
    });
  }

  /** Offsets of the partition can be leased: the requests held on it try again, oldest first. */
  wake(groupId: string, topic: string, partition: number): void {
    const waiting = this.byGroup.get(groupId)?.byPartition.get(partitionKey(topic, partition));
    if (!waiting) return;
    for (const held of [...waiting]) {
      if (!waiting.has(held)) continue;
      if (held.waiter.attempt() && this.remove(held)) this.effects.cancel(held.timerKey);
    }
  }

  /**
   * The member's assignment changed: its held request tries the partitions it was given at once (one
   * that the group never leased from has no state yet, and no report would wake it), then waits on
   * `partitions` from now on.
   */
  reassigned(groupId: string, memberId: string, partitions: readonly ShareTopicPartition[]): void {
    const group = this.byGroup.get(groupId);
    const held = group?.byMember.get(memberId);
    if (!group || !held) return;
    if (held.waiter.attempt() && this.remove(held)) {
      this.effects.cancel(held.timerKey);
      return;
    }
    this.unlist(group, held);
    this.list(group, held, partitions);
  }

  /** The member went: its held request is answered UNKNOWN_MEMBER_ID. */
  dropMember(groupId: string, memberId: string): void {
    const held = this.byGroup.get(groupId)?.byMember.get(memberId);
    if (held) this.end(held, ErrorCode.UNKNOWN_MEMBER_ID);
  }

  /** The group was deleted: its held requests are answered GROUP_ID_NOT_FOUND. */
  dropGroup(groupId: string): void {
    for (const held of [...(this.byGroup.get(groupId)?.byMember.values() ?? [])])
      this.end(held, ErrorCode.GROUP_ID_NOT_FOUND);
  }

  /** The shard closes: every held request is answered `errorCode` (its timers go with the shard's). */
  failAll(errorCode: number): void {
    const all = [...this.byGroup.values()].flatMap((group) => [...group.byMember.values()]);
    this.byGroup.clear();
    this.count = 0;
    for (const held of all) held.waiter.finish(errorCode);
  }

  /** The requests held, at most one per member. */
  get size(): number {
    return this.count;
  }

  private end(held: Held, errorCode: number): void {
    if (!this.remove(held)) return;
    this.effects.cancel(held.timerKey);
    held.waiter.finish(errorCode);
  }

  private list(group: GroupWaiters, held: Held, partitions: readonly ShareTopicPartition[]): void {
    const keys = [...new Set(partitions.map(({ topic, partition }) => partitionKey(topic, partition)))];
    for (const key of keys) {
      let waiting = group.byPartition.get(key);
      if (!waiting) group.byPartition.set(key, (waiting = new Set()));
      waiting.add(held);
    }
    held.keys = keys;
  }

  private unlist(group: GroupWaiters, held: Held): void {
    for (const key of held.keys) {
      const waiting = group.byPartition.get(key);
      if (!waiting?.delete(held)) continue;
      if (waiting.size === 0) group.byPartition.delete(key);
    }
    held.keys = [];
  }

  private remove(held: Held): boolean {
    const { groupId, memberId } = held.waiter;
    const group = this.byGroup.get(groupId);
    if (group?.byMember.get(memberId) !== held) return false;
    group.byMember.delete(memberId);
    this.count--;
    this.unlist(group, held);
    if (group.byMember.size === 0) this.byGroup.delete(groupId);
    return true;
  }
}
