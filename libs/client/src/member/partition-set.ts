import type { TopicPartitions } from '@cohort/protocol';

/**
 * A set of topic-partitions with the operations a rebalance needs (owned − assigned, assigned − owned),
 * converted to and from the wire's `[{ topic, partitions }]`, always sorted so that listeners and
 * tests see a stable order.
 */
export class PartitionSet {
  private readonly byTopic = new Map<string, Set<number>>();

  static of(list: readonly TopicPartitions[] | undefined | null): PartitionSet {
    const set = new PartitionSet();
    for (const entry of list ?? []) for (const p of entry.partitions) set.add(entry.topic, p);
    return set;
  }

  add(topic: string, partition: number): void {
    let partitions = this.byTopic.get(topic);
    if (!partitions) this.byTopic.set(topic, (partitions = new Set()));
    partitions.add(partition);
  }

  has(topic: string, partition: number): boolean {
    return this.byTopic.get(topic)?.has(partition) ?? false;
  }

  get size(): number {
    let n = 0;
    for (const partitions of this.byTopic.values()) n += partitions.size;
    return n;
  }

  /** The members of this set that are not in `other`. */
  minus(other: PartitionSet): PartitionSet {
    const out = new PartitionSet();
    for (const [topic, partitions] of this.byTopic)
      for (const p of partitions) if (!other.has(topic, p)) out.add(topic, p);
    return out;
  }

  /** The members of this set and of `other`. */
  plus(other: PartitionSet): PartitionSet {
    const out = PartitionSet.of(this.toList());
    for (const entry of other.toList()) for (const p of entry.partitions) out.add(entry.topic, p);
    return out;
  }

  equals(other: PartitionSet): boolean {
    return this.size === other.size && this.minus(other).size === 0;
  }

  toList(): TopicPartitions[] {
    return [...this.byTopic.keys()]
      .sort()
      .map((topic) => ({ topic, partitions: [...this.byTopic.get(topic)!].sort((a, b) => a - b) }))
      .filter((entry) => entry.partitions.length > 0);
  }
}

export function partitionKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}
