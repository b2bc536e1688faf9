/**
 * Emulation of java.util.HashMap / HashSet iteration order. Kafka's sticky assignors iterate hash
 * maps keyed by member id (and one HashSet of TopicPartition), and a few results depend on that
 * order. To give the same assignment as Kafka bit for bit we
 * iterate in the order Java would: by bucket of the spread hash, then by insertion order within a
 * bucket (Java keeps bucket chains in insertion order, also across resizes and removals).
 * Not emulated: bins that Java turns into trees (8+ keys in one bucket), which ids do not reach in practice.
 */

/** HashMap.hash(): the high half folded into the low half. */
export function spreadHash(h: number): number {
  return (h ^ (h >>> 16)) | 0;
}

/** The table size of a default `new HashMap<>()` / `new HashSet<>()` that has held `maxSize` keys. */
export function javaTableCapacity(maxSize: number): number {
  let capacity = 16;
  while (maxSize > 0.75 * capacity) capacity *= 2;
  return capacity;
}

export function javaBucket(hash: number, capacity: number): number {
  return spreadHash(hash) & (capacity - 1);
}

/**
 * Java's String.hashCode, as javaStringHashCode of @cohort/protocol computes it, but local: this runs
 * once per member, and on a process's first call an imported function costs a getter call per use
 * under esbuild's CommonJS output (what tsx runs), and Math.imul a call per character
 * (31 * hash is (hash << 5) - hash, exact before the | 0). A function of its own rather than a loop
 * written into the caller's: it is compiled early and stays compiled when the caller deoptimizes.
 */
function stringHashCode(value: string): number {
  let hash = 0;
  for (let i = 0; i < value.length; i++) hash = ((hash << 5) - hash + value.charCodeAt(i)) | 0;
  return hash;
}

/**
 * Indices of `keys` (given in insertion order) in the order a default Java HashMap<String, _> filled
 * in that order iterates them.
 */
export function javaHashMapOrder(keys: readonly string[]): number[] {
  const capacity = javaTableCapacity(keys.length);
  // A counting sort by bucket: stable, so keys sharing a bucket keep their insertion order, and
  // linear, with no comparator calls (thousands of members, on a process's first rebalance too).
  const buckets = new Int32Array(keys.length);
  const starts = new Int32Array(capacity + 1);
  for (let index = 0; index < keys.length; index++) {
    const bucket = javaBucket(stringHashCode(keys[index]), capacity);
    buckets[index] = bucket;
    starts[bucket + 1]++;
  }
  for (let bucket = 0; bucket < capacity; bucket++) starts[bucket + 1] += starts[bucket];
  const order = new Array<number>(keys.length);
  for (let index = 0; index < keys.length; index++) order[starts[buckets[index]]++] = index;
  return order;
}

/** `TopicPartition.hashCode()`: 31 * (31 + partition) + topic.hashCode(). */
export function topicPartitionHashCode(topicHash: number, partition: number): number {
  return (Math.imul(31, 31 + partition) + topicHash) | 0;
}

/**
 * A set of integers (partition ids) that answers "which element would a Java HashSet iterate first",
 * given each element's Java hash. Insertion order is remembered per element; the table capacity grows
 * with the largest size the set has had, as Java's does (it never shrinks).
 */
export class JavaHashSetOrder {
  private readonly sequenceOf = new Map<number, number>();
  private nextSequence = 0;
  private maxSize = 0;

  constructor(private readonly hashOf: (element: number) => number) {}

  get size(): number {
    return this.sequenceOf.size;
  }

  add(element: number): void {
    if (this.sequenceOf.has(element)) return;
    this.sequenceOf.set(element, this.nextSequence++);
    if (this.sequenceOf.size > this.maxSize) this.maxSize = this.sequenceOf.size;
  }

  delete(element: number): void {
    this.sequenceOf.delete(element);
  }

  /** The element `set.iterator().next()` returns in Java; -1 when empty. */
  first(): number {
    const capacity = javaTableCapacity(this.maxSize);
    let best = -1;
    let bestBucket = Infinity;
    let bestSequence = Infinity;
    for (const [element, sequence] of this.sequenceOf) {
      const bucket = javaBucket(this.hashOf(element), capacity);
      if (bucket < bestBucket || (bucket === bestBucket && sequence < bestSequence)) {
        best = element;
        bestBucket = bucket;
        bestSequence = sequence;
      }
    }
    return best;
  }
}
