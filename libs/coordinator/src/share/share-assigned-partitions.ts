import { toTopicPartitionList, type TopicPartitions } from '../consumer/topic-partitions';
import type { ShareTopicPartition } from './share-ports';

/**
 * An assignment's partitions one by one, made once per assignment (a member's TopicPartitions is never
 * changed, only replaced) rather than at each of the member's acquires and acknowledgements; frozen, as
 * every caller shares it.
 */
const flattened = new WeakMap<TopicPartitions, readonly ShareTopicPartition[]>();

export function assignedPartitionList(assigned: TopicPartitions): readonly ShareTopicPartition[] {
  let list = flattened.get(assigned);
  if (list === undefined) {
    const made: ShareTopicPartition[] = [];
    for (const { topic, partitions } of toTopicPartitionList(assigned))
      for (const partition of partitions) made.push(Object.freeze({ topic, partition }));
    flattened.set(assigned, (list = Object.freeze(made)));
  }
  return list;
}
