/**
 * The sticky algorithm for identical subscriptions (AbstractStickyAssignor.ConstrainedAssignmentBuilder,
 * KAFKA-9987 and later). Every member ends with minQuota or maxQuota partitions, and
 * exactly N mod M of them with maxQuota. Members keep owned partitions up to their quota (in
 * (partition, topic) order, so a member giving some up keeps a mix of topics, KAFKA-16277), then the
 * rest is dealt round-robin to members in member-id order. Partitions that change owner are recorded
 * so the cooperative assignor can hold them back for one round.
 */
import { memberIdRanks } from '../common/member-order';
import { topicOfPartitions, type GroupInput } from '../common/group-input';
import type { OwnedPartitions } from './owned-partitions';
import type { StickyRackInfo } from './sticky-rack-info';

export interface StickyResult {
  /** Partition id → member index; -1 for partitions no member takes. */
  owner: Int32Array;
  /** Partitions moving to a new owner (partition id → new owner); null on the general path, as in Kafka. */
  transferring: Map<number, number> | null;
}

export function constrainedAssign(input: GroupInput, prep: OwnedPartitions, rack: StickyRackInfo): StickyResult {
  const builder = new ConstrainedBuilder(input, prep.multiplyClaimed);
  builder.keepAllOwned(prep, rack);
  let unassigned = builder.unassigned();
  const rank = memberIdRanks(input.members);
  builder.underMin.sort((a, b) => rank[a] - rank[b]);
  builder.exactMin.sort((a, b) => rank[a] - rank[b]);
  if (rack.enabled) unassigned = builder.dealByRack(rack, unassigned);
  if (unassigned !== null || !builder.dealFresh()) builder.dealRoundRobin(unassigned);
  return { owner: builder.owner, transferring: builder.transferring };
}

/**
 * The state of one constrained assignment, phase by phase (Kafka's ConstrainedAssignmentBuilder).
 * Each phase is a method of its own rather than one long function with closures: the JIT compiles
 * small methods sooner and faster, which is most of a process's first rebalance, and a phase that a
 * fresh group never reaches (keeping owned partitions) does not throw away the others' compiled code
 * when a rejoining group first reaches it.
 */
class ConstrainedBuilder {
  readonly owner: Int32Array;
  readonly count: Int32Array;
  readonly transferring = new Map<number, number>();
  /** Members under minQuota, then (sorted by member id) the ring the round-robin deals to. */
  underMin: number[] = [];
  /** Members at minQuota that may take one more (while fewer than N mod M members have maxQuota). */
  exactMin: number[] = [];
  overMin = 0;
  private readonly total: number;
  private readonly minQuota: number;
  private readonly maxQuota: number;
  private readonly expectedOverMin: number;
  /** Who last owned each partition that moves; allocated only when an owned partition is given up. */
  private maybeRevoked: Int32Array | null = null;
  private topicOf: Int32Array | null = null;
  /** Sort keys of one member's partitions, reused from member to member (grown when one owns more). */
  private keys = new Float64Array(0);

  constructor(
    private readonly input: GroupInput,
    private readonly multiplyClaimed: Uint8Array | null,
  ) {
    const total = input.topics.total;
    const memberCount = input.members.length;
    this.total = total;
    this.minQuota = Math.floor(total / memberCount);
    this.maxQuota = Math.ceil(total / memberCount);
    this.expectedOverMin = total % memberCount;
    this.owner = new Int32Array(total).fill(-1);
    this.count = new Int32Array(memberCount);
  }

  private markRevoked(id: number, m: number): void {
    (this.maybeRevoked ??= new Int32Array(this.total).fill(-1))[id] = m;
  }

  /** Every member, in Java's HashMap order, keeps what it may of what it owns, up to its quota. */
  keepAllOwned(prep: OwnedPartitions, rack: StickyRackInfo): void {
    const { hashOrder, owned } = prep;
    const mayDrop = rack.enabled || this.multiplyClaimed !== null;
    for (let k = 0; k < hashOrder.length; k++) {
      const m = hashOrder[k];
      // A member that owns nothing (every member of a fresh group) is under a non-zero minQuota.
      if (owned[m].length === 0 && this.minQuota > 0) this.underMin.push(m);
      else this.keepOwned(m, mayDrop ? this.keepable(m, owned[m], rack) : owned[m]);
    }
  }

