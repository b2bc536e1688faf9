/** One lease a worker was given: the offset is its own from when the acquire was sent until its lock ends. */
export interface Hold {
  member: string;
  /** The coordinator node that granted it: a new coordinator loads leases as available again (KIP-932). */
  grantedBy: number;
  /** The lock surely lasts at least this long: the acquire's send time plus the lock duration. */
  until: number;
  /** When the acquire was sent. */
  since: number;
}

/**
 * What one acknowledgement let go: the offsets its member surely still held when it was sent (offset key →
 * the hold). Only that acknowledgement's answer may count them as acknowledged: a refused one vouches for
 * nothing, not for a later acknowledgement of the same offsets, sent when the lock may be over.
 */
export type LetGo = ReadonlyMap<string, Hold>;

/** How long before its lock surely ends an acknowledgement still surely reaches the offsets it holds. */
const ACK_MARGIN_MS = 300;

/**
 * KIP-932's invariants as share-group workers see them (docs/guarantees.md, share groups), checked on every
 * answer they get:
 * - an offset is leased to one member at a time: a lease of an offset that another member surely still
 *   holds — granted by the same coordinator incarnation, its lock not yet over, not acknowledged or
 *   released by it, the member not fenced there — is a violation (a failover frees every lease, as Kafka's share-partition leader
 *   does on load; the old holder's acknowledgement must then be refused or harmless);
 * - nothing acknowledged (ACCEPT answered NONE) is ever leased again, failover included;
 * - an offset's delivery count strictly increases from lease to lease, failover included;
 * - the offsets surely held at once in a partition never exceed its in-flight window
 *   (GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS);
 * - a group deleted (DeleteGroups) and created again under the same id is a new group: what the old one
 *   acknowledged may be leased again and delivery counts start over, but only from the deletion on; the
 *   first lease of an offset after it counts at most one more than the leases that may have gone unseen
 *   since (the old group's counts are gone with its state), and one more again once a coordinator other
 *   than the one leasing served the new group: a coordinator that loads a share partition's state finds
 *   the offsets under the last record's delivery horizon counted delivered once, leased or not (SPEC: a
 *   count never goes down, and may be one higher for an offset never leased). What a refused deletion
 *   left is kept.
 */
export class ShareLedger {
  private readonly holds = new Map<string, Hold>();
  private readonly accepted = new Map<string, { member: string; at: number }>();
  private readonly deliveries = new Map<string, { count: number; at: number }>();
  /**
   * Offsets that may be dead letters (a REJECT of them was sent, or they were leased on their last
   * delivery), with when that was noted.
   */
  private readonly maybeDead = new Map<string, number>();
  /**
   * Acquires sent, answered at all, and answered NONE (their leases seen). One without a NONE answer may
   * still have leased offsets (its write reached a follower that became leader; the answer was lost or
   * the deposed leader said NOT_COORDINATOR): unseen, one delivery further, possibly their last.
   */
  private readonly acquires = { sent: 0, answered: 0, none: 0 };
  /** Per offset, at its last seen lease: acquires still pending then, less those sent and answered NONE before. */
  private readonly unseenBase = new Map<string, number>();
  /** Dead letters an operator asked to redeliver: their next lease counts from one again. */
  private readonly revived = new Map<string, number>();
  /**
   * Since the group was surely deleted and created again: the acquires pending at the deletion, less
   * those answered NONE before (as `unseenBase`), for offsets not leased since. Unset while no deletion
   * surely happened (or one may have, unseen): a first lease is then not bounded.
   */
  private freshBase: number | undefined;
  /** When the group was surely deleted (the new group's life began), while `freshBase` is set. */
  private freshSince = 0;
  /** Per coordinator incarnation (a lease's grantor), when an acquire was last sent to it. */
  private readonly lastAcquireTo = new Map<number, number>();
  readonly violations: string[] = [];
  readonly stats = { leased: 0, accepted: 0, released: 0, rejected: 0, redeliveries: 0, lateAccepts: 0, deletions: 0 };

  constructor(
    private readonly now: () => number,
    private readonly lockMs: number,
    private readonly window: number,
    private readonly deliveryLimit: number,
  ) {}

