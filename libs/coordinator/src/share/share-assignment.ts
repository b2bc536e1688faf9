import {
  fromTopicPartitionList,
  toTopicPartitionList,
  type TopicPartitionList,
  type TopicPartitions,
} from '../consumer/topic-partitions';

/** A topic partition of a share group's assignment. */
export interface ShareTopicPartition {
  topic: string;
  partition: number;
}

/**
 * A share group member's assigned partitions as ShareAcquire and ShareAcknowledge read them: topics in
 * ascending order, each topic's partitions ascending, one position per partition (an acquire starts at
 * a rotating position, so no partition starves the others), and whether a partition is assigned in
 * constant time. Made once per assignment (a member's TopicPartitions is never changed, only replaced),
 * in time proportional to its topics, not its partitions: it reads the sorted lists the member's records
 * and heartbeat answers already list (`toTopicPartitionList`), so a member assigned 500,000 partitions
 * costs its acquires nothing per partition for knowing them.
 */
export class ShareAssignment {
  /** Topics ascending, each with its partitions ascending (frozen, shared with the member's records). */
  readonly topics: readonly TopicPartitionList[];
  /** How many partitions in all. */
  readonly size: number;
  /** The position of each topic's first partition. */
  private readonly firsts: readonly number[];

  private constructor(private readonly partitions: TopicPartitions) {
    this.topics = toTopicPartitionList(partitions);
    const firsts: number[] = [];
    let size = 0;
    for (const { partitions: list } of this.topics) {
      firsts.push(size);
      size += list.length;
    }
    this.firsts = firsts;
    this.size = size;
  }

  /** The assignment of `partitions`, made once per TopicPartitions. */
  static of(partitions: TopicPartitions): ShareAssignment {
    let made = madeFor.get(partitions);
    if (made === undefined) madeFor.set(partitions, (made = new ShareAssignment(partitions)));
    return made;
  }

  /** The assignment of a list of partitions in any order (a repeat counts once). */
  static ofList(list: readonly ShareTopicPartition[]): ShareAssignment {
    const byTopic = new Map<string, number[]>();
    for (const { topic, partition } of list) {
      let partitions = byTopic.get(topic);
      if (!partitions) byTopic.set(topic, (partitions = []));
      partitions.push(partition);
    }
    return ShareAssignment.of(
      fromTopicPartitionList([...byTopic].map(([topic, partitions]) => ({ topic, partitions }))),
    );
  }

  has(topic: string, partition: number): boolean {
    return this.partitions.get(topic)?.has(partition) ?? false;
  }

  /** Where position `position` (0 ≤ position < size) lies: its topic's index in `topics`, and its index there. */
  locate(position: number): { topicIndex: number; index: number } {
    let low = 0;
    let high = this.firsts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.firsts[middle] <= position) low = middle;
      else high = middle - 1;
    }
    return { topicIndex: low, index: position - this.firsts[low] };
  }

  /** Every partition, in order. */
  *[Symbol.iterator](): IterableIterator<ShareTopicPartition> {
    for (const { topic, partitions } of this.topics) for (const partition of partitions) yield { topic, partition };
  }
}

const madeFor = new WeakMap<TopicPartitions, ShareAssignment>();
