/**
 * partitionIdsOf (duplicates kept) for a list of owned partitions that validation has not looked at:
 * each entry is checked as validateAssignorInput checks it while it is read. A rejoining group lists
 * every partition as owned, and on a process's first rebalance one pass over a million entries
 * instead of two (one to validate, one to read) is much of the call.
 */
import { MAX_PRESIZED_LIST, type GroupTopics } from './group-input';

// Read once here rather than at each use, which is a getter call per member (see common/group-input.ts).
const PRESIZED_AT_MOST = MAX_PRESIZED_LIST;

/**
 * The partition ids of `list` in the order given, or null when the list or an entry is not what
 * validateAssignorInput accepts (the caller then reports it as the validator would:
 * throwInvalidOwnedPartitions). Every entry is checked, also those of topics that do not take part.
 */
export function checkedPartitionIdsOf(list: unknown, topics: GroupTopics): number[] | null {
  if (!Array.isArray(list)) return null;
  const ids = list.length <= PRESIZED_AT_MOST ? new Array<number>(list.length) : [];
  let n = 0;
  const { names, counts, base: bases } = topics;
  // As in partitionIdsOf: the topic after the last one, or the same, before a lookup in the index.
  let t = -1;
  for (let e = 0; e < list.length; e++) {
    const entry: unknown = list[e];
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) return null;
    const { topic, partitions } = entry as { topic?: unknown; partitions?: unknown };
    if (typeof topic !== 'string' || topic.length === 0 || !Array.isArray(partitions)) return null;
    if (names[t + 1] === topic) t++;
    else if (t < 0 || names[t] !== topic) t = topics.index.get(topic) ?? -1;
    // A topic that does not take part keeps nothing, but its partitions are checked all the same.
    const count = t < 0 ? 0 : counts[t];
    const base = t < 0 ? 0 : bases[t];
    for (let i = 0; i < partitions.length; i++) {
      const partition: unknown = partitions[i];
      // An int32 from 0 to INT32_MAX: a number equal to its int32 conversion, and not negative.
      if (!(typeof partition === 'number' && (partition | 0) === partition && partition >= 0)) return null;
      if (partition < count) ids[n++] = base + partition;
    }
  }
  if (n !== ids.length) ids.length = n;
  return ids;
}
