/**
 * A set of partitions by topic name (Kafka's `Map<Uuid, Set<Integer>>` in `Assignment` and
 * `ConsumerGroupMember`). Cohort names topics on the wire, so the consumer group core keys
 * them by name; a topic's Kafka id is derived from its name only where an assignor orders by id.
 * Values are never mutated once built: members and targets share them freely, as Kafka's do.
 */
export type TopicPartitions = ReadonlyMap<string, ReadonlySet<number>>;

export const NO_PARTITIONS: TopicPartitions = new Map();

/** A topic's partitions as the wire and the records list them. */
export interface TopicPartitionList {
  topic: string;
  partitions: number[];
}

/** `[{ topic, partitions }]` → TopicPartitions; a topic listed twice keeps the union, an empty list is dropped. */
export function fromTopicPartitionList(list: readonly TopicPartitionList[]): TopicPartitions {
  const result = new Map<string, Set<number>>();
  for (const { topic, partitions } of list) {
    if (partitions.length === 0) continue;
    let set = result.get(topic);
    if (!set) result.set(topic, (set = new Set()));
    for (const p of partitions) set.add(p);
  }
  return result;
}

/** Lists already made, by the (never mutated) TopicPartitions they list: a target is listed at every join. */
const listed = new WeakMap<TopicPartitions, readonly TopicPartitionList[]>();

/**
 * TopicPartitions → `[{ topic, partitions }]`, topics and partitions in ascending order (stable bytes).
 * The list is shared between calls for the same TopicPartitions, and frozen.
 */
export function toTopicPartitionList(partitions: TopicPartitions): TopicPartitionList[] {
  let list = listed.get(partitions);
  if (!list) {
    // Frozen: whoever receives it (an assignor plugin, the wire) cannot change what others share.
    list = Object.freeze(
      [...partitions.keys()]
        .sort()
        .map((topic) =>
          Object.freeze({ topic, partitions: Object.freeze([...partitions.get(topic)!].sort((a, b) => a - b)) }),
        ),
    ) as readonly TopicPartitionList[];
    listed.set(partitions, list);
  }
  return list as TopicPartitionList[];
}

export function samePartitions(a: TopicPartitions, b: TopicPartitions): boolean {
  if (a === b) return true;
  if (a.size !== b.size) return false;
  for (const [topic, set] of a) {
    const other = b.get(topic);
    if (!other || other.size !== set.size) return false;
    for (const p of set) if (!other.has(p)) return false;
  }
  return true;
}

export function partitionCount(partitions: TopicPartitions): number {
  let n = 0;
  for (const set of partitions.values()) n += set.size;
  return n;
}

/** Whether `owned` (a member's reported partitions) holds any partition of `partitions`. */
export function ownsAnyOf(owned: readonly TopicPartitionList[], partitions: TopicPartitions): boolean {
  for (const { topic, partitions: list } of owned) {
    const set = partitions.get(topic);
    if (!set) continue;
    for (const p of list) if (set.has(p)) return true;
  }
  return false;
}
