/**
 * Kafka's `UniformHeterogeneousAssignmentBuilder.MemberAssignmentBalancer`: the subscribers of one
 * topic sorted by partition count (then member index), with a least loaded range growing rightwards,
 * to which partitions are handed in turn, and a most loaded range growing leftwards, from which they
 * are taken, until the two ranges' counts differ by one or less.
 */
export class MemberBalancer {
  private sorted = new Int32Array(0);
  /** How many of `sorted` are in play (the subscribers of the topic at hand). */
  private count = 0;
  private keys = new Float64Array(0);
  private counts = new Int32Array(64);
  private leastLoadedRangeEnd = 0;
  private leastLoadedRangePartitionCount = -1;
  private nextLeastLoaded = 0;
  private mostLoadedRangeStart = 0;
  private mostLoadedRangeEnd = 0;
  private mostLoadedRangePartitionCount = 1;
  private nextMostLoaded = -1;

  constructor(private readonly sizes: Int32Array) {}

  /**
   * Takes members[from, to) (member indices); returns the difference between the most and the least
   * loaded of them.
   */
  initialize(members: Int32Array, from: number, to: number): number {
    const sizes = this.sizes;
    const count = to - from;
    if (this.sorted.length < count) {
      this.sorted = new Int32Array(count);
      this.keys = new Float64Array(count);
    }
    const sorted = this.sorted;
    let least = sizes[members[from]];
    let most = least;
    for (let i = from + 1; i < to; i++) {
      const size = sizes[members[i]];
      if (size < least) least = size;
      else if (size > most) most = size;
    }
    if (most - least <= 4 * count && isAscending(members, from, to)) {
      // By partition count, then member index: a counting sort, stable over members in index order.
      const range = most - least + 1;
      if (this.counts.length < range + 1) this.counts = new Int32Array(Math.max(range + 1, this.counts.length * 2));
      const counts = this.counts;
      counts.fill(0, 0, range + 1);
      for (let i = from; i < to; i++) counts[sizes[members[i]] - least + 1]++;
      for (let c = 0; c < range; c++) counts[c + 1] += counts[c];
      for (let i = from; i < to; i++) sorted[counts[sizes[members[i]] - least]++] = members[i];
    } else {
      // One distinct numeric key each, sorted natively.
      const memberCount = sizes.length;
      const keys = this.keys.subarray(0, count);
      for (let i = 0; i < count; i++) keys[i] = sizes[members[from + i]] * memberCount + members[from + i];
      keys.sort();
      for (let i = 0; i < count; i++) sorted[i] = keys[i] % memberCount;
    }
    this.count = count;
    const last = count - 1;
    this.leastLoadedRangeEnd = 0;
    this.leastLoadedRangePartitionCount = sizes[sorted[0]] - 1;
    this.nextLeastLoaded = 0;
    this.mostLoadedRangeStart = count;
    this.mostLoadedRangeEnd = count;
    this.mostLoadedRangePartitionCount = sizes[sorted[last]] + 1;
    this.nextMostLoaded = last;
    return sizes[sorted[last]] - sizes[sorted[0]];
  }

  nextLeastLoadedMember(): number {
    const sizes = this.sizes;
    const sorted = this.sorted;
    if (this.nextLeastLoaded >= this.leastLoadedRangeEnd) {
      this.leastLoadedRangePartitionCount++;
      while (
        this.leastLoadedRangeEnd < this.count &&
        sizes[sorted[this.leastLoadedRangeEnd]] === this.leastLoadedRangePartitionCount
      )
        this.leastLoadedRangeEnd++;
      this.nextLeastLoaded = 0;
    }
    return sorted[this.nextLeastLoaded++];
  }

  /** -1 when no member of the most loaded range has a partition left to give. */
  nextMostLoadedMember(): number {
    const sizes = this.sizes;
    const sorted = this.sorted;
    if (this.nextMostLoaded < this.mostLoadedRangeStart) {
      if (this.mostLoadedRangeEnd <= this.mostLoadedRangeStart && this.mostLoadedRangeStart > 0)
        this.mostLoadedRangePartitionCount = sizes[sorted[this.mostLoadedRangeStart - 1]];
      else this.mostLoadedRangePartitionCount--;
      while (
        this.mostLoadedRangeStart > 0 &&
        sizes[sorted[this.mostLoadedRangeStart - 1]] === this.mostLoadedRangePartitionCount
      )
        this.mostLoadedRangeStart--;
      this.nextMostLoaded = this.mostLoadedRangeEnd - 1;
    }
    if (this.nextMostLoaded < 0) return -1;
    return sorted[this.nextMostLoaded--];
  }

  /** Drops the member nextMostLoadedMember last returned from the most loaded range. */
  excludeMostLoadedMember(): void {
    const sorted = this.sorted;
    const member = sorted[this.nextMostLoaded + 1];
    sorted[this.nextMostLoaded + 1] = sorted[this.mostLoadedRangeEnd - 1];
    sorted[this.mostLoadedRangeEnd - 1] = member;
    this.mostLoadedRangeEnd--;
  }

  isBalanced(): boolean {
    return this.mostLoadedRangePartitionCount - this.leastLoadedRangePartitionCount <= 1;
  }
}

function isAscending(members: Int32Array, from: number, to: number): boolean {
  for (let i = from + 1; i < to; i++) if (members[i] <= members[i - 1]) return false;
  return true;
}
