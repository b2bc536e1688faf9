/**
 * A changed member's new target, read back from its TargetLog in the order Java iterates it: the order
 * of the target's record, and so the order the next computation walks it in.
 *
 * A Java hash table walks its buckets in turn, each bucket's chain in order; a resize splits chains
 * without reordering them, a removal unlinks one node, `put` appends to its chain and
 * `computeIfAbsent` prepends. So the order is fixed by the final table size and a position per key:
 * appends take increasing positions, prepends decreasing negative ones, and keys sort by (bucket,
 * position). The table size follows from the inserts and removes alone — counted here exactly as
 * HashMap does, no chains kept — unless a chain grows long enough for `treeifyBin` to resize a small
 * table instead; a table where that could happen (a map of eight topics or more, a set with nine
 * partitions in one bucket of its first table) is replayed through JavaHashTable instead.
 */
import type { TopicPartitions } from '@cohort/protocol';
import { grownInt32 } from '../common/grown-int32';
import { spreadHash as importedSpreadHash } from '../common/java-order';
import {
  copyConstructorCapacity as importedCopyCapacity,
  firstTableSize,
  grownCapacity,
  grownThreshold,
  MIN_TREEIFY_CAPACITY,
  tableSizeFor as importedTableSizeFor,
} from './java-hash-table';
import type { ModelTopic, OwnedTopic } from './group-model';
import { ADD as LOG_ADD, REMOVE as LOG_REMOVE, type TargetLog } from './member-target-log';
import { MAP_COMPUTE, MAP_PUT, MAP_REMOVE, replayPartitionSet, replayTopicMap } from './target-table-replay';

// Bound once (under esbuild's CommonJS output, which tsx runs, each use of an imported name is a getter
// call): what the per-partition loops below call. What runs per table or per resize is used as imported.
const spreadHash = importedSpreadHash;
const tableSizeFor = importedTableSizeFor;
const copyConstructorCapacity = importedCopyCapacity;
const ADD = LOG_ADD;
const REMOVE = LOG_REMOVE;

/** Fewer inserts than this into one table can make no chain long enough for treeifyBin. */
const MAP_SAFE_INSERTS = 8;
const SET_SAFE_INSERTS = 9;

export class TargetReplay {
  private readonly slotOfTopic: Int32Array;
  /** Per topic, per partition: the add event that put it in its topic's live set, or -1. */
  private readonly marks: (Int32Array | null)[];

  // One partition set of the member's map per slot (a topic's set, or a later one after it emptied).
  private slots = 0;
  private slotTopic = new Int32Array(8);
  private slotInitial = new Int32Array(8);
  private slotCapacity = new Int32Array(8);
  private slotThreshold = new Int32Array(8);
  private slotSize = new Int32Array(8);
  private slotInserts = new Int32Array(8);
  private slotKey = new Int32Array(8);
  private slotBucket = new Int32Array(8);
  private slotAlive = new Uint8Array(8);
  private slotEventStart = new Int32Array(9);
  /** The live slots in Java's order of the map (mapOrder's answer, reused member after member). */
  private liveSlots = new Int32Array(8);

  // The set operations, in order: slot, partition, add (1) or remove (0).
  private events = 0;
  private eventSlot = new Int32Array(64);
  private eventPartition = new Int32Array(64);
  private eventAdd = new Uint8Array(64);
  private bySlot = new Int32Array(64);

  // The map: counted as HashMap counts, plus its operations for a replay (topic * 4 + kind).
  private mapCapacity = 0;
  private mapThreshold = 0;
  private mapSize = 0;
  private mapInserts = 0;
  private mapSequence = 1;
  private mapInitial = 0;
  private mapEvents = 0;
  private mapEvent = new Int32Array(16);

  private orderPartition = new Int32Array(64);
  private orderBucket = new Int32Array(64);
  private orderKeys = new Float64Array(64);
  private readonly firstTableCounts = new Int32Array(MIN_TREEIFY_CAPACITY);

  constructor(
    private readonly topics: readonly ModelTopic[],
    private readonly log: TargetLog,
    /** Per topic, the number of the member whose current target holds each partition (-1: none). */
    private readonly originalOwners: readonly (Int32Array | null)[] | null,
    /** Per member index, its number in `originalOwners` (GroupModel.ownerIds); absent: its index. */
    private readonly ownerIds?: Int32Array,
  ) {
    this.slotOfTopic = new Int32Array(topics.length).fill(-1);
    this.marks = new Array<Int32Array | null>(topics.length).fill(null);
  }

