import { KafkaError } from '@cohort/protocol';
import type { PartitionOffsets, TopicInfo, TopicRegistry } from '../ports/topic-registry.port';
import { copyTopic, sortedTopicCopies, validatePartitionCount, validateTopicName } from './topic-rules';

/**
 * What every topic registry does the same way, whatever stores it: the topics this process knows by
 * name, read as copies (or, for per-partition checks, as a bare count), and the checks a new topic
 * passes before the store is asked. The embedded and the Redis registry differ only in how they store
 * and share changes.
 */
export abstract class TopicCatalog implements Pick<
  TopicRegistry,
  'get' | 'partitionCount' | 'list' | 'partitionOffsets' | 'endOffsetsOf'
> {
  protected readonly topics = new Map<string, TopicInfo>();

  get(name: string): TopicInfo | undefined {
    const topic = this.topics.get(name);
    return topic && copyTopic(topic);
  }

  partitionCount(name: string): number | undefined {
    return this.topics.get(name)?.partitions;
  }

  partitionOffsets(name: string, partition: number): PartitionOffsets | undefined {
    const topic = this.topics.get(name);
    const endOffset = topic?.endOffsets[partition];
    if (endOffset === undefined) return undefined;
    return {
      endOffset,
      startOffset: topic!.startOffsets?.[partition] ?? null,
      reportedAt: topic!.reportedAt?.[partition] ?? null,
    };
  }

  endOffsetsOf(name: string): Readonly<Record<number, number>> | undefined {
    return this.topics.get(name)?.endOffsets;
  }

  list(): TopicInfo[] {
    return sortedTopicCopies(this.topics.values());
  }

  /** Throws INVALID_REQUEST for a bad name or count, or a topic this process already knows. */
  protected checkNewTopic(name: string, partitions: number): void {
    validateTopicName(name);
    validatePartitionCount(partitions);
    if (this.topics.has(name)) throw KafkaError.of('INVALID_REQUEST', `topic '${name}' already exists`);
  }
}
