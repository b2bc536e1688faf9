/**
 * Turns an owner array (partition id → member index, -1 for none) into the libs/assignors/README.md result: an entry
 * for every member, partitions grouped by topic, topics and partitions ascending. Kafka's lists have
 * no meaningful order (consumers turn them into sets), so a canonical order costs nothing and makes
 * results easy to compare.
 *
 * The `{ topic, partitions }` entries are frozen; one-partition entries are shared between results
 * (single-partition-entries.ts). Each member's list and the result object itself are new per call.
 */
import type { MemberAssignment, TopicPartitions } from '@cohort/protocol';
import type { GroupInput } from './group-input';
import { setOwn } from './own-property';
import { singlePartitionPool, type SinglePartitionPool } from './single-partition-entries';

export function assignmentFromOwners(input: GroupInput, owner: Int32Array, pool: SinglePartitionPool = singlePartitionPool): Record<string, MemberAssignment> {
  const { members, topics } = input;
  const memberCount = members.length;
  // Each member's list is allocated at its final length (growing 2,000 lists by push at this scale
  // makes garbage several times their size): count the topics each member gets partitions of.
  const entries = new Int32Array(memberCount);
  const lastTopic = new Int32Array(memberCount).fill(-1);
  for (let t = 0; t < topics.names.length; t++) {
    for (let id = topics.base[t]; id < topics.base[t + 1]; id++) {
      const m = owner[id];
      if (m >= 0 && lastTopic[m] !== t) {
        lastTopic[m] = t;
        entries[m]++;
      }
    }
  }
  const lists: TopicPartitions[][] = new Array(memberCount);
  for (let m = 0; m < memberCount; m++) lists[m] = new Array<TopicPartitions>(entries[m]);
  const filled = new Int32Array(memberCount);
  // One pass over the owner array, topic by topic. Within a topic, a member's first partition waits
  // in `first` and a second one opens a run; when the topic ends, each member that got something
  // there gets one entry. Walking in partition order keeps memory access sequential, which at a
  // million partitions matters more than anything else here.
  const first = new Int32Array(memberCount).fill(-1);
  const runs: (number[] | undefined)[] = new Array(memberCount);
  const touched = new Int32Array(memberCount);
  for (let t = 0; t < topics.names.length; t++) {
    const topic = topics.names[t];
    const base = topics.base[t];
    const count = topics.counts[t];
    let touchedCount = 0;
    for (let p = 0; p < count; p++) {
      const m = owner[base + p];
      if (m < 0) continue;
      if (first[m] < 0) {
        first[m] = p;
        touched[touchedCount++] = m;
      } else {
        const run = runs[m];
        if (run === undefined) runs[m] = [first[m], p];
        else run.push(p);
      }
    }
    const slots = touchedCount > 0 ? pool.slots(topic) : [];
    for (let k = 0; k < touchedCount; k++) {
      const m = touched[k];
      const run = runs[m];
      if (run === undefined) {
        const p = first[m];
        // The pooled entry is read here rather than through a call: this runs once per partition.
        lists[m][filled[m]++] = slots[p] ?? pool.entry(slots, topic, p);
      } else {
        lists[m][filled[m]++] = Object.freeze({ topic, partitions: Object.freeze(run) as number[] });
        runs[m] = undefined;
      }
      first[m] = -1;
    }
  }
  const result: Record<string, MemberAssignment> = {};
  for (let m = 0; m < memberCount; m++) setOwn(result, members[m].memberId, { partitions: lists[m] });
  return result;
}

/** An owner array with every partition unassigned. */
export function emptyOwners(input: GroupInput): Int32Array {
  return new Int32Array(input.topics.total).fill(-1);
}