  /** The member's new target in Java's order, or null when it holds what `owned` holds. */
  replay(member: number, owned: readonly OwnedTopic[]): TopicPartitions[] | null {
    this.slots = 0;
    this.events = 0;
    this.mapEvents = 0;
    this.mapSequence = 1;
    this.mapCapacity = 0;
    this.mapInitial = owned.length;
    this.mapThreshold = tableSizeFor(owned.length);
    this.mapSize = 0;
    this.mapInserts = 0;
    let ownedCount = 0;
    // The deep copy: new HashMap<>(size), put of each topic with new HashSet<>(set).
    for (let i = 0; i < owned.length; i++) {
      const { topic, partitions } = owned[i];
      ownedCount += partitions.length;
      const previous = this.slotOfTopic[topic];
      let slot: number;
      if (previous === -1) {
        if (this.mapCapacity === 0) this.resizeMap();
        this.recordMap(topic, MAP_PUT);
        slot = this.newSlot(topic, copyConstructorCapacity(partitions.length));
        this.slotKey[slot] = this.mapSequence++;
        this.mapInserts++;
        if (++this.mapSize > this.mapThreshold) this.resizeMap();
      } else {
        // A record naming a topic twice: the second put replaces the set, the key keeps its place.
        this.recordMap(topic, MAP_PUT);
        this.slotAlive[previous] = 0;
        slot = this.newSlot(topic, copyConstructorCapacity(partitions.length));
        this.slotKey[slot] = this.slotKey[previous];
      }
      for (let k = 0; k < partitions.length; k++) this.addToSet(slot, topic, partitions[k]);
    }
    const log = this.log;
    const ops = log.ops;
    // An op's word, partition and next, side by side (member-target-log.ts).
    for (let op = log.head[member]; op !== -1; op = ops[op + 2]) {
      const word = ops[op];
      const topic = word >>> 2;
      const kind = word & 3;
      if (kind === ADD) {
        // computeIfAbsent resizes before it looks, hit or miss.
        if (this.mapSize > this.mapThreshold || this.mapCapacity === 0) this.resizeMap();
        this.recordMap(topic, MAP_COMPUTE);
        let slot = this.slotOfTopic[topic];
        if (slot === -1) {
          slot = this.newSlot(topic, log.newSetCapacity[topic]);
          this.slotKey[slot] = -this.mapSequence++;
          this.mapSize++;
          this.mapInserts++;
        }
        this.addToSet(slot, topic, ops[op + 1]);
      } else {
        const slot = this.slotOfTopic[topic];
        if (slot === -1) continue;
        if (kind === REMOVE && !(this.removeFromSet(slot, topic, ops[op + 1]) && this.slotSize[slot] === 0)) continue;
        this.slotAlive[slot] = 0;
        this.slotOfTopic[topic] = -1;
        this.mapSize--;
        this.recordMap(topic, MAP_REMOVE);
      }
    }
    const result = this.finish(member, ownedCount);
    this.reset();
    return result;
  }

  private finish(member: number, ownedCount: number): TopicPartitions[] | null {
    this.groupEventsBySlot();
    const count = this.mapOrder();
    const order = this.liveSlots;
    const entries: TopicPartitions[] = new Array(count);
    const owners = this.originalOwners;
    const ownerId = this.ownerIds === undefined ? member : this.ownerIds[member];
    let same = true;
    let present = 0;
    for (let i = 0; i < count; i++) {
      const slot = order[i];
      const topic = this.slotTopic[slot];
      const marks = this.marks[topic] as Int32Array;
      const topicOwners = owners === null ? null : owners[topic];
      const mask = this.slotCapacity[slot] - 1;
      let n = 0;
      let sorted = true;
      for (let k = this.slotEventStart[slot]; k < this.slotEventStart[slot + 1]; k++) {
        const event = this.bySlot[k];
        const partition = this.eventPartition[event];
        if (this.eventAdd[event] === 0 || marks[partition] !== event) continue;
        if (same && (topicOwners === null || topicOwners[partition] !== ownerId)) same = false;
        const bucket = spreadHash(partition) & mask;
        if (n > 0 && bucket < this.orderBucket[n - 1]) sorted = false;
        this.orderPartition[n] = partition;
        this.orderBucket[n] = bucket;
        n++;
      }
      present += n;
      entries[i] = { topic: this.topics[topic].name, partitions: this.setOrder(slot, n, sorted) };
    }
    return same && present === ownedCount ? null : entries;
  }

