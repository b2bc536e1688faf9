/**
 * The share partitions of each group that may have offsets to lease (Kafka walks every partition of a
 * share fetch; a member may be assigned hundreds of thousands): an acquire visits these alone, so what it
 * costs follows the partitions that can give it something, not the partitions assigned to its member.
 *
 * A partition is marked whenever it may have become leasable: its state was created or loaded, offsets
 * of it came back with nothing pending on them (a lock ran out, its member left, a redelivery: marked
 * at once, since an acquire may lease them before the write recording that ends), a write of it ended
 * with offsets leasable (a release, an acknowledgement moving SPSO on, a failed lease taken back), or
 * producers reported its offsets (what the registry reported is applied when an acquire visits it, as
 * before). An acquire that visits a partition and finds nothing more to lease there unmarks it. So the
 * marks are a superset of the partitions that can lease, and an acquire skips only partitions that
 * cannot.
 */
export class ShareLeaseCandidates {
  private readonly byGroup = new Map<string, Map<string, PartitionBits>>();

  add(groupId: string, topic: string, partition: number): void {
    let topics = this.byGroup.get(groupId);
    if (!topics) this.byGroup.set(groupId, (topics = new Map()));
    let bits = topics.get(topic);
    if (!bits) topics.set(topic, (bits = new PartitionBits()));
    bits.add(partition);
  }

  delete(groupId: string, topic: string, partition: number): void {
    this.byGroup.get(groupId)?.get(topic)?.delete(partition);
  }

  has(groupId: string, topic: string, partition: number): boolean {
    return this.byGroup.get(groupId)?.get(topic)?.has(partition) ?? false;
  }

  /**
   * The marked partitions among `partitions[from..to)` (ascending, a topic's assigned partitions), in
   * order, each passed to `visit` until it returns false; false when it did. The cost follows the marks
   * and the assigned partitions in that range that lie between them, not the range's length.
   */
  forEachIn(
    groupId: string,
    topic: string,
    partitions: readonly number[],
    from: number,
    to: number,
    visit: (partition: number) => boolean,
  ): boolean {
    const bits = this.byGroup.get(groupId)?.get(topic);
    if (bits === undefined) return true;
    let i = from;
    while (i < to) {
      const marked = bits.next(partitions[i]);
      if (marked < 0) return true;
      if (marked !== partitions[i]) {
        // The first assigned partition at or after the mark: the mark itself, or the next place to look from.
        i = lowerBound(partitions, marked, i + 1, to);
        if (i >= to) return true;
        if (partitions[i] !== marked) continue;
      }
      if (!visit(marked)) return false;
      i++;
    }
    return true;
  }

  dropGroup(groupId: string): void {
    this.byGroup.delete(groupId);
  }

  clear(): void {
    this.byGroup.clear();
  }
}

/** The index of the first of `sorted[from..to)` at or above `value` (`to` when none is). */
function lowerBound(sorted: readonly number[], value: number, from: number, to: number): number {
  let low = from;
  let high = to;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (sorted[middle] < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A set of one topic's partition numbers as bits, 32 to a word: `next` skips empty words. */
export class PartitionBits {
  private words = new Uint32Array(0);

  add(partition: number): void {
    const word = partition >>> 5;
    if (word >= this.words.length) {
      const grown = new Uint32Array(Math.max(word + 1, this.words.length * 2));
      grown.set(this.words);
      this.words = grown;
    }
    this.words[word] |= 1 << (partition & 31);
  }

  delete(partition: number): void {
    const word = partition >>> 5;
    if (word < this.words.length) this.words[word] &= ~(1 << (partition & 31));
  }

  has(partition: number): boolean {
    const word = partition >>> 5;
    return word < this.words.length && (this.words[word] & (1 << (partition & 31))) !== 0;
  }

  /** The least partition in the set at or above `from`, or -1 when there is none. */
  next(from: number): number {
    const words = this.words;
    let word = from >>> 5;
    if (word >= words.length) return -1;
    let bits = words[word] & (-1 << (from & 31));
    for (;;) {
      if (bits !== 0) return (word << 5) + (31 - Math.clz32(bits & -bits));
      if (++word >= words.length) return -1;
      bits = words[word];
    }
  }
}
