/**
 * Each member's new target as Kafka's uniform builders change it. An assignor that leaves a member's
 * target alone hands back the very map it was given; the first change deep-copies it
 * (`new HashMap<>(size)`, each set a `new HashSet<>(set)`), and from then on partitions are added with
 * `computeIfAbsent(topic, new HashSet<>(capacity)).add(p)` and removed (the topic too once its set is
 * empty). The builders only log those changes here, in typed arrays shared by all members (tens of
 * thousands of members, a handful of changes each); target-replay.ts reads each changed member's log
 * back in Java's iteration order once the builder is done.
 */
export const ADD = 0;
export const REMOVE = 1;
export const REMOVE_TOPIC = 2;

/** An op's three ints in TargetLog.ops: at op + OP_WORD, op + OP_PARTITION and op + OP_NEXT. */
const OP_SIZE = 3;
const OP_WORD = 0;
const OP_PARTITION = 1;
const OP_NEXT = 2;

export class TargetLog {
  /** 1 once the member's target was deep-copied (changed at least once, maybe back). */
  readonly copied: Uint8Array;
  /** The member's first and last op (-1: none), as offsets into `ops`; ops chain through their next. */
  readonly head: Int32Array;
  private readonly tail: Int32Array;
  /**
   * Each op as three ints side by side — topic * 4 + kind, partition, the offset of the member's next
   * op (-1: none) — so that reading a member's ops back, scattered through the log, costs one cache
   * line per op instead of three.
   */
  ops: Int32Array;
  private length = 0;

  /**
   * `newSetCapacity[topic]`: the initial capacity of a set the builder creates for the topic, -1
   * for `new HashSet<>()`.
   */
  constructor(
    memberCount: number,
    readonly newSetCapacity: Int32Array,
    expectedOps = 1024,
  ) {
    this.copied = new Uint8Array(memberCount);
    this.head = new Int32Array(memberCount).fill(-1);
    this.tail = new Int32Array(memberCount).fill(-1);
    this.ops = new Int32Array(OP_SIZE * Math.max(16, expectedOps));
  }

  /** The builder needs a mutable copy of the member's target (Kafka deep-copies it now). */
  touch(member: number): void {
    this.copied[member] = 1;
  }

  add(member: number, topic: number, partition: number): void {
    this.append(member, topic * 4 + ADD, partition);
  }

  remove(member: number, topic: number, partition: number): void {
    this.append(member, topic * 4 + REMOVE, partition);
  }

  removeTopic(member: number, topic: number): void {
    this.append(member, topic * 4 + REMOVE_TOPIC, -1);
  }

  private append(member: number, word: number, partition: number): void {
    this.copied[member] = 1;
    if (this.length === this.ops.length) this.grow();
    const op = this.length;
    this.length += OP_SIZE;
    const ops = this.ops;
    ops[op + OP_WORD] = word;
    ops[op + OP_PARTITION] = partition;
    ops[op + OP_NEXT] = -1;
    const last = this.tail[member];
    if (last === -1) this.head[member] = op;
    else ops[last + OP_NEXT] = op;
    this.tail[member] = op;
  }

  private grow(): void {
    const ops = new Int32Array(this.ops.length * 2);
    ops.set(this.ops);
    this.ops = ops;
  }
}
