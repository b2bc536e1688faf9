/**
 * Turns an owner array (partition id → member index, -1 for none) into the SPEC §5 result: an entry
 * for every member, partitions grouped by topic, topics and partitions ascending. Kafka's lists have
 * no meaningful order (consumers turn them into sets), so a canonical order costs nothing and makes
 * results easy to compare.
 */
import type { MemberAssignment, TopicPartitions } from '@cohort/protocol';
import type { GroupInput } from './group-input';

export function assignmentFromOwners(input: GroupInput, owner: Int32Array): Record<string, MemberAssignment> {
  const { members, topics } = input;
  const lists: TopicPartitions[][] = members.map(() => []);
  const current: (TopicPartitions | null)[] = members.map(() => null);
  const currentTopic = new Int32Array(members.length).fill(-1);
  for (let t = 0; t < topics.names.length; t++) {
    const base = topics.base[t];
    for (let p = 0; p < topics.counts[t]; p++) {
      const m = owner[base + p];
      if (m < 0) continue;
      let entry = current[m];
      if (currentTopic[m] !== t || entry === null) {
        entry = { topic: topics.names[t], partitions: [] };
        lists[m].push(entry);
        current[m] = entry;
        currentTopic[m] = t;
      }
      entry.partitions.push(p);
    }
  }
  const result: Record<string, MemberAssignment> = {};
  members.forEach((member, m) => {
    result[member.memberId] = { partitions: lists[m] };
  });
  return result;
}

/** An owner array with every partition unassigned. */
export function emptyOwners(input: GroupInput): Int32Array {
  return new Int32Array(input.topics.total).fill(-1);
}
