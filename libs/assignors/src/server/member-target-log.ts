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

export class TargetLog {
  /** 1 once the member's target was deep-copied (changed at least once, maybe back). */
  readonly copied: Uint8Array;
  /** The member's first and last op (-1: none); ops chain through `next`. */
  readonly head: Int32Array;
  private readonly tail: Int32Array;
  /** topic * 4 + kind */
  word: Int32Array;
  partition: Int32Array;
  next: Int32Array;
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
    const size = Math.max(16, expectedOps);
    this.word = new Int32Array(size);
    this.partition = new Int32Array(size);
    this.next = new Int32Array(size);
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
    if (this.length === this.word.length) this.grow();
    const op = this.length++;
    this.word[op] = word;
    this.partition[op] = partition;
    this.next[op] = -1;
    const last = this.tail[member];
    if (last === -1) this.head[member] = op;
    else this.next[last] = op;
    this.tail[member] = op;
  }

  private grow(): void {
    const size = this.word.length * 2;
    const word = new Int32Array(size);
    word.set(this.word);
    this.word = word;
    const partition = new Int32Array(size);
    partition.set(this.partition);
    this.partition = partition;
    const next = new Int32Array(size);
    next.set(this.next);
    this.next = next;
  }
}
