import type { CommittedOffset } from './offset-values';

/** Numbers kept per committed partition, side by side in one array: partition, offset, leader epoch, commit time, log offset. */
const STRIDE = 5;
const PARTITION = 0;
const OFFSET = 1;
const LEADER_EPOCH = 2;
const COMMIT_TIMESTAMP = 3;
const LOG_OFFSET = 4;

/**
 * The committed offsets of one group on one topic, held column-wise: every number of every partition
 * in one array of doubles (exact for int64 offsets up to 2^53, int32 epochs and timestamps), one slot
 * per partition. A node holding a million committed partitions then keeps a few objects per group and
 * topic instead of one per partition, which is what a major GC has to walk (and ~40-60 bytes a
 * partition instead of ~120). Metadata and legacy expiry times, rare, are kept only where present.
 *
 * While the partitions were first committed in order 0, 1, 2, … (a commit of every partition of a topic,
 * the usual case) partition p is slot p and no map is needed; the first commit out of that order, or a
 * removal other than of the last partition, makes a partition → slot map. Iteration is in the order
 * partitions were first committed (a partition removed and committed again moves to the end), as a Map
 * of entries kept it.
 */
export class TopicOffsets {
  /** Partition → slot, in first-commit order; undefined while slot p holds partition p. */
  private slots: Map<number, number> | undefined;
  private readonly values: number[] = [];
  /** Non-empty metadata by partition; most commits carry none. */
  private metadata: Map<number, string> | undefined;
  /** OffsetCommitValue v1 expiry times by partition, for offsets replayed from an old log. */
  private expiry: Map<number, number> | undefined;

  get size(): number {
    return this.values.length / STRIDE;
  }

  has(partition: number): boolean {
    return this.slotOf(partition) !== undefined;
  }

  /** A copy of the partition's committed offset: what readers get, since nothing is held as an object. */
  get(partition: number): CommittedOffset | undefined {
    const slot = this.slotOf(partition);
    return slot === undefined ? undefined : this.entryAt(partition, slot);
  }

  /**
   * Sets the partition's offset to the fields of `entry` (copied, so the caller may reuse it), unless
   * the offset held comes from a later record (a higher log offset), which wins.
   */
  set(partition: number, entry: CommittedOffset): void {
    const slot = this.slotOf(partition);
    const v = this.values;
    if (slot !== undefined && v[slot * STRIDE + LOG_OFFSET] > entry.logOffset) return;
    if (slot === undefined) {
      if (this.slots !== undefined || partition !== this.size) this.mapSlots().set(partition, this.size);
      v.push(partition, entry.offset, entry.leaderEpoch, entry.commitTimestamp, entry.logOffset);
    } else {
      const at = slot * STRIDE;
      v[at + OFFSET] = entry.offset;
      v[at + LEADER_EPOCH] = entry.leaderEpoch;
      v[at + COMMIT_TIMESTAMP] = entry.commitTimestamp;
      v[at + LOG_OFFSET] = entry.logOffset;
    }
    if (entry.metadata !== '') (this.metadata ??= new Map()).set(partition, entry.metadata);
    else this.metadata?.delete(partition);
    if (entry.expireTimestamp !== null) (this.expiry ??= new Map()).set(partition, entry.expireTimestamp);
    else this.expiry?.delete(partition);
  }

  /**
   * Removes the partition (a tombstone at `logOffset`) unless its offset comes from a later record; the
   * last slot moves into its place, so the columns stay dense.
   */
  delete(partition: number, logOffset: number): void {
    const slot = this.slotOf(partition);
    const v = this.values;
    if (slot === undefined || v[slot * STRIDE + LOG_OFFSET] > logOffset) return;
    const last = v.length - STRIDE;
    if (slot * STRIDE !== last) {
      const slots = this.mapSlots();
      for (let i = 0; i < STRIDE; i++) v[slot * STRIDE + i] = v[last + i];
      slots.set(v[last + PARTITION], slot);
    }
    this.slots?.delete(partition);
    v.length = last;
    this.metadata?.delete(partition);
    this.expiry?.delete(partition);
  }

  /** Each committed offset as a copy, in iteration order. */
  forEach(visit: (partition: number, value: CommittedOffset) => void): void {
    if (this.slots === undefined) for (let p = 0; p < this.size; p++) visit(p, this.entryAt(p, p));
    else for (const [partition, slot] of this.slots) visit(partition, this.entryAt(partition, slot));
  }

  /** What a scan of every group (lag, metrics) reads of each partition, without a copy of the rest. */
  forEachOffset(visit: (partition: number, offset: number, commitTimestamp: number) => void): void {
    const v = this.values;
    if (this.slots === undefined)
      for (let p = 0; p < this.size; p++) visit(p, v[p * STRIDE + OFFSET], v[p * STRIDE + COMMIT_TIMESTAMP]);
    else
      for (const [partition, slot] of this.slots)
        visit(partition, v[slot * STRIDE + OFFSET], v[slot * STRIDE + COMMIT_TIMESTAMP]);
  }

  private slotOf(partition: number): number | undefined {
    if (this.slots !== undefined) return this.slots.get(partition);
    return partition >= 0 && partition < this.size && Number.isInteger(partition) ? partition : undefined;
  }

  /** The partition → slot map, made from the in-order layout the first time it is needed. */
  private mapSlots(): Map<number, number> {
    if (this.slots === undefined) {
      this.slots = new Map();
      for (let p = 0; p < this.size; p++) this.slots.set(p, p);
    }
    return this.slots;
  }

  private entryAt(partition: number, slot: number): CommittedOffset {
    const v = this.values;
    const at = slot * STRIDE;
    return {
      offset: v[at + OFFSET],
      leaderEpoch: v[at + LEADER_EPOCH],
      metadata: this.metadata?.get(partition) ?? '',
      commitTimestamp: v[at + COMMIT_TIMESTAMP],
      expireTimestamp: this.expiry?.get(partition) ?? null,
      logOffset: v[at + LOG_OFFSET],
    };
  }
}
