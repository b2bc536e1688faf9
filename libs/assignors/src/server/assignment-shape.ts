/**
 * What a member's new target looks like inside Kafka's uniform assignor, kept as a log of the changes
 * made to it, so its entries can be listed in the order Java iterates the result: that order is the
 * order of the target's record, and so the order the next computation iterates it in. An assignor that
 * leaves a member's target alone hands back the very map it was given (its order unchanged); the first
 * change deep-copies it (`new HashMap<>(size)`, each set a `new HashSet<>(set)`), and partitions of a
 * topic new to the member go to a `new HashSet<>()` (homogeneous) or one sized for the topic's share
 * (heterogeneous).
 */
import { spreadHash } from '../common/java-order';
import { copyConstructorCapacity, JavaHashTable, tableSizeFor } from './java-hash-table';
import type { ModelTopic, OwnedTopic } from './group-model';

/** Inserts (value + 1) and removes (-(value + 1)) in the order they were made. */
class TableLog {
  readonly ops: number[] = [];
  removes = 0;
  constructor(readonly initialCapacity: number | undefined) {}
}

/** Java's table size after n inserts into an empty table whose first size is `first` (no removes). */
function grownCapacity(first: number, n: number): number {
  let capacity = first;
  let threshold = Math.floor(capacity * 0.75);
  while (n > threshold) {
    const old = capacity;
    capacity *= 2;
    threshold = old >= 16 ? threshold * 2 : Math.floor(capacity * 0.75);
  }
  return capacity;
}

/**
 * The values of a partition set's log in Java's iteration order (Integer.hashCode is the value). The common case — inserts only, no bucket of the
 * first table holding nine — needs no replay: the order is by bucket of the final table, then by
 * insertion. Otherwise the table is replayed (removes change when it grows; nine in a bucket resize it).
 */
function iterate(log: TableLog): number[] {
  const hashOf = identity;
  const first = log.initialCapacity === undefined ? 16 : tableSizeFor(log.initialCapacity);
  const ops = log.ops;
  if (log.removes === 0) {
    const rotated = ascendingRun(ops, first);
    if (rotated !== null) return rotated;
    let fits = ops.length < 9;
    if (!fits) {
      const counts = new Int32Array(first);
      fits = true;
      for (let i = 0; i < ops.length && fits; i++) fits = ++counts[spreadHash(hashOf(ops[i] - 1)) & (first - 1)] < 9;
    }
    if (fits) {
      const mask = grownCapacity(first, ops.length) - 1;
      const values = ops.map((op) => op - 1);
      const buckets = values.map((value) => spreadHash(hashOf(value)) & mask);
      // A stable insertion sort by bucket: sets are small, and mostly in order already.
      for (let i = 1; i < values.length; i++) {
        const value = values[i];
        const bucket = buckets[i];
        let j = i - 1;
        while (j >= 0 && buckets[j] > bucket) {
          values[j + 1] = values[j];
          buckets[j + 1] = buckets[j];
          j--;
        }
        values[j + 1] = value;
        buckets[j + 1] = bucket;
      }
      return values;
    }
  }
  const table = new JavaHashTable(log.initialCapacity);
  const handles = new Map<number, number>();
  const valueOf: number[] = [];
  for (const op of ops) {
    if (op > 0) {
      const handle = table.insert(hashOf(op - 1));
      handles.set(op - 1, handle);
      valueOf[handle] = op - 1;
    } else {
      table.remove(handles.get(-op - 1) as number);
    }
  }
  return table.order().map((handle) => valueOf[handle]);
}

const identity = (value: number): number => value;

/**
 * Partitions added in ascending order spanning less than the first table (the usual share of a
 * topic) each have a bucket of their own, so Java's order is theirs rotated to where the bucket
 * index wraps; null when the ops are not such a run. Values stay below 65,536, where the hash is
 * the value itself.
 */
function ascendingRun(ops: readonly number[], first: number): number[] | null {
  const n = ops.length;
  if (n === 0 || ops[n - 1] > 65_536 || ops[n - 1] - ops[0] >= first) return null;
  for (let i = 1; i < n; i++) if (ops[i] <= ops[i - 1]) return null;
  const mask = grownCapacity(first, n) - 1;
  let wrap = 0;
  for (let i = 1; i < n && wrap === 0; i++) if (((ops[i] - 1) & mask) < ((ops[i - 1] - 1) & mask)) wrap = i;
  const values = new Array<number>(n);
  for (let k = 0; k < n; k++) values[k] = ops[(wrap + k) % n] - 1;
  return values;
}

