/**
 * Kafka's `SimpleHomogeneousAssignmentBuilder` when no member holds anything yet (a group's first
 * assignment, or every target dropped), with plain arrays instead of the emulated Java hash sets.
 * Nothing is owned, so nothing is revoked and `assignRemainingPartitions` alone decides: it walks the
 * partitions in their HashMap order, dealing each `desiredSharing` slots from the unfilled members in
 * ascending index order (a HashSet<Integer> sized for all of them), dropping a member once it has its
 * quota and starting over when the members run out. The same steps, so the same assignment, without
 * the per-member hash tables that made a large group's first call slow.
 */
import { JavaHashTable } from './java-hash-table';
import type { MemberTopics, ShareAssignmentState } from './share-assignor-state';
import { kafkaCapacityFor } from './share-assignor-java-collections';

export interface FromEmptyTargets {
  /** Target partitions as Kafka lists them: topic index and partition, in subscription order. */
  topics: Int32Array;
  partitions: Int32Array;
  /** `TopicIdPartition.hashCode()` of each target. */
  hashes: Int32Array;
}

export function assignFromEmpty(
  numMembers: number,
  targets: FromEmptyTargets,
  desiredSharing: number,
  desired: readonly number[],
): ShareAssignmentState {
  const old: MemberTopics[] = Array.from({ length: numMembers }, () => new Map());
  const state: ShareAssignmentState = { old, next: new Map() };
  let members: number[] = [];
  for (let m = 0; m < numMembers; m++) if (desired[m] > 0) members.push(m);
  if (members.length === 0) return state;

  // finalAssignmentByPartition: every target put by computeIfAbsent, in Kafka's order of targets.
  const numTargets = targets.hashes.length;
  const table = new JavaHashTable(kafkaCapacityFor(numTargets));
  for (let t = 0; t < numTargets; t++) table.computeIfAbsentInsert(targets.hashes[t]);

  const count = new Int32Array(numMembers);
  const lastTarget = new Int32Array(numMembers).fill(-1);
  const filled = new Uint8Array(numMembers);
  let unfilled = members.length;
  let position = 0;
  let assignedThisRound = false;
  for (const t of table.order()) {
    let toMake = desiredSharing;
    while (toMake > 0) {
      while (position < members.length && filled[members[position]]) position++;
      if (position === members.length) {
        if (!assignedThisRound) break;
        members = members.filter((m) => !filled[m]);
        position = 0;
        assignedThisRound = false;
        if (members.length === 0) break;
      }
      const m = members[position++];
      // A member dealt the same partition twice (the members ran out mid-partition) holds it once.
      if (lastTarget[m] !== t) {
        lastTarget[m] = t;
        count[m]++;
        let assignment = state.next.get(m);
        if (!assignment) state.next.set(m, (assignment = new Map()));
        const topic = targets.topics[t];
        let partitions = assignment.get(topic);
        if (!partitions) assignment.set(topic, (partitions = new Set()));
        partitions.add(targets.partitions[t]);
      }
      toMake--;
      assignedThisRound = true;
      if (count[m] >= desired[m]) {
        filled[m] = 1;
        unfilled--;
      }
    }
    if (unfilled === 0) break;
  }
  return state;
}