  /** The owned partitions member m may keep: all of them unless racks or equal-generation claims rule some out. */
  private keepable(m: number, owned: number[], rack: StickyRackInfo): number[] {
    const multiplyClaimed = this.multiplyClaimed;
    if (!rack.enabled && multiplyClaimed === null) return owned; // nothing to drop: this call's own list, kept as it is
    const own: number[] = [];
    for (let i = 0; i < owned.length; i++) {
      const id = owned[i];
      if (rack.racksMismatch(m, id)) this.markRevoked(id, m);
      else if (multiplyClaimed === null || multiplyClaimed[id] === 0) own.push(id);
    }
    return own;
  }

  /** Member m keeps what it may of `own`, up to its quota; the rest is revoked. */
  private keepOwned(m: number, own: number[]): void {
    const { minQuota, maxQuota } = this;
    // The order decides only which partitions a member over its quota gives up: a member keeping
    // everything it owns (a group rejoining as it was) needs no sort.
    let kept: number;
    if (own.length < minQuota) {
      kept = own.length;
      this.underMin.push(m);
    } else if (own.length >= maxQuota && this.overMin < this.expectedOverMin) {
      this.overMin++;
      if (this.overMin === this.expectedOverMin) this.exactMin = [];
      kept = maxQuota;
    } else {
      kept = minQuota;
      if (this.overMin < this.expectedOverMin) this.exactMin.push(m);
    }
    if (own.length > kept) this.sortByPartitionThenTopic(own);
    const owner = this.owner;
    for (let i = 0; i < kept; i++) owner[own[i]] = m;
    this.count[m] += kept;
    for (let i = kept; i < own.length; i++) this.markRevoked(own[i], m);
  }

  /** Sorts partition ids by (partition, topic): keys partition * T + topic sort natively as numbers. */
  private sortByPartitionThenTopic(ids: number[]): void {
    const topics = this.input.topics;
    const topicCount = topics.names.length;
    const topicOfId = (this.topicOf ??= topicOfPartitions(topics));
    if (this.keys.length < ids.length) this.keys = new Float64Array(Math.max(ids.length, 2 * this.keys.length));
    const keys = this.keys;
    let inOrder = true;
    for (let i = 0; i < ids.length; i++) {
      keys[i] = (ids[i] - topics.base[topicOfId[ids[i]]]) * topicCount + topicOfId[ids[i]];
      if (i > 0 && keys[i] < keys[i - 1]) inOrder = false;
    }
    // A member that owns one partition of each topic lists them in this order already.
    if (inOrder) return;
    keys.subarray(0, ids.length).sort();
    for (let i = 0; i < ids.length; i++) {
      const t = keys[i] % topicCount;
      ids[i] = topics.base[t] + (keys[i] - t) / topicCount;
    }
  }

  /**
   * The unassigned partitions in id order; when nobody kept anything (a fresh group) that is every
   * id, and the list is not materialized (null).
   */
  unassigned(): ArrayLike<number> | null {
    const { owner, count, total } = this;
    let keptCount = 0;
    for (let m = 0; m < count.length; m++) keptCount += count[m];
    if (keptCount === 0) return null;
    let unassignedCount = 0;
    const unassignedIds = new Int32Array(total);
    if (keptCount > total >> 1) {
      // Few gaps (members rejoining with what they own): the built-in search skips the kept runs.
      for (let id = owner.indexOf(-1); id >= 0; id = owner.indexOf(-1, id + 1)) unassignedIds[unassignedCount++] = id;
    } else {
      for (let id = 0; id < total; id++) if (owner[id] < 0) unassignedIds[unassignedCount++] = id;
    }
    return unassignedIds.subarray(0, unassignedCount);
  }

  private assignNew(id: number, m: number): number {
    this.owner[id] = m;
    const assigned = ++this.count[m];
    const previous = this.maybeRevoked === null ? -1 : this.maybeRevoked[id];
    if ((previous >= 0 && previous !== m) || (this.multiplyClaimed !== null && this.multiplyClaimed[id] === 1))
      this.transferring.set(id, m);
    return assigned;
  }

  /** Rack-aware: each unassigned partition (fewest rack choices first) to a member on a replica's rack; returns the rest. */
  dealByRack(rack: StickyRackInfo, unassigned: ArrayLike<number> | null): number[] {
    const { count, minQuota, maxQuota, expectedOverMin } = this;
    const underMin = this.underMin;
    const sorted = rack.sortByRackConsumers(
      unassigned === null ? Array.from({ length: this.total }, (_, id) => id) : Array.from(unassigned),
    );
    let next = 0;
    const remaining: number[] = [];
    for (const id of sorted) {
      let consumer = -1;
      let index = rack.nextRackConsumer(id, underMin, next);
      if (index >= 0) {
        consumer = underMin[index];
        const assigned = count[consumer] + 1;
        if (assigned >= minQuota) {
          underMin.splice(index, 1);
          if (assigned < maxQuota && this.overMin < expectedOverMin) this.exactMin.push(consumer);
        } else {
          index++;
        }
        next = underMin.length === 0 ? 0 : index % underMin.length;
      } else if (this.exactMin.length > 0) {
        const first = rack.nextRackConsumer(id, this.exactMin, 0);
        if (first >= 0) {
          consumer = this.exactMin[first];
          if (count[consumer] + 1 === maxQuota) {
            this.exactMin.splice(first, 1);
            this.overMin++;
            if (this.overMin === expectedOverMin) this.exactMin = [];
          }
        }
      }
      if (consumer >= 0) this.assignNew(id, consumer);
      else remaining.push(id);
    }
    return remaining;
  }

