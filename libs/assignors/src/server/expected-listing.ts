/**
 * A target the uniform assignor has just given a member, as a coordinator lists it back at the next
 * call: topics ascending by name, each topic's partitions ascending, a topic without partitions left
 * out (the coordinator's toTopicPartitionList). The kept group model (kept-uniform-group.ts) keeps it
 * so that the call after one that changed most targets (a group formed: every member's target is new)
 * knows each member's list by comparing it with this listing, instead of reading every member's target
 * again. A list that differs in anything, order included, is read as a changed one is: a caller that
 * lists its targets otherwise is answered as before, only not faster.
 */
import type { TopicPartitions } from '@cohort/protocol';

/** `target` as listed back, frozen throughout; null when it names a topic twice (such a target is read afresh). */
export function expectedListing(target: readonly TopicPartitions[]): readonly TopicPartitions[] | null {
  const entries: TopicPartitions[] = [];
  for (const { topic, partitions } of target) {
    if (partitions.length === 0) continue;
    for (const entry of entries) if (entry.topic === topic) return null;
    entries.push(Object.freeze({ topic, partitions: Object.freeze(ascending(partitions)) as number[] }));
  }
  if (entries.length > 1) entries.sort((a, b) => (a.topic < b.topic ? -1 : a.topic > b.topic ? 1 : 0));
  return Object.freeze(entries);
}

function ascending(partitions: readonly number[]): number[] {
  const list = partitions.slice();
  if (list.length > 32) return list.sort((a, b) => a - b);
  for (let i = 1; i < list.length; i++) {
    const p = list[i];
    let k = i;
    while (k > 0 && list[k - 1] > p) {
      list[k] = list[k - 1];
      k--;
    }
    list[k] = p;
  }
  return list;
}

/** The two lists name the same topics with the same partitions, in the same order. */
export function sameListing(a: readonly TopicPartitions[], b: readonly TopicPartitions[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i];
    const y = b[i];
    if (x.topic !== y.topic || x.partitions.length !== y.partitions.length) return false;
    for (let k = 0; k < x.partitions.length; k++) if (x.partitions[k] !== y.partitions[k]) return false;
  }
  return true;
}
