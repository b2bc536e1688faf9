/**
 * Kafka's `SimpleHeterogeneousAssignmentBuilder` (KIP-932's share assignor when members subscribe to
 * different topics), step for step: each topic is assigned on its own among the members subscribed to
 * it (its `TopicAssignmentPartialBuilder`), in the order Java iterates the group's topic id set.
 */
import type { GroupModel } from './group-model';
import { topicIdsInJavaOrder } from './group-model';
import { JavaHashTable } from './java-hash-table';
import {
  integerHash,
  JavaMap,
  JavaSet,
  kafkaCapacityFor,
  RestartableIterator,
} from './share-assignor-java-collections';
import { type MemberTopics, desiredCounts, ownedOf, type ShareAssignmentState } from './share-assignor-state';

export function buildHeterogeneous(model: GroupModel): ShareAssignmentState {
  const numMembers = model.members.length;
  const state: ShareAssignmentState = { old: model.members.map(ownedOf), next: new Map() };
  // `new HashSet<>()` filled with each member's topic ids in turn, and the members of each topic in member order.
  const topicTable = new JavaHashTable();
  const topicsByHandle: number[] = [];
  const subscribers = new Map<number, number[]>();
  model.members.forEach((member, m) => {
    for (const topic of topicIdsInJavaOrder(member, model.table)) {
      let list = subscribers.get(topic);
      if (!list) {
        subscribers.set(topic, (list = []));
        topicsByHandle[topicTable.insert(model.topics[topic].idHash)] = topic;
      }
      list.push(m);
    }
  });
  if (subscribers.size === 0) return { old: model.members.map(() => new Map()), next: new Map() };
  const copyOf = (m: number): MemberTopics => {
    let copy = state.next.get(m);
    if (!copy) {
      copy = new Map([...state.old[m]].map(([topic, set]) => [topic, new Set(set)]));
      state.next.set(m, copy);
    }
    return copy;
  };
  for (const handle of topicTable.order()) {
    const topic = topicsByHandle[handle];
    assignTopic(topic, model.topics[topic].partitions, subscribers.get(topic)!, numMembers, state, copyOf);
  }
  return state;
}

/** Kafka's `TopicAssignmentPartialBuilder.build` for one topic. */
function assignTopic(
  topic: number,
  numPartitions: number,
  subscribed: readonly number[],
  numMembers: number,
  state: ShareAssignmentState,
  copyOf: (m: number) => MemberTopics,
): void {
  const byPartition = new JavaMap<JavaSet>(integerHash, kafkaCapacityFor(numPartitions));
  const byMember = new JavaMap<JavaSet>(integerHash, kafkaCapacityFor(subscribed.length));
  const desiredSharing = numPartitions === 0 ? 0 : Math.floor((subscribed.length + numPartitions - 1) / numPartitions);
  const desired = new Array<number>(numMembers).fill(0);
  desiredCounts(desiredSharing, numPartitions, subscribed.length).forEach(
    (count, i) => (desired[subscribed[i]] = count),
  );

  // revokeUnassignablePartitions: the topic is subscribed (by someone), so its old partitions all count.
  state.old.forEach((old, m) => {
    const partitions = old.get(topic);
    if (!partitions || old.size === 0) return;
    for (const p of partitions) {
      byPartition.computeIfAbsent(p, () => new JavaSet(integerHash)).add(m);
      byMember.computeIfAbsent(m, () => new JavaSet(integerHash)).add(p);
    }
  });

  // revokeOverfilledMembers
  for (const [m, assigned] of byMember.entries()) {
    if (assigned.size <= desired[m]) continue;
    for (const p of assigned.keys()) {
      if (assigned.size <= desired[m]) break;
      byPartition.get(p)!.delete(m);
      assigned.delete(p);
      copyOf(m).get(topic)!.delete(p);
    }
  }

  // revokeOversharedPartitions
  for (const [p, members] of byPartition.entries()) {
    let count = members.size;
    if (count <= desiredSharing) continue;
    for (const m of members.keys()) {
      const partitions = copyOf(m).get(topic);
      if (partitions && partitions.delete(p)) {
        count--;
        members.delete(m);
        byMember.get(m)!.delete(p);
      }
      if (count <= desiredSharing) break;
    }
  }

  for (let p = 0; p < numPartitions; p++)
    byPartition.computeIfAbsent(p, () => new JavaSet(integerHash, kafkaCapacityFor(subscribed.length)));

  // assignRemainingPartitions
  const unfilled = new JavaSet(integerHash, kafkaCapacityFor(numMembers));
  for (const m of subscribed) if ((byMember.get(m)?.size ?? 0) < desired[m]) unfilled.add(m);
  const iterator = new RestartableIterator(unfilled);
  let assignedThisRound = false;
  for (const [p, members] of byPartition.entries()) {
    if (members.size < desiredSharing) {
      let toMake = desiredSharing - members.size;
      while (toMake > 0) {
        if (!iterator.hasNext()) {
          if (!assignedThisRound) break;
          iterator.restart();
          assignedThisRound = false;
          // Where Kafka's next() would throw on an emptied set, the partition keeps the sharing it got.
          if (!iterator.hasNext()) break;
        }
        const m = iterator.next();
        if (members.has(m)) continue;
        const assignment = copyOf(m);
        let partitions = assignment.get(topic);
        if (!partitions) assignment.set(topic, (partitions = new Set()));
        partitions.add(p);
        const mine = byMember.computeIfAbsent(m, () => new JavaSet(integerHash));
        mine.add(p);
        toMake--;
        assignedThisRound = true;
        if (mine.size >= desired[m]) unfilled.delete(m);
      }
    }
    if (unfilled.size === 0) break;
  }
}