  /** The live slots in the order Java walks the member's map, into liveSlots: returns their count. */
  private mapOrder(): number {
    if (this.liveSlots.length < this.slots) this.liveSlots = new Int32Array(this.slotTopic.length);
    const live = this.liveSlots;
    if (this.mapInserts >= MAP_SAFE_INSERTS) {
      const topics = replayTopicMap(
        this.mapInitial,
        this.mapEvent,
        this.mapEvents,
        (topic) => this.topics[topic].idHash,
      );
      for (let i = 0; i < topics.length; i++) live[i] = this.slotOfTopic[topics[i]];
      return topics.length;
    }
    let count = 0;
    const mask = this.mapCapacity - 1;
    // Slots in creation order; each placed by (bucket, chain position), an insertion sort (few topics).
    for (let slot = 0; slot < this.slots; slot++) {
      if (this.slotAlive[slot] === 0) continue;
      const bucket = spreadHash(this.topics[this.slotTopic[slot]].idHash) & mask;
      const key = this.slotKey[slot];
      this.slotBucket[slot] = bucket;
      let j = count - 1;
      for (; j >= 0; j--) {
        const other = live[j];
        if (this.slotBucket[other] < bucket || (this.slotBucket[other] === bucket && this.slotKey[other] < key)) break;
        live[j + 1] = other;
      }
      live[j + 1] = slot;
      count++;
    }
    return count;
  }

  /** The slot's n present partitions (in orderPartition, by add) in Java's order. */
  private setOrder(slot: number, n: number, sorted: boolean): number[] {
    const partitions = new Array<number>(n);
    if (this.slotInserts[slot] >= SET_SAFE_INSERTS && this.treeifyRisk(slot)) return this.replaySet(slot);
    if (this.slotCapacity[slot] * n > 2 ** 52) return this.replaySet(slot);
    if (sorted) {
      for (let k = 0; k < n; k++) partitions[k] = this.orderPartition[k];
      return partitions;
    }
    if (n <= 32) {
      // A stable insertion sort by bucket: sets are small, and mostly in order already.
      const bucketOf = this.orderBucket;
      const partitionOf = this.orderPartition;
      for (let i = 1; i < n; i++) {
        const bucket = bucketOf[i];
        const partition = partitionOf[i];
        let j = i - 1;
        for (; j >= 0 && bucketOf[j] > bucket; j--) {
          bucketOf[j + 1] = bucketOf[j];
          partitionOf[j + 1] = partitionOf[j];
        }
        bucketOf[j + 1] = bucket;
        partitionOf[j + 1] = partition;
      }
      for (let k = 0; k < n; k++) partitions[k] = partitionOf[k];
      return partitions;
    }
    // A stable sort by bucket: distinct keys bucket * n + position, sorted natively.
    if (this.orderKeys.length < n) this.orderKeys = new Float64Array(Math.max(n, this.orderKeys.length * 2));
    const keys = this.orderKeys.subarray(0, n);
    for (let k = 0; k < n; k++) keys[k] = this.orderBucket[k] * n + k;
    keys.sort();
    for (let k = 0; k < n; k++) partitions[k] = this.orderPartition[keys[k] % n];
    return partitions;
  }

  private replaySet(slot: number): number[] {
    const from = this.slotEventStart[slot];
    const to = this.slotEventStart[slot + 1];
    return replayPartitionSet(this.slotInitial[slot], this.bySlot, from, to, this.eventAdd, this.eventPartition);
  }

  /** Whether nine adds of the slot share a bucket of its first table (a small one, < 64). */
  private treeifyRisk(slot: number): boolean {
    const first = firstTableSize(this.slotInitial[slot]);
    if (first >= MIN_TREEIFY_CAPACITY) return false;
    const counts = this.firstTableCounts;
    counts.fill(0);
    for (let k = this.slotEventStart[slot]; k < this.slotEventStart[slot + 1]; k++) {
      const event = this.bySlot[k];
      if (this.eventAdd[event] === 1 && ++counts[spreadHash(this.eventPartition[event]) & (first - 1)] >= 9)
        return true;
    }
    return false;
  }

  private groupEventsBySlot(): void {
    if (this.slots === 1) {
      // One set: the events in order.
      if (this.bySlot.length < this.events) this.bySlot = new Int32Array(this.eventSlot.length);
      for (let e = 0; e < this.events; e++) this.bySlot[e] = e;
      this.slotEventStart[0] = 0;
      this.slotEventStart[1] = this.events;
      return;
    }
    if (this.slotEventStart.length < this.slots + 1) this.slotEventStart = new Int32Array(this.slotTopic.length + 1);
    if (this.bySlot.length < this.events) this.bySlot = new Int32Array(this.eventSlot.length);
    const start = this.slotEventStart;
    start.fill(0, 0, this.slots + 1);
    for (let e = 0; e < this.events; e++) start[this.eventSlot[e] + 1]++;
    for (let s = 0; s < this.slots; s++) start[s + 1] += start[s];
    for (let e = 0; e < this.events; e++) this.bySlot[start[this.eventSlot[e]]++] = e;
    for (let s = this.slots; s > 0; s--) start[s] = start[s - 1];
    start[0] = 0;
  }

