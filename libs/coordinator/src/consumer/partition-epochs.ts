import type { TopicPartitions } from './topic-partitions';

/** Partitions a member holds (assigned, or pending revocation) at its member epoch. */
export interface HeldPartitions {
  partitions: TopicPartitions;
  epoch: number;
}

/**
 * The epoch at which each partition of a consumer group is owned now (Kafka's `currentPartitionEpoch`):
 * a partition is owned by one member at a time, and finding the index disagree with a member means the
 * records broke that rule, which Kafka treats as an illegal state. A member's change is one `swap`,
 * checked in full before anything moves: a refused change leaves the index as it was, so the group is
 * never left with a member whose partitions the index does not know (a later fencing of that member,
 * from a timer, would then fail on its own tombstone).
 */
export class PartitionEpochs {
  private readonly byTopic = new Map<string, Map<number, number>>();

  /** The owner's epoch, or -1. */
  get(topic: string, partition: number): number {
    return this.byTopic.get(topic)?.get(partition) ?? -1;
  }

  /** `before`'s partitions are released and `after`'s taken, all or nothing. */
  swap(before: readonly HeldPartitions[], after: readonly HeldPartitions[]): void {
    const released = new Set<string>();
    for (const { partitions, epoch } of before)
      for (const [topic, set] of partitions) {
        const byPartition = this.byTopic.get(topic);
        if (!byPartition)
          throw new Error(`Cannot remove the epoch ${epoch} from ${topic} because it does not have any epoch`);
        for (const p of set) {
          const previous = byPartition.get(p);
          if (previous !== epoch || released.has(`${topic}\u0000${p}`))
            throw new Error(
              `Cannot remove the epoch ${epoch} from ${topic}-${p} because the partition is still owned at a different epoch ${previous}`,
            );
          released.add(`${topic}\u0000${p}`);
        }
      }
    const taken = new Set<string>();
    for (const { partitions, epoch } of after)
      for (const [topic, set] of partitions)
        for (const p of set) {
          const id = `${topic}\u0000${p}`;
          const previous = released.has(id) ? undefined : this.byTopic.get(topic)?.get(p);
          if (previous !== undefined || taken.has(id))
            throw new Error(
              `Cannot set the epoch of ${topic}-${p} to ${epoch} because the partition is still owned at epoch ${previous ?? epoch}`,
            );
          taken.add(id);
        }
    for (const { partitions } of before)
      for (const [topic, set] of partitions) {
        const byPartition = this.byTopic.get(topic)!;
        for (const p of set) byPartition.delete(p);
        if (byPartition.size === 0) this.byTopic.delete(topic);
      }
    for (const { partitions, epoch } of after)
      for (const [topic, set] of partitions) {
        let byPartition = this.byTopic.get(topic);
        if (!byPartition) this.byTopic.set(topic, (byPartition = new Map()));
        for (const p of set) byPartition.set(p, epoch);
      }
  }
}