  /**
   * dealRoundRobin for a group in which no member owns anything (a fresh group, or every member
   * rejoining empty-handed), called when nobody kept a partition: then every member is under a
   * non-zero minQuota, or, with fewer partitions than members, at minQuota 0 with room for one, and
   * their ring, in member-id order, stays as it is until each has minQuota. Partition id goes to the
   * ring's (id mod members)th member, the remainder after minQuota rounds one each to the ring's first
   * members, as dealRoundRobin's walk gives it, here written as one pass over the ring and copies of
   * it: on a process's first call a loop over every partition runs interpreted until the optimizing
   * compiler's code arrives, and the engine's own copy is done long before. Returns false, dealing
   * nothing, for any other group.
   */
  dealFresh(): boolean {
    const { owner, count, total, minQuota } = this;
    // Nobody gave up a partition nor claimed one twice, so none changes owner, and every member is
    // in the one ring.
    if (this.maybeRevoked !== null || this.multiplyClaimed !== null) return false;
    const ring = minQuota > 0 ? this.underMin : this.exactMin;
    const others = minQuota > 0 ? this.exactMin : this.underMin;
    if (ring.length !== count.length || others.length > 0 || total === 0) return false;
    const first = Math.min(ring.length, total);
    for (let k = 0; k < first; k++) owner[k] = ring[k];
    for (let dealt = first; dealt < total; dealt *= 2) owner.copyWithin(dealt, 0, Math.min(dealt, total - dealt));
    const overMin = total - minQuota * ring.length;
    for (let k = 0; k < ring.length; k++) count[ring[k]] = k < overMin ? minQuota + 1 : minQuota;
    this.overMin = overMin;
    return true;
  }

  /**
   * Round-robin over the members under minQuota (a Java LinkedList walked by an iterator that removes
   * members as they reach minQuota and restarts at the end), then one more each from those at minQuota.
   */
  dealRoundRobin(unassigned: ArrayLike<number> | null): void {
    const { minQuota, maxQuota } = this;
    const exactMin = this.exactMin;
    let round = this.underMin;
    let position = 0;
    let exactHead = 0;
    const removed = new Uint8Array(this.count.length);
    let underMinLeft = round.length;
    // The ring is rebuilt at its end only when someone left it during the pass (a fresh group deals
    // minQuota passes over an unchanged ring).
    let removedThisPass = false;
    const unassignedLength = unassigned === null ? this.total : unassigned.length;
    for (let u = 0; u < unassignedLength; u++) {
      const id = unassigned === null ? u : unassigned[u];
      let consumer: number;
      while (position < round.length && removed[round[position]] === 1) position++;
      if (position < round.length) {
        consumer = round[position++];
      } else if (underMinLeft === 0 && exactHead >= exactMin.length) {
        throw new Error('sticky assignor internal error: no more unfilled consumers to be assigned');
      } else if (underMinLeft === 0) {
        consumer = exactMin[exactHead++];
      } else {
        if (removedThisPass) round = round.filter((m) => removed[m] === 0);
        removedThisPass = false;
        position = 0;
        consumer = round[position++];
      }
      const assigned = this.assignNew(id, consumer);
      if (assigned === minQuota) {
        removed[consumer] = 1;
        removedThisPass = true;
        underMinLeft--;
        exactMin.push(consumer);
      } else if (assigned === maxQuota) {
        this.overMin++;
      }
    }
    const stillUnder = round.filter((m) => removed[m] === 0);
    if (stillUnder.length > 0) {
      if (this.overMin !== this.expectedOverMin)
        throw new Error('sticky assignor internal error: fewer members than expected reached maxQuota');
      for (const m of stillUnder)
        if (this.count[m] !== minQuota)
          throw new Error(`sticky assignor internal error: member ${this.input.members[m].memberId} is below minQuota`);
    }
  }
}