  private violate(finding: string): void {
    if (!this.violations.includes(finding) && this.violations.length < 50) this.violations.push(finding);
  }

  /** `member`'s acquire sent at `sentAt` to `node` was answered with a lease of `first`–`last`. */
  leased(
    member: string,
    node: number,
    sentAt: number,
    tp: string,
    first: number,
    last: number,
    deliveryCount: number,
  ): void {
    const now = this.now();
    for (let offset = first; offset <= last; offset++) {
      const key = `${tp}@${offset}`;
      this.stats.leased++;
      const acceptedBy = this.accepted.get(key)?.member;
      if (acceptedBy) this.violate(`${key} leased to ${member} after ${acceptedBy} acknowledged it`);
      const held = this.holds.get(key);
      if (held && held.member !== member && held.grantedBy === node && held.until > now)
        this.violate(`${key} leased to ${member} while ${held.member} held it until ${held.until - now} ms from now`);
      // A redelivered dead letter starts counting again (the one way a delivery count goes down).
      const seen = this.deliveries.get(key);
      const previous = this.revived.delete(key) ? 0 : (seen?.count ?? 0);
      if (deliveryCount >= this.deliveryLimit) this.maybeDead.set(key, now);
      if (deliveryCount <= previous)
        this.violate(`${key} leased with delivery count ${deliveryCount} after ${previous}`);
      // The first lease since the group was created again: a new group's count starts over.
      if (!seen && this.freshBase !== undefined) {
        const unseen = this.freshBase + this.acquires.sent - this.acquires.none;
        const horizon = this.servedByAnother(node, this.freshSince) ? 1 : 0;
        if (deliveryCount > 1 + unseen + horizon)
          this.violate(
            `${key} leased with delivery count ${deliveryCount} as the first lease of the group created again (at most ${unseen} unseen leases before${horizon > 0 ? ', and one counted by a delivery horizon' : ''})`,
          );
      }
      if (previous > 0) this.stats.redeliveries++;
      this.deliveries.set(key, { count: deliveryCount, at: now });
      this.unseenBase.set(key, this.acquires.none - this.acquires.answered);
      this.holds.set(key, { member, grantedBy: node, until: sentAt + this.lockMs, since: sentAt });
    }
    this.checkWindow(tp, node, now);
  }

  /**
   * `member` is about to send an acknowledgement of `first`–`last`: from now on it no longer holds them.
   * Those it surely still holds (its lock not over, from the coordinator that leads now) are returned: only
   * for them does an ACCEPT answered NONE mean the coordinator acknowledged them (`acknowledged`).
   */
  letGo(member: string, tp: string, first: number, last: number, node: number): LetGo {
    const now = this.now();
    const surelyHeld = new Map<string, Hold>();
    for (let offset = first; offset <= last; offset++) {
      const key = `${tp}@${offset}`;
      const held = this.holds.get(key);
      if (held?.member !== member) continue;
      this.holds.delete(key);
      // With a margin for the acknowledgement's way there: a lock that ends on the way may let another
      // member's lease finish the offset first, and the ACCEPT is then skipped.
      if (held.grantedBy === node && held.until > now + ACK_MARGIN_MS) surelyHeld.set(key, held);
    }
    return surelyHeld;
  }

  /**
   * A REJECT of `first`–`last` is about to be sent: from now on they may be dead letters, whatever its
   * answer (one lost to a crash, or a timeout, may still have committed).
   */
  rejecting(tp: string, first: number, last: number): void {
    for (let offset = first; offset <= last; offset++) this.maybeDead.set(`${tp}@${offset}`, this.now());
  }

  /** `node` no longer has `member` in the group (fenced or gone): the leases it granted the member are over. */
  memberGone(member: string, node: number): void {
    for (const [key, hold] of this.holds) if (hold.member === member && hold.grantedBy === node) this.holds.delete(key);
  }

