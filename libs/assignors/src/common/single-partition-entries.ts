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
 * A result whose entries all hold one partition has the pool make a topic's missing entries in one
 * loop (fill()) before it hands any out. On a process's first call, with the pool empty, making them
 * is most of the call's cost, and much of that is the young generation's collector copying them,
 * since every one survives. Two choices made that first call cheaper when measured (1,000,000
 * partitions, 2,000 members): a new topic's slots are allocated at their final length in one step
 * (slots(topic, count)) rather than grown by setting their length, and the members' lists are
 * allocated before the entries rather than after them. The order is a measurement, not a rule: how
 * much the collector copies is up to V8's heuristics (its young generation grows as objects survive
 * it, and only at full size does it allocate a site's survivors directly in the old generation).
 */
import type { TopicPartitions } from '@cohort/protocol';
import { MAX_PRESIZED_LIST } from './group-input';

export type SinglePartitionSlots = (TopicPartitions | undefined)[];

/** About 100 MB of entries at most (an entry with its slot is ~48 bytes). */
export const DEFAULT_SINGLE_PARTITION_POOL_CAPACITY = 1 << 21;

export class SinglePartitionPool {
  private pooled = 0;
  private slotsByTopic = new Map<string, SinglePartitionSlots>();
  /** One frozen `[p]` per partition number, shared by every topic's entry for p. */
  private partitionArrays: (number[] | undefined)[] = [];
  /** Slots known to hold the entries of partitions 0 to n - 1 (fill() made them so; entries are never removed). */
  private readonly complete = new WeakMap<SinglePartitionSlots, number>();

  constructor(private readonly capacity = DEFAULT_SINGLE_PARTITION_POOL_CAPACITY) {}

  /**
   * The pool's slots for a topic: slots[p] is the entry for partition p once created. Hot loops read
   * the slots directly and call entry() only on a miss. `count`: the topic's partition count, when
   * the caller will fill() them all; a topic new to the pool gets its slots at that length at once.
   */
  slots(topic: string, count = 0): SinglePartitionSlots {
    let slots = this.slotsByTopic.get(topic);
    if (slots === undefined) {
      // One allocation at the final length, rather than an empty list that fill() then lengthens
      // (the length setter allocates again, through a call into the engine's runtime).
      slots = count > 0 && count <= MAX_PRESIZED_LIST ? new Array<TopicPartitions | undefined>(count) : [];
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
   * Makes the entries of partitions 0 to count - 1 of a topic that `slots` (what slots(topic) returned)
   * lacks. Returns false, making none, when the topic alone would take more than half the pool (the
   * caller then asks entry() per partition).
   */
  fill(slots: SinglePartitionSlots, topic: string, count: number): boolean {
    const known = this.complete.get(slots) ?? 0;
    if (known >= count) return true;
    if (2 * count > this.capacity) return false;
    if (this.pooled + 2 * count > this.capacity) this.reset();
    // Allocated once at its final length rather than grown: the copies growth leaves behind fill the
    // young generation and bring its next collection sooner.
    if (slots.length < count && count <= MAX_PRESIZED_LIST) slots.length = count;
    const arrays = this.partitionArrays;
    let created = 0;
    for (let p = known; p < count; p++) {
      if (slots[p] !== undefined) continue;
      let partitions = arrays[p];
      if (partitions === undefined) {
        partitions = Object.freeze([p]) as number[];
        arrays[p] = partitions;
        created++;
      }
      slots[p] = Object.freeze({ topic, partitions });
      created++;
    }
    this.pooled += created;
    this.complete.set(slots, count);
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
