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
import { spreadHash } from '../common/java-order';

const DEFAULT_CAPACITY = 16;
const TREEIFY_THRESHOLD = 8;
const MIN_TREEIFY_CAPACITY = 64;

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
 * The shape of one Java hash table through a sequence of inserts and removes. `initialCapacity`
 * undefined is `new HashMap<>()`; a number is `new HashMap<>(initialCapacity)`.
 */
export class JavaHashTable {
  private capacity = 0;
  private threshold: number;
  private size = 0;
  private counts: Int32Array = new Int32Array(0);
  private readonly hashes: number[] = [];
  private readonly alive: boolean[] = [];

  constructor(initialCapacity?: number) {
    this.threshold = initialCapacity === undefined ? 0 : tableSizeFor(initialCapacity);
  }

  /** Inserts an element (known not to be present) with its Java `hashCode()`; returns its handle. */
  insert(hashCode: number): number {
    if (this.capacity === 0) this.resize();
    const hash = spreadHash(hashCode);
    const handle = this.hashes.length;
    this.hashes.push(hash);
    this.alive.push(true);
    const bucket = hash & (this.capacity - 1);
    const chainBefore = this.counts[bucket]++;
    if (chainBefore >= TREEIFY_THRESHOLD && this.capacity < MIN_TREEIFY_CAPACITY) this.resize();
    if (++this.size > this.threshold) this.resize();
    return handle;
  }

  remove(handle: number): void {
    if (!this.alive[handle]) return;
    this.alive[handle] = false;
    this.size--;
    this.counts[this.hashes[handle] & (this.capacity - 1)]--;
  }

  /** Handles of the elements present, in Java's iteration order. */
  order(): number[] {
    const mask = this.capacity - 1;
    const starts = new Int32Array(this.capacity + 1);
    for (let h = 0; h < this.hashes.length; h++) if (this.alive[h]) starts[(this.hashes[h] & mask) + 1]++;
    for (let b = 0; b < this.capacity; b++) starts[b + 1] += starts[b];
    const order = new Array<number>(this.size);
    for (let h = 0; h < this.hashes.length; h++) if (this.alive[h]) order[starts[this.hashes[h] & mask]++] = h;
    return order;
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
    this.counts = new Int32Array(this.capacity);
    const mask = this.capacity - 1;
    for (let h = 0; h < this.hashes.length; h++) if (this.alive[h]) this.counts[this.hashes[h] & mask]++;
  }
}

/**
 * The order in which `new HashSet<>(list)` (or a HashMap filled from the list, `initialCapacity` as
 * for JavaHashTable) iterates, given the list's elements' hash codes: positions into the list.
 */
export function javaIterationOrder(hashCodes: ArrayLike<number>, initialCapacity?: number): number[] {
  const table = new JavaHashTable(initialCapacity);
  for (let i = 0; i < hashCodes.length; i++) table.insert(hashCodes[i]);
  return table.order();
}

/**
 * Partitions as `new HashSet<>(partitions)` iterates them (Integer.hashCode is the value). Most sets
 * are already in that order (ascending, all below the table size), which is checked first.
 */
export function hashSetOrderOfPartitions(partitions: readonly number[]): number[] {
  const capacity = tableSizeFor(copyConstructorCapacity(partitions.length));
  let ordered = true;
  for (let i = 0; i < partitions.length && ordered; i++)
    ordered = partitions[i] < capacity && (i === 0 || partitions[i - 1] < partitions[i]);
  if (ordered) return partitions as number[];
  return javaIterationOrder(partitions, copyConstructorCapacity(partitions.length)).map((i) => partitions[i]);
}
