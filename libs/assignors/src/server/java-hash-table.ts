/**
 * The iteration order of a java.util.HashMap / HashSet (JDK 17), for Kafka's server assignors: their
 * results depend on the order in which they walk a `HashSet<Uuid>` of topics, a member's current
 * assignment (`HashMap<Uuid, HashSet<Integer>>`) and the member map. Java walks its table bucket by
 * bucket, each bucket's chain in insertion order (a resize splits chains without reordering them), so
 * the order is fixed by the final table size and the insertion order. What decides the table size is
 * followed exactly: the constructor's initial capacity, the resize at three quarters full, and the
 * resize `treeifyBin` makes instead of a tree while the table is under 64 buckets and a chain reaches 9.
 * Not emulated: chains of 9 or more in a table of 64 buckets or more, which Java turns into trees
 * (their order then follows the tree) — partition sets with 9 partitions sharing a bucket there.
 */
import { spreadHash as importedSpreadHash } from '../common/java-order';

// Bound once: under esbuild's CommonJS output (what tsx, and so npm run bench, runs) every use of an
// imported name is a getter call, which stays a call in the per-partition loops below.
const spreadHash = importedSpreadHash;

const DEFAULT_CAPACITY = 16;
const TREEIFY_THRESHOLD = 8;
/** Below this many buckets, `treeifyBin` resizes the table instead of making a tree. */
export const MIN_TREEIFY_CAPACITY = 64;

/** `HashMap.resize()`: the capacity after (capacity, threshold); `grownThreshold` gives the threshold. */
export function grownCapacity(capacity: number, threshold: number): number {
  return capacity === 0 ? (threshold > 0 ? threshold : DEFAULT_CAPACITY) : capacity * 2;
}

/** The table a HashMap or HashSet made with `initialCapacity` (negative: none given) has at its first insert. */
export function firstTableSize(initialCapacity: number): number {
  return grownCapacity(0, initialCapacity < 0 ? 0 : tableSizeFor(initialCapacity));
}

/** `HashMap.resize()`: the threshold that goes with `grownCapacity`'s `newCapacity`. */
export function grownThreshold(capacity: number, threshold: number, newCapacity: number): number {
  return capacity >= DEFAULT_CAPACITY ? threshold * 2 : Math.floor(newCapacity * 0.75);
}

/** `HashMap.tableSizeFor`: the smallest power of two at least `capacity` (1 for 0). */
export function tableSizeFor(capacity: number): number {
  let size = 1;
  while (size < capacity) size *= 2;
  return size;
}

/** `(int) ((n / 0.75f) + 1)`, Java's usual initial capacity for n entries. */
export function capacityForEntries(n: number): number {
  return Math.floor((n * 4) / 3) + 1;
}

/** The initial capacity `new HashSet<>(collection)` gives a collection of n elements (JDK 17). */
export function copyConstructorCapacity(n: number): number {
  return Math.max(capacityForEntries(n), DEFAULT_CAPACITY);
}

/**
 * One Java hash table through a sequence of operations, bucket chains and all. `initialCapacity`
 * undefined is `new HashMap<>()`; a number is `new HashMap<>(initialCapacity)`. `put` is
 * `HashMap.put` / `HashSet.add` of a new key (appended to its chain, resize after the insert);
 * `computeIfAbsent` differs: it resizes before it looks (so even a call that finds its key may
 * resize), and puts a new key at the head of its chain.
 */
export class JavaHashTable {
  private capacity = 0;
  private threshold: number;
  private size = 0;
  private chains: number[][] = [];
  private readonly hashes: number[] = [];
  private readonly alive: boolean[] = [];

  constructor(initialCapacity?: number) {
    this.threshold = initialCapacity === undefined ? 0 : tableSizeFor(initialCapacity);
  }

  /** `put` of a key not present, with its Java `hashCode()`; returns its handle. */
  insert(hashCode: number): number {
    if (this.capacity === 0) this.resize();
    const handle = this.newHandle(hashCode);
    const chain = this.chains[this.hashes[handle] & (this.capacity - 1)];
    chain.push(handle);
    if (chain.length - 1 >= TREEIFY_THRESHOLD) this.treeifyBin();
    if (++this.size > this.threshold) this.resize();
    return handle;
  }

  /** `computeIfAbsent` of a key not present: returns its handle. */
  computeIfAbsentInsert(hashCode: number): number {
    if (this.capacity === 0 || this.size > this.threshold) this.resize();
    const handle = this.newHandle(hashCode);
    const chain = this.chains[this.hashes[handle] & (this.capacity - 1)];
    chain.unshift(handle);
    if (chain.length - 1 >= TREEIFY_THRESHOLD - 1) this.treeifyBin();
    this.size++;
    return handle;
  }

