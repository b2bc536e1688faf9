/**
 * The general sticky algorithm keeps members in a TreeSet ordered by (number of partitions, member id)
 * and repeatedly asks "the first member in that order that subscribes to topic T" (optionally also on
 * a replica's rack). Scanning a TreeSet for that is what makes Kafka's general path slow with many
 * members. Here members with the same subscription (and rack, when racks matter) form a class with
 * its own indexed min-heap, so the question costs one look at the top of each class that subscribes
 * to T. A histogram of loads gives the overall minimum and maximum in O(1).
 */
export class LoadIndex {
  readonly load: Int32Array;
  private readonly participating: Uint8Array;
  private readonly heaps: Int32Array[];
  private readonly heapSize: Int32Array;
  private readonly position: Int32Array;
  private readonly levelCount: Int32Array;
  private minLevel = 0;
  private maxLevel = 0;
  private participants = 0;

  /**
   * @param classOf class of each member
   * @param classesOfTopic for each topic, the classes whose members subscribe to it
   * @param classRack rack of each class (null: no rack)
   * @param rank each member's position in member-id order (the tie-break)
   * @param maxLoad an upper bound on any member's load
   */
  constructor(
    private readonly classOf: Int32Array,
    readonly classesOfTopic: Int32Array[],
    readonly classRack: (string | null)[],
    private readonly rank: Int32Array,
    initialLoad: Int32Array,
    maxLoad: number,
  ) {
    const members = classOf.length;
    this.load = Int32Array.from(initialLoad);
    this.participating = new Uint8Array(members).fill(1);
    this.participants = members;
    this.position = new Int32Array(members);
    this.levelCount = new Int32Array(maxLoad + 2);
    const sizes = new Int32Array(classRack.length);
    for (let m = 0; m < members; m++) sizes[classOf[m]]++;
    this.heaps = Array.from(sizes, (size) => new Int32Array(size));
    this.heapSize = new Int32Array(classRack.length);
    for (let m = 0; m < members; m++) {
      const c = classOf[m];
      this.heaps[c][this.heapSize[c]] = m;
      this.position[m] = this.heapSize[c]++;
      this.levelCount[this.load[m]]++;
    }
    for (let c = 0; c < this.heaps.length; c++)
      for (let i = (this.heapSize[c] >> 1) - 1; i >= 0; i--) this.siftDown(c, i);
    this.recomputeExtremes();
  }

  isParticipating(m: number): boolean {
    return this.participating[m] === 1;
  }

  get minLoad(): number {
    return this.minLevel;
  }

  get maxLoad(): number {
    return this.maxLevel;
  }

  get isEmpty(): boolean {
    return this.participants === 0;
  }

  /** Smallest (load, member id) member among the classes subscribing to `topic` that pass `accept`; -1 if none. */
  first(topic: number, acceptRack?: (rack: string | null) => boolean): number {
    let best = -1;
    for (const c of this.classesOfTopic[topic]) {
      if (this.heapSize[c] === 0) continue;
      if (acceptRack && !acceptRack(this.classRack[c])) continue;
      const top = this.heaps[c][0];
      if (best < 0 || this.before(top, best)) best = top;
    }
    return best;
  }

  increment(m: number): void {
    this.load[m]++;
    if (this.participating[m] === 0) return;
    this.changeLevel(this.load[m] - 1, this.load[m]);
    this.siftDown(this.classOf[m], this.position[m]);
  }

  decrement(m: number): void {
    this.load[m]--;
    if (this.participating[m] === 0) return;
    this.changeLevel(this.load[m] + 1, this.load[m]);
    this.siftUp(this.classOf[m], this.position[m]);
  }

  /** Take a member out of consideration (Kafka's "fixed" members that cannot change). */
  setAside(m: number): void {
    if (this.participating[m] === 0) return;
    this.participating[m] = 0;
    this.participants--;
    this.levelCount[this.load[m]]--;
    const c = this.classOf[m];
    const heap = this.heaps[c];
    const i = this.position[m];
    const last = heap[--this.heapSize[c]];
    if (last !== m) {
      heap[i] = last;
      this.position[last] = i;
      this.siftDown(c, i);
      this.siftUp(c, this.position[last]);
    }
    this.recomputeExtremes();
  }

  /** Replace every participating member's load (rollback to a snapshot). */
  resetLoads(loads: Int32Array): void {
    this.levelCount.fill(0);
    this.load.set(loads);
    for (let m = 0; m < this.load.length; m++) if (this.participating[m] === 1) this.levelCount[this.load[m]]++;
    for (let c = 0; c < this.heaps.length; c++)
      for (let i = (this.heapSize[c] >> 1) - 1; i >= 0; i--) this.siftDown(c, i);
    this.recomputeExtremes();
  }

  private before(a: number, b: number): boolean {
    const la = this.load[a];
    const lb = this.load[b];
    return la < lb || (la === lb && this.rank[a] < this.rank[b]);
  }

  private changeLevel(from: number, to: number): void {
    this.levelCount[from]--;
    this.levelCount[to]++;
    if (to > this.maxLevel) this.maxLevel = to;
    if (to < this.minLevel) this.minLevel = to;
    if (this.levelCount[from] === 0) {
      if (from === this.minLevel)
        while (this.minLevel < this.maxLevel && this.levelCount[this.minLevel] === 0) this.minLevel++;
      if (from === this.maxLevel)
        while (this.maxLevel > this.minLevel && this.levelCount[this.maxLevel] === 0) this.maxLevel--;
    }
  }

  private recomputeExtremes(): void {
    this.minLevel = 0;
    this.maxLevel = 0;
    if (this.participants === 0) return;
    let level = 0;
    while (this.levelCount[level] === 0) level++;
    this.minLevel = level;
    level = this.levelCount.length - 1;
    while (this.levelCount[level] === 0) level--;
    this.maxLevel = level;
  }

  private siftUp(c: number, index: number): void {
    const heap = this.heaps[c];
    let i = index;
    const m = heap[i];
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(m, heap[parent])) break;
      heap[i] = heap[parent];
      this.position[heap[i]] = i;
      i = parent;
    }
    heap[i] = m;
    this.position[m] = i;
  }

  private siftDown(c: number, index: number): void {
    const heap = this.heaps[c];
    const size = this.heapSize[c];
    let i = index;
    const m = heap[i];
    for (;;) {
      let child = 2 * i + 1;
      if (child >= size) break;
      if (child + 1 < size && this.before(heap[child + 1], heap[child])) child++;
      if (!this.before(heap[child], m)) break;
      heap[i] = heap[child];
      this.position[heap[i]] = i;
      i = child;
    }
    heap[i] = m;
    this.position[m] = i;
  }
}
