/**
 * Kafka's `UniformHomogeneousAssignmentBuilder`: every member subscribes to the same topics. Each member
 * gets `partitions / members` partitions, the first `partitions % members` members in member-map order
 * one more; a member keeps what it owns up to that quota (walking its current target in Java's order)
 * and gives up the rest, and the partitions nobody keeps are dealt, in the order of the subscribed
 * topic set then partition number, to the members still under quota, in member order.
 */
import { AssignmentShape } from './assignment-shape';
import type { GroupModel, OwnedTopic } from './group-model';

/** A member's result: its entries in Java's order, and whether they differ from its current target. */
export interface MemberResult {
  entries: OwnedTopic[];
  changed: boolean;
}

/**
 * `topicOrder`: the subscribed topics as Kafka's `HashSet<Uuid>` of the first member's subscription
 * iterates them (topics that exist only).
 */
export function assignHomogeneous(model: GroupModel, topicOrder: readonly number[]): MemberResult[] {
  const { members, topics } = model;
  const subscribed = new Uint8Array(topics.length);
  for (const t of topicOrder) subscribed[t] = 1;

  // isPartitionAssigned: held by any member's current target.
  const assigned = topics.map((topic, t) => (subscribed[t] ? new Uint8Array(topic.partitions) : null));
  for (const member of members)
    for (const { topic, partitions } of member.owned) {
      const flags = assigned[topic];
      if (flags) for (const p of partitions) flags[p] = 1;
    }

  // Unassigned partitions as (topic, partition) pairs, in Kafka's order.
  const unassignedTopics: number[] = [];
  const unassignedPartitions: number[] = [];
  let total = 0;
  for (const t of topicOrder) {
    const count = topics[t].partitions;
    const flags = assigned[t] as Uint8Array;
    for (let p = 0; p < count; p++)
      if (flags[p] === 0) {
        unassignedTopics.push(t);
        unassignedPartitions.push(p);
      }
    total += count;
  }

  const minQuota = Math.floor(total / members.length);
  let extra = total % members.length;
  const shapes: (AssignmentShape | null)[] = new Array(members.length).fill(null);
  const unfilled: number[] = [];
  const unfilledQuota: number[] = [];

  // maybeRevokePartitions
  for (let m = 0; m < members.length; m++) {
    let quota = minQuota;
    if (extra > 0) {
      quota++;
      extra--;
    }
    for (const { topic, partitions } of members[m].owned) {
      if (subscribed[topic]) {
        if (partitions.length <= quota) {
          quota -= partitions.length;
        } else {
          for (const p of partitions) {
            if (quota > 0) {
              quota--;
            } else {
              const shape = (shapes[m] ??= new AssignmentShape(members[m].owned));
              shape.remove(topic, p);
              unassignedTopics.push(topic);
              unassignedPartitions.push(p);
            }
          }
        }
      } else {
        (shapes[m] ??= new AssignmentShape(members[m].owned)).removeTopic(topic);
      }
    }
    if (quota > 0) {
      unfilled.push(m);
      unfilledQuota.push(quota);
    }
  }

  // assignRemainingPartitions. A member that owned nothing takes a slice of the unassigned list,
  // kept as [start, end) and read out at the end (freshSlice) instead of logged partition by partition.
  let next = 0;
  const sliceStart = new Int32Array(members.length).fill(-1);
  const sliceEnd = new Int32Array(members.length);
  for (let u = 0; u < unfilled.length; u++) {
    const m = unfilled[u];
    const quota = unfilledQuota[u];
    const end = Math.min(next + quota, unassignedPartitions.length);
    if (shapes[m] === null && members[m].owned.length === 0) {
      sliceStart[m] = next;
      sliceEnd[m] = end;
      next = end;
      continue;
    }
    const shape = (shapes[m] ??= new AssignmentShape(members[m].owned));
    for (; next < end; next++) shape.add(unassignedTopics[next], unassignedPartitions[next], undefined);
  }
  if (next < unassignedPartitions.length) throw new Error('uniform assignor: partitions were left unassigned');

  return members.map((member, m) => {
    if (sliceStart[m] >= 0) {
      const fresh = freshSlice(unassignedTopics, unassignedPartitions, sliceStart[m], sliceEnd[m]);
      if (fresh !== null) return { entries: fresh, changed: fresh.length > 0 };
      const shape = new AssignmentShape(member.owned);
      for (let i = sliceStart[m]; i < sliceEnd[m]; i++)
        shape.add(unassignedTopics[i], unassignedPartitions[i], undefined);
      return { entries: shape.entries(topics), changed: sliceEnd[m] > sliceStart[m] };
    }
    const shape = shapes[m];
    if (shape === null) return { entries: member.owned, changed: false };
    const entries = shape.entries(topics);
    return sameEntries(entries, member.owned) ? { entries: member.owned, changed: false } : { entries, changed: true };
  });
}

/**
 * The target of a member that owned nothing and took [start, end) of the unassigned list, when that
 * is one topic's ascending run spanning fewer than 16 partitions (a `new HashSet<>()` then gives each
 * its own bucket: Java's order is the run rotated where the bucket index wraps); null otherwise.
 */
function freshSlice(topicOf: number[], partitionOf: number[], start: number, end: number): OwnedTopic[] | null {
  if (start === end) return [];
  const topic = topicOf[start];
  const n = end - start;
  const low = partitionOf[start];
  const high = partitionOf[end - 1];
  if (topicOf[end - 1] !== topic || high - low >= 16 || high >= 65_536) return null;
  for (let i = start + 1; i < end; i++) if (topicOf[i] !== topic || partitionOf[i] <= partitionOf[i - 1]) return null;
  // A default HashSet has 16 buckets up to 12 entries, 32 beyond (n < 16 here).
  const mask = n > 12 ? 31 : 15;
  let wrap = 0;
  for (let i = 1; i < n && wrap === 0; i++)
    if ((partitionOf[start + i] & mask) < (partitionOf[start + i - 1] & mask)) wrap = i;
  const partitions = new Array<number>(n);
  for (let k = 0; k < n; k++) partitions[k] = partitionOf[start + ((wrap + k) % n)];
  return [{ topic, partitions }];
}

/** The same partitions (as sets), whatever the order. */
export function sameEntries(a: readonly OwnedTopic[], b: readonly OwnedTopic[]): boolean {
  if (a.length !== b.length) return false;
  const byTopic = new Map<number, number[]>();
  for (const entry of b) byTopic.set(entry.topic, entry.partitions);
  for (const { topic, partitions } of a) {
    const other = byTopic.get(topic);
    if (other === undefined || other.length !== partitions.length) return false;
    const set = new Set(other);
    for (const p of partitions) if (!set.has(p)) return false;
  }
  return true;
}