  /** `computeIfAbsent` of a key present: only its resize check. */
  computeIfAbsentHit(): void {
    if (this.size > this.threshold) this.resize();
  }

  remove(handle: number): void {
    if (!this.alive[handle]) return;
    this.alive[handle] = false;
    this.size--;
    const chain = this.chains[this.hashes[handle] & (this.capacity - 1)];
    chain.splice(chain.indexOf(handle), 1);
  }

  /** Handles of the elements present, in Java's iteration order. */
  order(): number[] {
    const order: number[] = [];
    for (const chain of this.chains) for (const handle of chain) order.push(handle);
    return order;
  }

  private newHandle(hashCode: number): number {
    this.hashes.push(spreadHash(hashCode));
    this.alive.push(true);
    return this.hashes.length - 1;
  }

  private treeifyBin(): void {
    if (this.capacity < MIN_TREEIFY_CAPACITY) this.resize();
  }

  private resize(): void {
    const oldCapacity = this.capacity;
    if (oldCapacity === 0) {
      this.capacity = this.threshold > 0 ? this.threshold : DEFAULT_CAPACITY;
      this.threshold = Math.floor(this.capacity * 0.75);
    } else {
      this.capacity = oldCapacity * 2;
      this.threshold = oldCapacity >= DEFAULT_CAPACITY ? this.threshold * 2 : Math.floor(this.capacity * 0.75);
    }
    // Java splits each chain in two without reordering it.
    const chains: number[][] = [];
    for (let b = 0; b < this.capacity; b++) chains.push([]);
    const mask = this.capacity - 1;
    for (const chain of this.chains) for (const handle of chain) chains[this.hashes[handle] & mask].push(handle);
    this.chains = chains;
  }
}

/**
 * The order in which `new HashSet<>(list)` (or a HashMap filled from the list, `initialCapacity` as
 * for JavaHashTable) iterates, given the list's elements' hash codes: positions into the list.
 */
export function javaIterationOrder(hashCodes: ArrayLike<number>, initialCapacity?: number): number[] {
  if (initialCapacity !== undefined) {
    const capacity = firstTableSize(initialCapacity);
    if (capacity >= MIN_TREEIFY_CAPACITY && hashCodes.length * 4 < capacity)
      return sparseTableOrder(hashCodes, capacity);
  }
  const table = new JavaHashTable(initialCapacity);
  for (let i = 0; i < hashCodes.length; i++) table.insert(hashCodes[i]);
  return table.order();
}

/**
 * javaIterationOrder of a table that starts with `capacity` buckets, 64 or more, and is never filled
 * to a quarter of them: it never resizes (not for its size, and Java makes trees instead of growing a
 * table of 64 buckets or more), so its order is by bucket, then by insertion, found without making the
 * buckets: a subscription of 100,000 names, most of them no topic, sizes the set of the few that exist
 * for all of them (Kafka's `TopicIds.size()`), a table of 262,144 buckets.
 */
function sparseTableOrder(hashCodes: ArrayLike<number>, capacity: number): number[] {
  const mask = capacity - 1;
  const buckets = new Int32Array(hashCodes.length);
  const order = new Array<number>(hashCodes.length);
  for (let i = 0; i < hashCodes.length; i++) {
    buckets[i] = spreadHash(hashCodes[i]) & mask;
    order[i] = i;
  }
  return order.sort((a, b) => buckets[a] - buckets[b] || a - b);
}

/**
 * Partitions as `new HashSet<>(partitions)` iterates them (Integer.hashCode is the value). The table is
 * sized for the list, so it never grows by size: when the list's buckets do not decrease (a target
 * the assignor wrote, read back) and no chain of nine forms in a table of fewer than 64 buckets
 * (treeifyBin would grow it), Java's order is the list's; otherwise the table is replayed.
 */
export function hashSetOrderOfPartitions(partitions: readonly number[]): number[] {
  const capacity = tableSizeFor(copyConstructorCapacity(partitions.length));
  const mask = capacity - 1;
  let previous = -1;
  let chain = 0;
  let ordered = true;
  for (let i = 0; i < partitions.length && ordered; i++) {
    const bucket = spreadHash(partitions[i]) & mask;
    chain = bucket === previous ? chain + 1 : 1;
    ordered = bucket >= previous && (chain < 9 || capacity >= MIN_TREEIFY_CAPACITY);
    previous = bucket;
  }
  if (ordered) return partitions as number[];
  return javaIterationOrder(partitions, copyConstructorCapacity(partitions.length)).map((i) => partitions[i]);
}