  /**
   * An acknowledgement of `type` (1 ACCEPT, 2 RELEASE, 3 REJECT) was answered NONE by `node`; `letGo` is
   * what `letGo` returned when it was sent. An ACCEPT of offsets the member may no longer have held is
   * not counted: they may have been below SPSO, done by another member's lease (accepted, or rejected and
   * dead-lettered) or archived when the lock ran out on the last delivery, and such an ACCEPT is skipped,
   * as Kafka's SharePartition does (a share group delivers at least once).
   */
  acknowledged(
    member: string,
    tp: string,
    first: number,
    last: number,
    type: number,
    node: number,
    letGo: LetGo,
  ): void {
    for (let offset = first; offset <= last; offset++) {
      const key = `${tp}@${offset}`;
      const held = letGo.get(key);
      const sure = held?.member === member && held.grantedBy === node;
      if (type !== 1) {
        if (type === 2) this.stats.released++;
        else this.stats.rejected++;
        continue;
      }
      this.stats.accepted++;
      if (!sure) this.stats.lateAccepts++;
      else if (!this.accepted.has(key)) this.accepted.set(key, { member, at: this.now() });
    }
  }

  /** An acquire is about to be sent to the coordinator `grantor` (leader and leader epoch). */
  acquireSent(grantor: number): void {
    this.acquires.sent++;
    this.lastAcquireTo.set(grantor, this.now());
  }

  /**
   * Whether a coordinator other than `grantor` was sent an acquire since `since`: only an acquire makes a
   * share partition's state and moves its delivery horizon, so only then can `grantor` have loaded a
   * horizon of the group's present life that another coordinator wrote.
   */
  private servedByAnother(grantor: number, since: number): boolean {
    for (const [other, at] of this.lastAcquireTo) if (other !== grantor && at >= since) return true;
    return false;
  }

  /** An acquire was answered (before its leases are noted), NONE or not. */
  acquireAnswered(none: boolean): void {
    this.acquires.answered++;
    if (none) this.acquires.none++;
  }

  /**
   * How many leases of `key` may have gone unseen since its last seen lease: the acquires pending then
   * or sent since, less those answered NONE since (their leases were seen).
   */
  private unseenLeases(key: string): number {
    return (this.unseenBase.get(key) ?? 0) + this.acquires.sent - this.acquires.none;
  }

  /** An operator is about to ask for the dead letters of `tp` in `first`–`last` to be delivered again. */
  redeliverySent(tp: string, first: number, last: number): void {
    // Offsets whose unseen leases may have reached the delivery limit may be dead letters too.
    const now = this.now();
    for (const [key, { count }] of this.deliveries)
      if (count + this.unseenLeases(key) >= this.deliveryLimit) this.maybeDead.set(key, now);
    for (const key of this.maybeDead.keys()) {
      const offset = Number(key.slice(key.lastIndexOf('@') + 1));
      if (key.startsWith(`${tp}@`) && offset >= first && offset <= last) {
        this.maybeDead.delete(key);
        this.revived.set(key, now);
      }
    }
  }

  /**
   * An operator's DeleteGroups of the group sent at `at` surely took effect then (`exact`), or may have
   * (its answer was lost): what was noted before it belonged to the old group, whose state went with it.
   * Only after a sure deletion is the first lease of an offset bounded (a new group counts from zero);
   * after a possible one the old group may go on, its counts too.
   */
  groupDeleted(at: number, exact: boolean): void {
    const before = (noted: number): boolean => noted <= at;
    for (const [key, hold] of this.holds) if (before(hold.since)) this.holds.delete(key);
    for (const [key, { at: noted }] of this.accepted) if (before(noted)) this.accepted.delete(key);
    for (const [key, { at: noted }] of this.deliveries)
      if (before(noted)) {
        this.deliveries.delete(key);
        this.unseenBase.delete(key);
      }
    for (const [key, noted] of this.maybeDead) if (before(noted)) this.maybeDead.delete(key);
    for (const [key, noted] of this.revived) if (before(noted)) this.revived.delete(key);
    this.freshBase = exact ? this.acquires.none - this.acquires.answered : undefined;
    this.freshSince = at;
    this.stats.deletions++;
  }

  private checkWindow(tp: string, node: number, now: number): void {
    let held = 0;
    for (const [key, hold] of this.holds)
      if (key.startsWith(`${tp}@`) && hold.grantedBy === node && hold.until > now) held++;
    if (held > this.window) this.violate(`${tp}: ${held} offsets held at once, beyond the window of ${this.window}`);
  }
}
