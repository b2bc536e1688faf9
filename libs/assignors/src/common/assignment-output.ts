/**
 * Turns an owner array (partition id → member index, -1 for none) into the libs/assignors/README.md result: an entry
 * for every member, partitions grouped by topic, topics and partitions ascending. Kafka's lists have
 * no meaningful order (consumers turn them into sets), so a canonical order costs nothing and makes
 * results easy to compare.
 *
 * The `{ topic, partitions }` entries are frozen; one-partition entries are shared between results
 * (single-partition-entries.ts). Each member's list and the result object itself are new per call.
 */
import type { MemberAssignment, TopicPartitions } from '@cohort/protocol';
import type { GroupInput, GroupMember, GroupTopics } from './group-input';
import { prototypeKeys, setOwn } from './own-property';
import { singlePartitionPool, type SinglePartitionPool, type SinglePartitionSlots } from './single-partition-entries';

export function assignmentFromOwners(
  input: GroupInput,
  owner: Int32Array,
  pool: SinglePartitionPool = singlePartitionPool,
): Record<string, MemberAssignment> {
  const { members, topics } = input;
  // Each member's list is allocated at its final length (growing 2,000 lists by push at this scale
  // makes garbage several times their size): count the topics each member gets partitions of.
  // The steps are functions of their own and this one has no loop: it runs once per call, so it
  // stays cheap to compile while the loops are compiled on their own as they get hot.
  const entries = new Int32Array(members.length);
  const single = countEntries(owner, topics.base, entries);
  // Every entry holds one partition (a balanced group with at least as many members as a topic has
  // partitions, the large groups' usual shape): each is the pool's, and the pool makes the ones it
  // lacks, topic by topic, before any is handed out. The lists are allocated before that: on a
  // process's first call, with the pool empty, that order costs less (single-partition-entries.ts).
  const lists = presizedLists(entries);
  const filled = new Int32Array(members.length);
  const slotsOf = single ? pooledSlots(topics, pool) : null;
  if (slotsOf !== null) handOutPooled(owner, topics.base, slotsOf, lists, filled);
  else handOutAll(owner, topics, pool, lists, filled);
  return resultOf(members, lists);
}

/**
 * entries[m] += the number of topics member m gets partitions of. Returns whether every entry will
 * hold one partition (no member gets two partitions of one topic).
 */
function countEntries(owner: Int32Array, base: Int32Array, entries: Int32Array): boolean {
  const lastTopic = new Int32Array(entries.length).fill(-1);
  // A flag rather than totals of partitions and entries compared at the end: this runs once per
  // partition, often on a process's first call, and the fewer steps it takes the sooner it is done.
  let single = true;
  for (let t = 0; t < base.length - 1; t++) {
    const end = base[t + 1];
    for (let id = base[t]; id < end; id++) {
      const m = owner[id];
      if (m < 0) continue;
      if (lastTopic[m] !== t) {
        lastTopic[m] = t;
        entries[m]++;
      } else {
        single = false;
      }
    }
  }
  return single;
}

function presizedLists(entries: Int32Array): TopicPartitions[][] {
  const lists: TopicPartitions[][] = new Array(entries.length);
  for (let m = 0; m < entries.length; m++) lists[m] = new Array<TopicPartitions>(entries[m]);
  return lists;
}

function resultOf(members: readonly GroupMember[], lists: TopicPartitions[][]): Record<string, MemberAssignment> {
  const result: Record<string, MemberAssignment> = {};
  const inherited = prototypeKeys();
  for (let m = 0; m < members.length; m++) {
    const memberId = members[m].memberId;
    const assignment = { partitions: lists[m] };
    if (inherited.has(memberId)) setOwn(result, memberId, assignment);
    else result[memberId] = assignment;
  }
  return result;
}

