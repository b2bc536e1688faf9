/**
 * The java.util.HashSet / HashMap that Kafka's SimpleAssignor walks, with Java's iteration order
 * (JavaHashTable): the builders remove a partition's members or a member's partitions in the order
 * Java iterates them, so the same order gives the same assignment. Keys are numbers (member indices,
 * partition numbers, or a topic-partition code) with their Java `hashCode()` given by the caller.
 */
import { JavaHashTable } from './java-hash-table';

/** `AssignorHelpers.newHashMap(n)` / `newHashSet(n)`: `(int) (((n + 1) / 0.75f) + 1)`. */
export function kafkaCapacityFor(n: number): number {
  return Math.floor((4 * (n + 1)) / 3) + 1;
}

/** `Integer.hashCode()`. */
export const integerHash = (value: number): number => value | 0;

export class JavaSet {
  private readonly table: JavaHashTable;
  private readonly handles = new Map<number, number>();
  private readonly keyOf: number[] = [];

  /** `initialCapacity` undefined is `new HashSet<>()`. */
  constructor(
    private readonly hashOf: (key: number) => number,
    initialCapacity?: number,
  ) {
    this.table = new JavaHashTable(initialCapacity);
  }

  get size(): number {
    return this.handles.size;
  }

  has(key: number): boolean {
    return this.handles.has(key);
  }

  /** `add`: appended to its bucket's chain. */
  add(key: number): boolean {
    if (this.handles.has(key)) return false;
    this.remember(key, this.table.insert(this.hashOf(key)));
    return true;
  }

  /** `computeIfAbsent` of a map keyed like this set: a new key goes to the head of its chain. */
  computeIfAbsent(key: number): boolean {
    if (this.handles.has(key)) {
      this.table.computeIfAbsentHit();
      return false;
    }
    this.remember(key, this.table.computeIfAbsentInsert(this.hashOf(key)));
    return true;
  }

  delete(key: number): boolean {
    const handle = this.handles.get(key);
    if (handle === undefined) return false;
    this.table.remove(handle);
    this.handles.delete(key);
    return true;
  }

  /** The keys in Java's iteration order (a snapshot: removing the current key while walking it is safe). */
  keys(): number[] {
    return this.table.order().map((handle) => this.keyOf[handle]);
  }

  private remember(key: number, handle: number): void {
    this.handles.set(key, handle);
    this.keyOf[handle] = key;
  }
}

/** A HashMap: its key set orders it; values live beside. */
export class JavaMap<V> {
  private readonly keySet: JavaSet;
  private readonly values = new Map<number, V>();

  constructor(hashOf: (key: number) => number, initialCapacity?: number) {
    this.keySet = new JavaSet(hashOf, initialCapacity);
  }

  get(key: number): V | undefined {
    return this.values.get(key);
  }

  /** `computeIfAbsent(key, k -> make())`. */
  computeIfAbsent(key: number, make: () => V): V {
    if (this.keySet.computeIfAbsent(key)) this.values.set(key, make());
    return this.values.get(key)!;
  }

  /** The entries in Java's iteration order. */
  entries(): [number, V][] {
    return this.keySet.keys().map((key) => [key, this.values.get(key)!]);
  }
}

/**
 * An iterator over a set that may be restarted, removing its current key as `Iterator.remove` does:
 * what Kafka's `assignRemainingPartitions` does with its unfilled members.
 */
export class RestartableIterator {
  private snapshot: number[] = [];
  private position = 0;

  constructor(private readonly set: JavaSet) {
    this.restart();
  }

  restart(): void {
    this.snapshot = this.set.keys();
    this.position = 0;
  }

  hasNext(): boolean {
    while (this.position < this.snapshot.length && !this.set.has(this.snapshot[this.position])) this.position++;
    return this.position < this.snapshot.length;
  }

  next(): number {
    if (!this.hasNext()) throw new Error('no next element');
    return this.snapshot[this.position++];
  }
}
