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

  // assignRemainingPartitions
  let next = 0;
  for (let u = 0; u < unfilled.length; u++) {
    const m = unfilled[u];
    const shape = (shapes[m] ??= new AssignmentShape(members[m].owned));
    const quota = unfilledQuota[u];
    for (let i = 0; i < quota && next < unassignedPartitions.length; i++, next++)
      shape.add(unassignedTopics[next], unassignedPartitions[next], undefined);
  }
  if (next < unassignedPartitions.length) throw new Error('uniform assignor: partitions were left unassigned');

  return members.map((member, m) => {
    const shape = shapes[m];
    if (shape === null) return { entries: member.owned, changed: false };
    const entries = shape.entries(topics);
    return sameEntries(entries, member.owned) ? { entries: member.owned, changed: false } : { entries, changed: true };
  });
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
