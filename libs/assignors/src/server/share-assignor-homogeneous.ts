/**
 * Kafka's `SimpleHomogeneousAssignmentBuilder` (group-coordinator, KIP-932's share assignor), step for
 * step: every member subscribes to the same topics; each partition goes to ceil(M/P) members, each
 * member gets its share of the partition slots, balance before stickiness. The Java collections it
 * walks keep Java's order (share-assignor-java-collections.ts), so the same input gives Kafka's result.
 */
import type { GroupModel } from './group-model';
import { topicIdsInJavaOrder } from './group-model';
import {
  integerHash,
  JavaMap,
  JavaSet,
  kafkaCapacityFor,
  RestartableIterator,
} from './share-assignor-java-collections';
import { assignFromEmpty } from './share-assignor-from-empty';
import { type MemberTopics, desiredCounts, ownedOf, type ShareAssignmentState } from './share-assignor-state';

/** A topic-partition as one number: topic index in the high part, partition in the low 32 bits. */
const TOPIC_SHIFT = 2 ** 32;
const code = (topic: number, partition: number): number => topic * TOPIC_SHIFT + partition;
const topicOf = (tp: number): number => Math.floor(tp / TOPIC_SHIFT);
const partitionOf = (tp: number): number => tp % TOPIC_SHIFT;

export function buildHomogeneous(model: GroupModel): ShareAssignmentState {
  const numMembers = model.members.length;
  const state: ShareAssignmentState = { old: model.members.map(ownedOf), next: new Map() };
  const subscribed = topicIdsInJavaOrder(model.members[0], model.table);
  if (subscribed.length === 0) return { old: model.members.map(() => new Map()), next: new Map() };
  const subscribedSet = new Set(subscribed);
  // `TopicIdPartition.hashCode()` of a record: 31 * topicId.hashCode() + partitionId.
  const tpHash = (tp: number): number => (Math.imul(31, model.topics[topicOf(tp)].idHash) + partitionOf(tp)) | 0;

  const targets: number[] = [];
  for (const topic of subscribed) for (let p = 0; p < model.topics[topic].partitions; p++) targets.push(code(topic, p));
  const numTargets = targets.length;
  const desiredSharing = numTargets === 0 ? 0 : Math.floor((numMembers + numTargets - 1) / numTargets);
  const desired = desiredCounts(desiredSharing, numTargets, numMembers);
  if (model.members.every((member) => member.owned.length === 0)) {
    const hashes = Int32Array.from(targets, tpHash);
    const topics = Int32Array.from(targets, topicOf);
    return assignFromEmpty(
      numMembers,
      { topics, partitions: Int32Array.from(targets, partitionOf), hashes },
      desiredSharing,
      desired,
    );
  }

  const byPartition = new JavaMap<JavaSet>(tpHash, kafkaCapacityFor(numTargets));
  const byMember = new JavaMap<JavaSet>(integerHash, kafkaCapacityFor(numMembers));
  const unfilled = new JavaSet(integerHash, kafkaCapacityFor(numMembers));
  const overfilled = new JavaSet(integerHash, kafkaCapacityFor(numMembers));
  const copyOf = (m: number): MemberTopics => {
    let copy = state.next.get(m);
    if (!copy) {
      copy = new Map([...state.old[m]].map(([topic, set]) => [topic, new Set(set)]));
      state.next.set(m, copy);
    }
    return copy;
  };

  // revokeUnassignablePartitions
  model.members.forEach((member, m) => {
    let count = 0;
    for (const { topic, partitions } of member.owned) {
      if (subscribedSet.has(topic)) {
        for (const p of partitions) {
          const tp = code(topic, p);
          count++;
          byPartition.computeIfAbsent(tp, () => new JavaSet(integerHash)).add(m);
          byMember.computeIfAbsent(m, () => new JavaSet(tpHash)).add(tp);
          if (count >= desired[m]) copyOf(m);
        }
      } else copyOf(m).delete(topic);
    }
    if (count < desired[m]) unfilled.add(m);
    else if (count > desired[m]) overfilled.add(m);
  });

  // revokeOverfilledMembers
  for (const m of overfilled.keys()) {
    const assigned = byMember.get(m)!;
    if (assigned.size <= desired[m]) continue;
    for (const tp of assigned.keys()) {
      copyOf(m).get(topicOf(tp))!.delete(partitionOf(tp));
      byPartition.get(tp)!.delete(m);
      assigned.delete(tp);
      if (assigned.size === desired[m]) break;
    }
  }

  // revokeOversharedPartitions
  for (const [tp, members] of byPartition.entries()) {
    let count = members.size;
    if (count <= desiredSharing) continue;
    for (const m of members.keys()) {
      const partitions = copyOf(m).get(topicOf(tp));
      if (partitions && partitions.delete(partitionOf(tp))) {
        count--;
        members.delete(m);
        byMember.get(m)!.delete(tp);
        unfilled.add(m);
      }
      if (count <= desiredSharing) break;
    }
  }

  for (const tp of targets) byPartition.computeIfAbsent(tp, () => new JavaSet(integerHash));

  // assignRemainingPartitions
  if (unfilled.size === 0) return state;
  const iterator = new RestartableIterator(unfilled);
  let assignedThisRound = false;
  for (const [tp, members] of byPartition.entries()) {
    if (members.size < desiredSharing) {
      let toMake = desiredSharing - members.size;
      while (toMake > 0) {
        if (!iterator.hasNext()) {
          if (!assignedThisRound) break;
          iterator.restart();
          assignedThisRound = false;
          // Kafka calls next() on the fresh iterator without asking again, which throws when the
          // last unfilled member was just filled; here the partition keeps the sharing it got.
          if (!iterator.hasNext()) break;
        }
        const m = iterator.next();
        if (members.has(m)) continue;
        const assignment = copyOf(m);
        let partitions = assignment.get(topicOf(tp));
        if (!partitions) assignment.set(topicOf(tp), (partitions = new Set()));
        partitions.add(partitionOf(tp));
        const mine = byMember.computeIfAbsent(m, () => new JavaSet(tpHash));
        mine.add(tp);
        toMake--;
        assignedThisRound = true;
        if (mine.size >= desired[m]) unfilled.delete(m);
      }
    }
    if (unfilled.size === 0) break;
  }
  return state;
}