/** Each topic's pooled slots, every entry made; null when a topic is too large for the pool. */
function pooledSlots(topics: GroupTopics, pool: SinglePartitionPool): SinglePartitionSlots[] | null {
  const slotsOf = new Array<SinglePartitionSlots>(topics.names.length);
  for (let t = 0; t < topics.names.length; t++) {
    const topic = topics.names[t];
    const slots = pool.slots(topic, topics.counts[t]);
    if (!pool.fill(slots, topic, topics.counts[t])) return null;
    slotsOf[t] = slots;
  }
  return slotsOf;
}

/** Appends each owned partition's pooled entry to its owner's list, topic by topic. */
function handOutPooled(
  owner: Int32Array,
  base: Int32Array,
  slotsOf: SinglePartitionSlots[],
  lists: TopicPartitions[][],
  filled: Int32Array,
): void {
  for (let t = 0; t < slotsOf.length; t++) handOutPooledTopic(owner, base[t], base[t + 1], slotsOf[t], lists, filled);
}

/** One topic of handOutPooled: a loop of its own, compiled early on a process's first call. */
function handOutPooledTopic(
  owner: Int32Array,
  start: number,
  end: number,
  slots: SinglePartitionSlots,
  lists: TopicPartitions[][],
  filled: Int32Array,
): void {
  for (let id = start; id < end; id++) {
    const m = owner[id];
    if (m >= 0) lists[m][filled[m]++] = slots[id - start] as TopicPartitions;
  }
}

/** Any shape: one-partition entries from the pool, runs of partitions in entries of their own. */
function handOutAll(
  owner: Int32Array,
  topics: GroupTopics,
  pool: SinglePartitionPool,
  lists: TopicPartitions[][],
  filled: Int32Array,
): void {
  const memberCount = lists.length;
  const scratch: TopicScratch = {
    first: new Int32Array(memberCount).fill(-1),
    runs: new Array(memberCount),
    touched: new Int32Array(memberCount),
  };
  for (let t = 0; t < topics.names.length; t++)
    handOutTopic(owner, topics.names[t], topics.base[t], topics.counts[t], pool, lists, filled, scratch);
}

/**
 * One topic, any shape. A member's first partition waits in `first` and a second one opens a run;
 * when the topic ends, each member that got something there gets one entry. Walking in partition
 * order keeps memory access sequential, which at a million partitions matters more than anything.
 */
function handOutTopic(
  owner: Int32Array,
  topic: string,
  base: number,
  count: number,
  pool: SinglePartitionPool,
  lists: TopicPartitions[][],
  filled: Int32Array,
  scratch: TopicScratch,
): void {
  const { first, runs, touched } = scratch;
  let touchedCount = 0;
  for (let p = 0; p < count; p++) {
    const m = owner[base + p];
    if (m < 0) continue;
    if (first[m] < 0) {
      first[m] = p;
      touched[touchedCount++] = m;
    } else {
      const run = runs[m];
      if (run === undefined) runs[m] = [first[m], p];
      else run.push(p);
    }
  }
  if (touchedCount === 0) return;
  const slots = pool.slots(topic);
  for (let k = 0; k < touchedCount; k++) {
    const m = touched[k];
    const run = runs[m];
    if (run === undefined) {
      const p = first[m];
      // The pooled entry is read here rather than through a call: this runs once per partition.
      lists[m][filled[m]++] = slots[p] ?? pool.entry(slots, topic, p);
    } else {
      lists[m][filled[m]++] = Object.freeze({ topic, partitions: Object.freeze(run) as number[] });
      runs[m] = undefined;
    }
    first[m] = -1;
  }
}

/** Per-member state of handOutTopic, reset as each topic ends and reused for the next. */
interface TopicScratch {
  /** The member's first partition in the topic, -1 for none yet. */
  first: Int32Array;
  /** From the member's second partition in the topic on: all of them. */
  runs: (number[] | undefined)[];
  /** Members with a partition in the topic, in the order they got their first. */
  touched: Int32Array;
}

/** An owner array with every partition unassigned. */
export function emptyOwners(input: GroupInput): Int32Array {
  return new Int32Array(input.topics.total).fill(-1);
}