const PUT = 0;
const COMPUTE = 1;
const REMOVE = 2;

/**
 * The member's `HashMap<Uuid, Set<Integer>>` of topics: its operations (op = topic * 4 + kind),
 * replayed at the end. Topics are added by `computeIfAbsent`, which orders a chain differently from
 * `put` (see JavaHashTable); a call that finds its topic matters only right after one that inserted.
 */
class TopicMapLog {
  readonly ops: number[] = [];
  private lastInserted = false;
  private distinct = 0;
  private removes = 0;
  private only = -1;

  constructor(readonly initialCapacity: number) {}

  put(topic: number): void {
    this.ops.push(topic * 4 + PUT);
    this.lastInserted = false;
    this.noteTopic(topic);
  }

  compute(topic: number, present: boolean): void {
    if (present && !this.lastInserted) return;
    this.ops.push(topic * 4 + COMPUTE);
    this.lastInserted = !present;
    if (!present) this.noteTopic(topic);
  }

  remove(topic: number): void {
    this.ops.push(topic * 4 + REMOVE);
    this.lastInserted = false;
    this.removes++;
  }

  order(hashOf: (topic: number) => number): number[] {
    if (this.removes === 0 && this.distinct <= 1) return this.distinct === 0 ? [] : [this.only];
    const table = new JavaHashTable(this.initialCapacity);
    const handles = new Map<number, number>();
    const topicOf: number[] = [];
    for (const op of this.ops) {
      const topic = op >>> 2;
      const kind = op & 3;
      if (kind === REMOVE) {
        table.remove(handles.get(topic) as number);
        handles.delete(topic);
      } else if (handles.has(topic)) {
        table.computeIfAbsentHit();
      } else {
        const handle = kind === PUT ? table.insert(hashOf(topic)) : table.computeIfAbsentInsert(hashOf(topic));
        handles.set(topic, handle);
        topicOf[handle] = topic;
      }
    }
    return table.order().map((handle) => topicOf[handle]);
  }

  private noteTopic(topic: number): void {
    if (this.distinct === 0 || (this.distinct === 1 && topic !== this.only)) {
      this.distinct++;
      this.only = topic;
    }
  }
}

export class AssignmentShape {
  private readonly map: TopicMapLog;
  private readonly sets = new Map<number, { log: TableLog; size: number }>();

  /** The deep copy of a member's current target (its entries in Java's order). */
  constructor(owned: readonly OwnedTopic[]) {
    this.map = new TopicMapLog(owned.length);
    for (const { topic, partitions } of owned) {
      const log = new TableLog(copyConstructorCapacity(partitions.length));
      for (const p of partitions) log.ops.push(p + 1);
      this.map.put(topic);
      this.sets.set(topic, { log, size: partitions.length });
    }
  }

  /** `computeIfAbsent(topic, __ -> new HashSet<>(capacity)).add(partition)`; undefined is `new HashSet<>()`. */
  add(topic: number, partition: number, newSetCapacity: number | undefined): void {
    let set = this.sets.get(topic);
    this.map.compute(topic, set !== undefined);
    if (set === undefined) {
      set = { log: new TableLog(newSetCapacity), size: 0 };
      this.sets.set(topic, set);
    }
    set.log.ops.push(partition + 1);
    set.size++;
  }

  /** Removes a partition, and the topic once its set is empty. */
  remove(topic: number, partition: number): void {
    const set = this.sets.get(topic);
    if (set === undefined) return;
    set.log.ops.push(-(partition + 1));
    set.log.removes++;
    if (--set.size === 0) this.removeTopic(topic);
  }

  removeTopic(topic: number): void {
    if (!this.sets.delete(topic)) return;
    this.map.remove(topic);
  }

  /** The result in Java's iteration order. */
  entries(topics: readonly ModelTopic[]): OwnedTopic[] {
    const order = this.map.order((topic) => topics[topic].idHash);
    return order.map((topic) => ({
      topic,
      partitions: iterate((this.sets.get(topic) as { log: TableLog }).log),
    }));
  }
}
