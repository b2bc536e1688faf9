/** One lease a worker was given: the offset is its own from when the acquire was sent until its lock ends. */
interface Hold {
  member: string;
  /** The coordinator node that granted it: a new coordinator loads leases as available again (KIP-932). */
  grantedBy: number;
  /** The lock surely lasts at least this long: the acquire's send time plus the lock duration. */
  until: number;
}

/**
 * KIP-932's invariants as share-group workers see them (docs/guarantees.md, share groups), checked on every
 * answer they get:
 * - an offset is leased to one member at a time: a lease of an offset that another member surely still
 *   holds — granted by the same coordinator incarnation, its lock not yet over, not acknowledged or
 *   released by it — is a violation (a failover frees every lease, as Kafka's share-partition leader
 *   does on load; the old holder's acknowledgement must then be refused or harmless);
 * - nothing acknowledged (ACCEPT answered NONE) is ever leased again, failover included;
 * - an offset's delivery count strictly increases from lease to lease, failover included;
 * - the offsets surely held at once in a partition never exceed its in-flight window
 *   (GROUP_SHARE_PARTITION_MAX_RECORD_LOCKS).
 */
export class ShareLedger {
  private readonly holds = new Map<string, Hold>();
  private readonly accepted = new Map<string, string>();
  private readonly deliveries = new Map<string, number>();
  readonly violations: string[] = [];
  readonly stats = { leased: 0, accepted: 0, released: 0, rejected: 0, redeliveries: 0 };

  constructor(
    private readonly now: () => number,
    private readonly lockMs: number,
    private readonly window: number,
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
      const acceptedBy = this.accepted.get(key);
      if (acceptedBy) this.violate(`${key} leased to ${member} after ${acceptedBy} acknowledged it`);
      const held = this.holds.get(key);
      if (held && held.member !== member && held.grantedBy === node && held.until > now)
        this.violate(`${key} leased to ${member} while ${held.member} held it until ${held.until - now} ms from now`);
      const previous = this.deliveries.get(key) ?? 0;
      if (deliveryCount <= previous)
        this.violate(`${key} leased with delivery count ${deliveryCount} after ${previous}`);
      if (previous > 0) this.stats.redeliveries++;
      this.deliveries.set(key, Math.max(previous, deliveryCount));
      this.holds.set(key, { member, grantedBy: node, until: sentAt + this.lockMs });
    }
    this.checkWindow(tp, node, now);
  }

  /** `member` is about to send an acknowledgement of `first`–`last`: from now on it no longer holds them. */
  letGo(member: string, tp: string, first: number, last: number): void {
    for (let offset = first; offset <= last; offset++) {
      const key = `${tp}@${offset}`;
      if (this.holds.get(key)?.member === member) this.holds.delete(key);
    }
  }

  /** An acknowledgement of `type` (1 ACCEPT, 2 RELEASE, 3 REJECT) was answered NONE. */
  acknowledged(member: string, tp: string, first: number, last: number, type: number): void {
    for (let offset = first; offset <= last; offset++) {
      const key = `${tp}@${offset}`;
      if (type !== 1) {
        if (type === 2) this.stats.released++;
        else this.stats.rejected++;
        continue;
      }
      this.stats.accepted++;
      // A late ACCEPT of an offset already done (below SPSO: another member's lease of it was accepted
      // after this one's lock ran out) is answered NONE and skipped, as Kafka's SharePartition does:
      // a share group delivers at least once, so two workers may both have processed it.
      if (!this.accepted.has(key)) this.accepted.set(key, member);
    }
  }

  private checkWindow(tp: string, node: number, now: number): void {
    let held = 0;
    for (const [key, hold] of this.holds)
      if (key.startsWith(`${tp}@`) && hold.grantedBy === node && hold.until > now) held++;
    if (held > this.window) this.violate(`${tp}: ${held} offsets held at once, beyond the window of ${this.window}`);
  }
}
