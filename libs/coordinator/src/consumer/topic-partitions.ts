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

/** What a list made by `toTopicPartitionList` was made from (a hidden property: the list reads and encodes as before). */
const LISTED_FROM = Symbol('listed from');
type ListedFrom = { [LISTED_FROM]?: TopicPartitions };

/**
 * `[{ topic, partitions }]` → TopicPartitions; a topic listed twice keeps the union, an empty list is dropped.
 * A list `toTopicPartitionList` made reads back as the TopicPartitions it was made from, not a copy: a
 * record applied as it is written, a target the assignor left as it was, get the very maps already held
 * (shared, as nothing mutates them), so forming a group builds each member's partitions once instead of
 * once per record and once per target computed.
 */
export function fromTopicPartitionList(list: readonly TopicPartitionList[]): TopicPartitions {
  const source = (list as ListedFrom)[LISTED_FROM];
  if (source !== undefined) return source;
  const result = new Map<string, Set<number>>();
  for (const { topic, partitions } of list) {
    if (partitions.length === 0) continue;
    let set = result.get(topic);
    if (!set) result.set(topic, (set = new Set()));
    for (const p of partitions) set.add(p);
  }
  return result;
}

/**
 * Assignor results read back, by the list an assignor returned: one that keeps a member's unchanged
 * target hands back the same frozen list call after call (the uniform assignor's entries in Java's
 * order, which are not the ascending list it was given), and reading it anew made a map and a set per
 * member at every target computed only to find them equal to the target already held.
 */
const assignedReadings = new WeakMap<readonly TopicPartitionList[], TopicPartitions>();

/**
 * An assignor's list for a member as TopicPartitions: `previous` (the member's target) itself when the
 * list holds the same partitions, so an unchanged target stays the very map held. A list frozen all the
 * way down is read once: nothing can have changed it since.
 */
export function fromAssignedList(
  list: readonly TopicPartitionList[],
  previous: TopicPartitions | undefined,
): TopicPartitions {
  const source = (list as ListedFrom)[LISTED_FROM];
  if (source !== undefined) return source;
  const known = assignedReadings.get(list);
  if (known !== undefined) return known;
  let read = fromTopicPartitionList(list);
  if (previous !== undefined && samePartitions(previous, read)) read = previous;
  if (frozenThroughout(list)) assignedReadings.set(list, read);
  return read;
}

function frozenThroughout(list: readonly TopicPartitionList[]): boolean {
  if (!Object.isFrozen(list)) return false;
  for (let i = 0; i < list.length; i++)
    if (!Object.isFrozen(list[i]) || !Object.isFrozen(list[i].partitions)) return false;
  return true;
}

/**
 * Lists already made, by the (never mutated) TopicPartitions they list: a target is listed at every join,
 * and at every target computed. Kept beside the maps, not on them: a property on some maps gives them
 * another shape than the rest, and every read of a map's partitions elsewhere pays for it.
 */
const listed = new WeakMap<TopicPartitions, Listing>();

interface Listing {
  list: readonly TopicPartitionList[];
  /** The list's JSON, once a record wrote it. */
  json?: string;
}

/**
 * TopicPartitions → `[{ topic, partitions }]`, topics and partitions in ascending order (stable bytes).
 * The list is shared between calls for the same TopicPartitions, and frozen.
 */
export function toTopicPartitionList(partitions: TopicPartitions): TopicPartitionList[] {
  return listingOf(partitions).list as TopicPartitionList[];
}

function listingOf(partitions: TopicPartitions): Listing {
  let listing = listed.get(partitions);
  if (!listing) {
    let readsBack = true;
    const entries = [...partitions.keys()].sort().map((topic) => {
      const set = partitions.get(topic)!;
      // A topic without partitions is not listed back by a reading: such a list reads as a copy.
      if (set.size === 0) readsBack = false;
      return Object.freeze({ topic, partitions: Object.freeze(ascending(set)) });
    });
    if (readsBack) Object.defineProperty(entries, LISTED_FROM, { value: partitions });
    // Frozen: whoever receives it (an assignor plugin, the wire) cannot change what others share.
    listing = { list: Object.freeze(entries) as readonly TopicPartitionList[] };
    listed.set(partitions, listing);
  }
  return listing;
}

/**
 * The set's partitions in ascending order. A target mostly holds a few partitions per topic: those are
 * sorted in place by insertion, as `Array.prototype.sort` with a comparator copies the array first (a
 * twentieth of what a group forming allocated was those copies); a long list is sorted as before.
 */
function ascending(set: ReadonlySet<number>): number[] {
  if (set.size > 32) return [...set].sort((a, b) => a - b);
  const list = new Array<number>(set.size);
  let n = 0;
  for (const p of set) {
    let i = n++;
    while (i > 0 && list[i - 1] > p) {
      list[i] = list[i - 1];
      i--;
    }
    list[i] = p;
  }
  return list;
}

/**
 * `JSON.stringify(toTopicPartitionList(partitions))`, made once per TopicPartitions: a member's target
 * and the assignment it reconciles to are most often the same map, written in one record each.
 */
export function topicPartitionListJson(partitions: TopicPartitions): string {
  const listing = listingOf(partitions);
  return (listing.json ??= JSON.stringify(listing.list));
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
