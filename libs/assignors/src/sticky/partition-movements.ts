/**
 * Kafka's PartitionMovements (AbstractStickyAssignor): while the general algorithm rebalances, it
 * records, per topic, which partitions moved from which member to which. When a move would reverse an
 * earlier one between the same two members, it moves back a partition that made the earlier trip
 * instead (the first one a Java HashSet would iterate, emulated), so partitions do not ping-pong.
 * isSticky() is the check Kafka's tests make: no topic has movements in both directions between two
 * members.
 */
import { JavaHashSetOrder, topicPartitionHashCode } from '../common/java-order';

export class PartitionMovements {
  /** Source member of the recorded movement of each partition (its destination is its owner); -1 if none. Allocated on the first move. */
  private source: Int32Array | null = null;
  private readonly byTopic = new Map<number, Map<number, JavaHashSetOrder>>();

  constructor(
    private readonly partitions: number,
    private readonly memberCount: number,
    private readonly topicOf: Int32Array,
    private readonly hashOf: (partition: number) => number,
  ) {}

  private sourceOf(partition: number): number {
    return this.source === null ? -1 : this.source[partition];
  }

  /** The partition to move when `partition` should go from `owner` to `newOwner`. */
  actualPartitionToMove(partition: number, owner: number, newOwner: number): number {
    const pairs = this.byTopic.get(this.topicOf[partition]);
    if (!pairs) return partition;
    const from = this.sourceOf(partition) >= 0 ? this.sourceOf(partition) : owner;
    const reverse = pairs.get(this.pairKey(newOwner, from));
    if (!reverse) return partition;
    return reverse.first();
  }

  /** Record that `partition` moves from `owner` to `newOwner`. */
  move(partition: number, owner: number, newOwner: number): void {
    const source = this.sourceOf(partition);
    if (source >= 0) {
      this.removeRecord(partition, source, owner);
      if (source !== newOwner) this.addRecord(partition, source, newOwner);
    } else {
      this.addRecord(partition, owner, newOwner);
    }
  }

  isSticky(): boolean {
    for (const pairs of this.byTopic.values()) {
      for (const key of pairs.keys()) {
        const from = Math.floor(key / this.memberCount);
        const to = key % this.memberCount;
        if (pairs.has(this.pairKey(to, from))) return false;
      }
    }
    return true;
  }

  private pairKey(from: number, to: number): number {
    return from * this.memberCount + to;
  }

  private addRecord(partition: number, from: number, to: number): void {
    (this.source ??= new Int32Array(this.partitions).fill(-1))[partition] = from;
    const topic = this.topicOf[partition];
    let pairs = this.byTopic.get(topic);
    if (!pairs) {
      pairs = new Map();
      this.byTopic.set(topic, pairs);
    }
    const key = this.pairKey(from, to);
    let set = pairs.get(key);
    if (!set) {
      set = new JavaHashSetOrder(this.hashOf);
      pairs.set(key, set);
    }
    set.add(partition);
  }

  private removeRecord(partition: number, from: number, to: number): void {
    if (this.source !== null) this.source[partition] = -1;
    const topic = this.topicOf[partition];
    const pairs = this.byTopic.get(topic);
    const key = this.pairKey(from, to);
    const set = pairs?.get(key);
    if (!pairs || !set) return;
    set.delete(partition);
    if (set.size === 0) pairs.delete(key);
    if (pairs.size === 0) this.byTopic.delete(topic);
  }
}

/** Java TopicPartition.hashCode for partition ids, given each topic's String.hashCode. */
export function partitionHasher(
  topicHashes: Int32Array,
  topicOf: Int32Array,
  base: Int32Array,
): (partition: number) => number {
  return (id) => topicPartitionHashCode(topicHashes[topicOf[id]], id - base[topicOf[id]]);
}
