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
  const { topics, members } = input;
  const total = topics.total;
  const memberCount = members.length;
  const minQuota = Math.floor(total / memberCount);
  const maxQuota = Math.ceil(total / memberCount);
  const expectedOverMin = total % memberCount;
  let overMin = 0;
  const owner = new Int32Array(total).fill(-1);
  const count = new Int32Array(memberCount);
  // Who last owned each partition that moves; allocated only when an owned partition is given up.
  let maybeRevoked: Int32Array | null = null;
  const markRevoked = (id: number, m: number): void => {
    (maybeRevoked ??= new Int32Array(total).fill(-1))[id] = m;
  };
  const multiplyClaimed = prep.multiplyClaimed;
  const transferring = new Map<number, number>();
  let underMin: number[] = [];
  let exactMin: number[] = [];

  let topicOf: Int32Array | null = null;
  const topicCount = topics.names.length;
  // Sort keys of one member's partitions, reused from member to member (grown when one owns more).
  let keys = new Float64Array(0);
  /** Sorts partition ids by (partition, topic): keys partition * T + topic sort natively as numbers. */
  const sortByPartitionThenTopic = (ids: number[]): void => {
    const topicOfId = (topicOf ??= topicOfPartitions(topics));
    if (keys.length < ids.length) keys = new Float64Array(Math.max(ids.length, 2 * keys.length));
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
  };
  const keep = (m: number, ids: number[], from: number, to: number): void => {
    for (let i = from; i < to; i++) owner[ids[i]] = m;
    count[m] += to - from;
  };
  const revoke = (m: number, ids: number[], from: number): void => {
    for (let i = from; i < ids.length; i++) markRevoked(ids[i], m);
  };

  for (let k = 0; k < prep.hashOrder.length; k++) {
    const m = prep.hashOrder[k];
    const owned = prep.owned[m];
    let own: number[];
    if (!rack.enabled && multiplyClaimed === null) {
      own = owned; // nothing to drop: this call's own list, kept as it is
    } else {
      own = [];
      for (let i = 0; i < owned.length; i++) {
        const id = owned[i];
        if (rack.racksMismatch(m, id)) markRevoked(id, m);
        else if (multiplyClaimed === null || multiplyClaimed[id] === 0) own.push(id);
      }
    }
    if (own.length > 1) sortByPartitionThenTopic(own);
    if (own.length < minQuota) {
      keep(m, own, 0, own.length);
      underMin.push(m);
    } else if (own.length >= maxQuota && overMin < expectedOverMin) {
      overMin++;
      if (overMin === expectedOverMin) exactMin = [];
      keep(m, own, 0, maxQuota);
      revoke(m, own, maxQuota);
    } else {
      keep(m, own, 0, minQuota);
      revoke(m, own, minQuota);
      if (overMin < expectedOverMin) exactMin.push(m);
    }
  }

  // The unassigned partitions in id order; when nobody kept anything (a fresh group) that is every id,
  // and the list is not materialized (null).
  let keptCount = 0;
  for (let m = 0; m < memberCount; m++) keptCount += count[m];
  let unassigned: ArrayLike<number> | null = null;
  if (keptCount > 0) {
    let unassignedCount = 0;
    const unassignedIds = new Int32Array(total);
    if (keptCount > total >> 1) {
      // Few gaps (members rejoining with what they own): the built-in search skips the kept runs.
      for (let id = owner.indexOf(-1); id >= 0; id = owner.indexOf(-1, id + 1)) unassignedIds[unassignedCount++] = id;
    } else {
      for (let id = 0; id < total; id++) if (owner[id] < 0) unassignedIds[unassignedCount++] = id;
    }
    unassigned = unassignedIds.subarray(0, unassignedCount);
  }
  const rank = memberIdRanks(members);
  underMin.sort((a, b) => rank[a] - rank[b]);
  exactMin.sort((a, b) => rank[a] - rank[b]);

  const assignNew = (id: number, m: number): number => {
    owner[id] = m;
    count[m]++;
    const previous = maybeRevoked === null ? -1 : maybeRevoked[id];
    if ((previous >= 0 && previous !== m) || (multiplyClaimed !== null && multiplyClaimed[id] === 1)) transferring.set(id, m);
    return count[m];
  };

  if (rack.enabled) {
    const sorted = rack.sortByRackConsumers(unassigned === null ? Array.from({ length: total }, (_, id) => id) : Array.from(unassigned));
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
          if (assigned < maxQuota && overMin < expectedOverMin) exactMin.push(consumer);
        } else {
          index++;
        }
        next = underMin.length === 0 ? 0 : index % underMin.length;
      } else if (exactMin.length > 0) {
        const first = rack.nextRackConsumer(id, exactMin, 0);
        if (first >= 0) {
          consumer = exactMin[first];
          if (count[consumer] + 1 === maxQuota) {
            exactMin.splice(first, 1);
            overMin++;
            if (overMin === expectedOverMin) exactMin = [];
          }
        }
      }
      if (consumer >= 0) assignNew(id, consumer);
      else remaining.push(id);
    }
    unassigned = remaining;
  }

  // Round-robin over the members under minQuota (a Java LinkedList walked by an iterator that removes
  // members as they reach minQuota and restarts at the end), then one more each from those at minQuota.
  let round = underMin;
  let position = 0;
  let exactHead = 0;
  const removed = new Uint8Array(memberCount);
  let underMinLeft = underMin.length;
  // The ring is rebuilt at its end only when someone left it during the pass (a fresh group deals
  // minQuota passes over an unchanged ring).
  let removedThisPass = false;
  const unassignedLength = unassigned === null ? total : unassigned.length;
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
    const assigned = assignNew(id, consumer);
    if (assigned === minQuota) {
      removed[consumer] = 1;
      removedThisPass = true;
      underMinLeft--;
      exactMin.push(consumer);
    } else if (assigned === maxQuota) {
      overMin++;
    }
  }
  underMin = round.filter((m) => removed[m] === 0);
  if (underMin.length > 0) {
    if (overMin !== expectedOverMin) throw new Error('sticky assignor internal error: fewer members than expected reached maxQuota');
    for (const m of underMin) if (count[m] !== minQuota) throw new Error(`sticky assignor internal error: member ${members[m].memberId} is below minQuota`);
  }
  return { owner, transferring };
}
