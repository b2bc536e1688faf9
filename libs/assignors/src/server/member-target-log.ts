/**
 * Each member's new target as Kafka's uniform builders change it. An assignor that leaves a member's
 * target alone hands back the very map it was given; the first change deep-copies it
 * (`new HashMap<>(size)`, each set a `new HashSet<>(set)`), and from then on partitions are added with
 * `computeIfAbsent(topic, new HashSet<>(capacity)).add(p)` and removed (the topic too once its set is
 * empty). The builders only log those changes here, in typed arrays shared by all members (tens of
 * thousands of members, a handful of changes each); target-replay.ts reads each changed member's log
 * back in Java's iteration order once the builder is done.
 */
// Exported through aliases: CommonJS output reads an exported const used in its own module off
// `exports` at each use, here once per partition.
const KIND_ADD = 0;
const KIND_REMOVE = 1;
const KIND_REMOVE_TOPIC = 2;
export const ADD = KIND_ADD;
export const REMOVE = KIND_REMOVE;
export const REMOVE_TOPIC = KIND_REMOVE_TOPIC;

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
   * With `chunk` > 0, each member's ops take the next slot of a run of `chunk` ops reserved for it
   * (another run once that one is full): a member's ops, read back member after member, then sit on
   * a few neighbouring cache lines instead of being spread over the whole log (a builder that hands
   * partitions to members in turn). With 0 they follow one another in the log's order.
   */
  private readonly free: Int32Array | null;
  private readonly limit: Int32Array | null;

  /**
   * `newSetCapacity[topic]`: the initial capacity of a set the builder creates for the topic, -1
   * for `new HashSet<>()`.
   */
  constructor(
    memberCount: number,
    readonly newSetCapacity: Int32Array,
    expectedOps = 1024,
    private readonly chunk = 0,
  ) {
    this.copied = new Uint8Array(memberCount);
    this.head = new Int32Array(memberCount).fill(-1);
    this.tail = new Int32Array(memberCount).fill(-1);
    this.ops = new Int32Array(OP_SIZE * Math.max(16, expectedOps));
    this.free = chunk > 0 ? new Int32Array(memberCount) : null;
    this.limit = chunk > 0 ? new Int32Array(memberCount) : null;
  }

  /** The builder needs a mutable copy of the member's target (Kafka deep-copies it now). */
  touch(member: number): void {
    this.copied[member] = 1;
  }

  add(member: number, topic: number, partition: number): void {
    this.append(member, topic * 4 + KIND_ADD, partition);
  }

  remove(member: number, topic: number, partition: number): void {
    this.append(member, topic * 4 + KIND_REMOVE, partition);
  }

  removeTopic(member: number, topic: number): void {
    this.append(member, topic * 4 + KIND_REMOVE_TOPIC, -1);
  }

  private append(member: number, word: number, partition: number): void {
    this.copied[member] = 1;
    const free = this.free;
    let op: number;
    if (free === null) op = this.reserve(OP_SIZE);
    else {
      op = free[member];
      const limit = this.limit as Int32Array;
      if (op === limit[member]) {
        op = this.reserve(OP_SIZE * this.chunk);
        limit[member] = op + OP_SIZE * this.chunk;
      }
      free[member] = op + OP_SIZE;
    }
    const ops = this.ops;
    ops[op + OP_WORD] = word;
    ops[op + OP_PARTITION] = partition;
    ops[op + OP_NEXT] = -1;
    const last = this.tail[member];
    if (last === -1) this.head[member] = op;
    else ops[last + OP_NEXT] = op;
    this.tail[member] = op;
  }

  /** The offset of `size` fresh ints at the end of the log, grown when full. */
  private reserve(size: number): number {
    while (this.length + size > this.ops.length) {
      const ops = new Int32Array(this.ops.length * 2);
      ops.set(this.ops);
      this.ops = ops;
    }
    const op = this.length;
    this.length += size;
    return op;
  }
}