  private newSlot(topic: number, initialCapacity: number): number {
    if (this.slots === this.slotTopic.length) this.growSlots();
    const slot = this.slots++;
    this.slotTopic[slot] = topic;
    this.slotInitial[slot] = initialCapacity;
    this.slotCapacity[slot] = 0;
    this.slotThreshold[slot] = initialCapacity < 0 ? 0 : tableSizeFor(initialCapacity);
    this.slotSize[slot] = 0;
    this.slotInserts[slot] = 0;
    this.slotAlive[slot] = 1;
    this.slotOfTopic[topic] = slot;
    if (this.marks[topic] === null) this.marks[topic] = new Int32Array(this.topics[topic].partitions).fill(-1);
    return slot;
  }

  /** HashSet.add: nothing if present; else appended, with put's resizes. */
  private addToSet(slot: number, topic: number, partition: number): void {
    const marks = this.marks[topic] as Int32Array;
    const mark = marks[partition];
    if (mark !== -1 && this.eventSlot[mark] === slot) return;
    marks[partition] = this.pushEvent(slot, partition, 1);
    if (this.slotCapacity[slot] === 0) this.resizeSet(slot);
    if (++this.slotSize[slot] > this.slotThreshold[slot]) this.resizeSet(slot);
    this.slotInserts[slot]++;
  }

  private removeFromSet(slot: number, topic: number, partition: number): boolean {
    const marks = this.marks[topic] as Int32Array;
    const mark = marks[partition];
    if (mark === -1 || this.eventSlot[mark] !== slot) return false;
    this.pushEvent(slot, partition, 0);
    marks[partition] = -1;
    this.slotSize[slot]--;
    return true;
  }

  private resizeSet(slot: number): void {
    const capacity = this.slotCapacity[slot];
    const grown = grownCapacity(capacity, this.slotThreshold[slot]);
    this.slotThreshold[slot] = grownThreshold(capacity, this.slotThreshold[slot], grown);
    this.slotCapacity[slot] = grown;
  }

  private resizeMap(): void {
    const capacity = this.mapCapacity;
    const grown = grownCapacity(capacity, this.mapThreshold);
    this.mapThreshold = grownThreshold(capacity, this.mapThreshold, grown);
    this.mapCapacity = grown;
  }

  private pushEvent(slot: number, partition: number, add: number): number {
    if (this.events === this.eventSlot.length) {
      this.eventSlot = grownInt32(this.eventSlot);
      this.eventPartition = grownInt32(this.eventPartition);
      const adds = new Uint8Array(this.eventSlot.length);
      adds.set(this.eventAdd);
      this.eventAdd = adds;
      this.orderPartition = new Int32Array(this.eventSlot.length);
      this.orderBucket = new Int32Array(this.eventSlot.length);
    }
    const event = this.events++;
    this.eventSlot[event] = slot;
    this.eventPartition[event] = partition;
    this.eventAdd[event] = add;
    return event;
  }

  private recordMap(topic: number, kind: number): void {
    if (this.mapEvents === this.mapEvent.length) this.mapEvent = grownInt32(this.mapEvent);
    this.mapEvent[this.mapEvents++] = topic * 4 + kind;
  }

  private growSlots(): void {
    const size = this.slotTopic.length * 2;
    this.slotTopic = grownInt32(this.slotTopic, size);
    this.slotInitial = grownInt32(this.slotInitial, size);
    this.slotCapacity = grownInt32(this.slotCapacity, size);
    this.slotThreshold = grownInt32(this.slotThreshold, size);
    this.slotSize = grownInt32(this.slotSize, size);
    this.slotInserts = grownInt32(this.slotInserts, size);
    this.slotKey = grownInt32(this.slotKey, size);
    this.slotBucket = grownInt32(this.slotBucket, size);
    const alive = new Uint8Array(size);
    alive.set(this.slotAlive);
    this.slotAlive = alive;
  }

  private reset(): void {
    for (let e = 0; e < this.events; e++)
      if (this.eventAdd[e] === 1)
        (this.marks[this.slotTopic[this.eventSlot[e]]] as Int32Array)[this.eventPartition[e]] = -1;
    for (let s = 0; s < this.slots; s++) this.slotOfTopic[this.slotTopic[s]] = -1;
  }
}
