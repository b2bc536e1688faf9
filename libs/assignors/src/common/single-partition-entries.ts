/**
 * Shared, frozen one-partition entries (`{ topic, partitions: [p] }`) for assignment results.
 *
 * Large groups get most of their partitions one per topic: a fresh uniform group of 2,000 members
 * over 500 topics × 2,000 partitions gives member m partition m of every topic, so one result holds
 * 1,000,000 such entries. Allocating them anew per call cost more than the assignment algorithm
 * itself (V8 allocates them, then copies or marks them as survivors), and a coordinator keeps several
 * generations of results alive at once. Java avoids this with immutable TopicPartition objects; this
 * is the same idea: an entry is created once per (topic, partition), frozen, and handed to every
 * result that needs it, across calls and assignors. Frozen means no caller can change one result
 * through another; a caller that wants to edit an entry copies it first.
 *
 * The pool is bounded: once it holds `capacity` objects it is dropped and starts again. Results
 * already returned keep their entries; only sharing with later results is lost.
 *
 * A result whose entries all hold one partition fills a topic's slots in one loop (handOut()), which on
 * a process's first call, with the pool empty, is most of the result's cost: one small loop the JIT
 * compiles early instead of a call per partition from the caller's loop.
 */
import type { TopicPartitions } from '@cohort/protocol';

export type SinglePartitionSlots = (TopicPartitions | undefined)[];

/** About 100 MB of entries at most (an entry with its slot is ~48 bytes). */
export const DEFAULT_SINGLE_PARTITION_POOL_CAPACITY = 1 << 21;

export class SinglePartitionPool {
  private pooled = 0;
  private slotsByTopic = new Map<string, SinglePartitionSlots>();
  /** One frozen `[p]` per partition number, shared by every topic's entry for p. */
  private partitionArrays: (number[] | undefined)[] = [];
  /** Slots known to hold the entries of partitions 0 to n - 1 (handOut() made them so; entries are never removed). */
  private readonly complete = new WeakMap<SinglePartitionSlots, number>();

  constructor(private readonly capacity = DEFAULT_SINGLE_PARTITION_POOL_CAPACITY) {}

  /**
   * The pool's slots for a topic: slots[p] is the entry for partition p once created. Hot loops read
   * the slots directly and call entry() only on a miss.
   */
  slots(topic: string): SinglePartitionSlots {
    let slots = this.slotsByTopic.get(topic);
    if (slots === undefined) {
      slots = [];
      this.slotsByTopic.set(topic, slots);
    }
    return slots;
  }

  /** The shared entry for (topic, partition); `slots` must be what slots(topic) returned. */
  entry(slots: SinglePartitionSlots, topic: string, partition: number): TopicPartitions {
    const found = slots[partition];
    if (found !== undefined) return found;
    if (this.pooled >= this.capacity) this.reset();
    let partitions = this.partitionArrays[partition];
    if (partitions === undefined) {
      partitions = Object.freeze([partition]) as number[];
      this.partitionArrays[partition] = partitions;
      this.pooled++;
    }
    const entry: TopicPartitions = Object.freeze({ topic, partitions });
    // After a reset the caller's slots are no longer pooled; filling them still shares the entry
    // within the caller's own result.
    slots[partition] = entry;
    this.pooled++;
    return entry;
  }

  /**
   * Appends the entry of every partition p below `count` that has an owner m (owner[base + p] >= 0)
   * to lists[m], at filled[m], making the entries the pool lacks as it goes: a result whose entries
   * all hold one partition needs the entries of (nearly) every partition of a topic, and on a
   * process's first call, with the pool empty, one tight loop that makes and hands out the entries
   * compiles and runs much sooner than a call per partition from the caller's loop, or than a loop
   * that makes them and another that hands them out. Returns false, handing out nothing, when the
   * topic alone would take more than half the pool (the caller then asks entry() per partition).
   */
  handOut(
    slots: SinglePartitionSlots,
    topic: string,
    count: number,
    owner: Int32Array,
    base: number,
    lists: TopicPartitions[][],
    filled: Int32Array,
  ): boolean {
    const known = this.complete.get(slots) ?? 0;
    if (known < count) {
      if (2 * count > this.capacity) return false;
      if (this.pooled + 2 * count > this.capacity) this.reset();
    }
    const arrays = this.partitionArrays;
    let created = 0;
    for (let p = 0; p < count; p++) {
      let entry = slots[p];
      if (entry === undefined) {
        let partitions = arrays[p];
        if (partitions === undefined) {
          partitions = Object.freeze([p]) as number[];
          arrays[p] = partitions;
          created++;
        }
        entry = Object.freeze({ topic, partitions });
        slots[p] = entry;
        created++;
      }
      const m = owner[base + p];
      if (m >= 0) lists[m][filled[m]++] = entry;
    }
    this.pooled += created;
    if (known < count) this.complete.set(slots, count);
    return true;
  }

  /** Objects held: entries plus shared partition arrays. */
  get size(): number {
    return this.pooled;
  }

  private reset(): void {
    this.slotsByTopic = new Map();
    this.partitionArrays = [];
    this.pooled = 0;
  }
}

/** The pool every built-in assignor's results draw from. */
export const singlePartitionPool = new SinglePartitionPool();
