/**
 * Turns an owner array (partition id → member index, -1 for none) into the SPEC §5 result: an entry
 * for every member, partitions grouped by topic, topics and partitions ascending. Kafka's lists have
 * no meaningful order (consumers turn them into sets), so a canonical order costs nothing and makes
 * results easy to compare.
 */
import type { MemberAssignment, TopicPartitions } from '@cohort/protocol';
import type { GroupInput } from './group-input';
import { setOwn } from './own-property';

export function assignmentFromOwners(input: GroupInput, owner: Int32Array): Record<string, MemberAssignment> {
  const { members, topics } = input;
  const memberCount = members.length;
  const total = topics.total;
  // Partition ids grouped by member, ascending (a counting sort), then cut into per-topic runs; every
  // array is allocated at its final size.
  const start = new Int32Array(memberCount + 1);
  for (let id = 0; id < total; id++) if (owner[id] >= 0) start[owner[id] + 1]++;
  for (let m = 0; m < memberCount; m++) start[m + 1] += start[m];
  const ids = new Int32Array(start[memberCount]);
  const fill = start.slice(0, memberCount);
  for (let id = 0; id < total; id++) {
    const m = owner[id];
    if (m >= 0) ids[fill[m]++] = id;
  }
  const topicOfId = (id: number, from: number): number => {
    let t = from;
    while (topics.base[t + 1] <= id) t++;
    return t;
  };
  const result: Record<string, MemberAssignment> = {};
  for (let m = 0; m < memberCount; m++) {
    // Count the member's topics first so its list is allocated once, at its final length.
    let runs = 0;
    for (let k = start[m], t = 0; k < start[m + 1]; k++) {
      if (k === start[m] || ids[k] >= topics.base[t + 1]) {
        t = topicOfId(ids[k], t);
        runs++;
      }
    }
    const list: TopicPartitions[] = new Array<TopicPartitions>(runs);
    let run = 0;
    let i = start[m];
    let t = 0;
    while (i < start[m + 1]) {
      t = topicOfId(ids[i], t);
      const end = topics.base[t + 1];
      let j = i;
      while (j < start[m + 1] && ids[j] < end) j++;
      let partitions: number[];
      if (j - i === 1) partitions = [ids[i] - topics.base[t]];
      else {
        partitions = new Array<number>(j - i);
        for (let k = i; k < j; k++) partitions[k - i] = ids[k] - topics.base[t];
      }
      list[run++] = { topic: topics.names[t], partitions };
      i = j;
    }
    setOwn(result, members[m].memberId, { partitions: list });
  }
  return result;
}

/** An owner array with every partition unassigned. */
export function emptyOwners(input: GroupInput): Int32Array {
  return new Int32Array(input.topics.total).fill(-1);
}
