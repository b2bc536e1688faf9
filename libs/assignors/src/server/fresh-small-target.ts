/**
 * The new target of a member that held nothing and was changed a few times (a handful of topics, a
 * few dozen adds and removes: every member of a fresh heterogeneous group), in Java's order, worked out
 * in small scratch arrays instead of target-replay.ts's general bookkeeping. The same rules: the map
 * is `new HashMap<>(0)` grown by `computeIfAbsent` (which resizes before it looks and prepends a new
 * key), each set `new HashSet<>(capacity)` grown by adds (appended); Java walks buckets in turn, each
 * chain in order. Undefined — the general replay's case — when a set empties (its topic leaves the
 * map), the map takes eight topics or more, the log is long, or a chain of nine could have formed in
 * a small first table of a set (treeifyBin would have grown it).
 */
import type { TopicPartitions } from '@cohort/protocol';
import type { ModelTopic } from './group-model';
import {
  firstTableSize,
  grownCapacity,
  grownThreshold,
  MIN_TREEIFY_CAPACITY,
  tableSizeFor as importedTableSizeFor,
} from './java-hash-table';
import { ADD as LOG_ADD, REMOVE as LOG_REMOVE, type TargetLog } from './member-target-log';

// Bound once: under esbuild's CommonJS output (what tsx, and so npm run bench, runs) every use of an
// imported name is a getter call, which stays a call in the per-partition loops below.
const tableSizeFor = importedTableSizeFor;
const ADD = LOG_ADD;
const REMOVE = LOG_REMOVE;

const MAX_TOPICS = 7;
const MAX_EVENTS = 64;

// Per topic of the member's map, in the order the map took them.
const slotTopic = new Int32Array(MAX_TOPICS);
const slotInitial = new Int32Array(MAX_TOPICS);
const slotCapacity = new Int32Array(MAX_TOPICS);
const slotThreshold = new Int32Array(MAX_TOPICS);
const slotSize = new Int32Array(MAX_TOPICS);
const slotInserts = new Int32Array(MAX_TOPICS);
const slotBucket = new Int32Array(MAX_TOPICS);
const mapOrder = new Int32Array(MAX_TOPICS);
// Each insert into a set: its slot, partition, and whether it is still there.
const eventSlot = new Int32Array(MAX_EVENTS);
const eventPartition = new Int32Array(MAX_EVENTS);
const eventPresent = new Uint8Array(MAX_EVENTS);
const orderPartition = new Int32Array(MAX_EVENTS);
const orderBucket = new Int32Array(MAX_EVENTS);
const firstTableCounts = new Int32Array(MIN_TREEIFY_CAPACITY);

/** HashMap.hash() of an Integer or a Uuid's hashCode. */
function spread(h: number): number {
  return (h ^ (h >>> 16)) | 0;
}

function resizeSet(slot: number): void {
  const capacity = grownCapacity(slotCapacity[slot], slotThreshold[slot]);
  slotThreshold[slot] = grownThreshold(slotCapacity[slot], slotThreshold[slot], capacity);
  slotCapacity[slot] = capacity;
}

/** The event that holds `partition` in the slot's set now, or -1. */
function presentEvent(slot: number, partition: number, events: number): number {
  for (let e = 0; e < events; e++)
    if (eventPresent[e] === 1 && eventPartition[e] === partition && eventSlot[e] === slot) return e;
  return -1;
}

export function freshSmallTarget(
  log: TargetLog,
  member: number,
  topics: readonly ModelTopic[],
): TopicPartitions[] | undefined {
  let slots = 0;
  let events = 0;
  // new HashMap<>(0): no table yet, threshold tableSizeFor(0) = 1.
  let mapCapacity = 0;
  let mapThreshold = 1;
  const ops = log.ops;
  for (let op = log.head[member]; op !== -1; op = ops[op + 2]) {
    // An op's word, partition and next, side by side (member-target-log.ts).
    const word = ops[op];
    const topic = word >>> 2;
    const kind = word & 3;
    const partition = ops[op + 1];
    let slot = 0;
    while (slot < slots && slotTopic[slot] !== topic) slot++;
    if (kind === ADD) {
      // computeIfAbsent resizes before it looks, hit or miss.
      if (slots > mapThreshold || mapCapacity === 0) {
        const capacity = grownCapacity(mapCapacity, mapThreshold);
        mapThreshold = grownThreshold(mapCapacity, mapThreshold, capacity);
        mapCapacity = capacity;
      }
      if (slot === slots) {
        if (slots === MAX_TOPICS) return undefined;
        const initial = log.newSetCapacity[topic];
        slotTopic[slot] = topic;
        slotInitial[slot] = initial;
        slotCapacity[slot] = 0;
        slotThreshold[slot] = initial < 0 ? 0 : tableSizeFor(initial);
        slotSize[slot] = 0;
        slotInserts[slot] = 0;
        slots++;
      }
      if (presentEvent(slot, partition, events) !== -1) continue;
      if (events === MAX_EVENTS) return undefined;
      eventSlot[events] = slot;
      eventPartition[events] = partition;
      eventPresent[events++] = 1;
      // HashSet.add of a new element: a table made first, then grown once past its threshold.
      if (slotCapacity[slot] === 0) resizeSet(slot);
      if (++slotSize[slot] > slotThreshold[slot]) resizeSet(slot);
      slotInserts[slot]++;
    } else {
      if (slot === slots) continue;
      if (kind !== REMOVE) return undefined;
      const event = presentEvent(slot, partition, events);
      if (event === -1) continue;
      eventPresent[event] = 0;
      if (--slotSize[slot] === 0) return undefined;
    }
  }
  for (let slot = 0; slot < slots; slot++) if (treeifyRisk(slot, events)) return undefined;

  // The map: by bucket, then chain position (a later computeIfAbsent insert comes first).
  const mapMask = mapCapacity - 1;
  for (let slot = 0; slot < slots; slot++) {
    const bucket = spread(topics[slotTopic[slot]].idHash) & mapMask;
    slotBucket[slot] = bucket;
    let j = slot - 1;
    for (; j >= 0 && slotBucket[mapOrder[j]] >= bucket; j--) mapOrder[j + 1] = mapOrder[j];
    mapOrder[j + 1] = slot;
  }
  const entries = new Array<TopicPartitions>(slots);
  for (let i = 0; i < slots; i++) {
    const slot = mapOrder[i];
    const mask = slotCapacity[slot] - 1;
    // The set: by bucket, then insertion (a stable insertion sort, sets are small).
    let n = 0;
    for (let e = 0; e < events; e++) {
      if (eventSlot[e] !== slot || eventPresent[e] === 0) continue;
      const partition = eventPartition[e];
      const bucket = spread(partition) & mask;
      let j = n - 1;
      for (; j >= 0 && orderBucket[j] > bucket; j--) {
        orderBucket[j + 1] = orderBucket[j];
        orderPartition[j + 1] = orderPartition[j];
      }
      orderBucket[j + 1] = bucket;
      orderPartition[j + 1] = partition;
      n++;
    }
    const partitions = new Array<number>(n);
    for (let k = 0; k < n; k++) partitions[k] = orderPartition[k];
    entries[i] = { topic: topics[slotTopic[slot]].name, partitions };
  }
  return entries;
}

/** Whether nine inserts into the slot's set share a bucket of its first table (a small one, < 64). */
function treeifyRisk(slot: number, events: number): boolean {
  if (slotInserts[slot] < 9) return false;
  const first = firstTableSize(slotInitial[slot]);
  if (first >= MIN_TREEIFY_CAPACITY) return false;
  firstTableCounts.fill(0, 0, first);
  for (let e = 0; e < events; e++)
    if (eventSlot[e] === slot && ++firstTableCounts[spread(eventPartition[e]) & (first - 1)] >= 9) return true;
  return false;
}
