import { KafkaError } from '@cohort/protocol';
import type { PartitionOffsets, TopicInfo, TopicRegistry } from '../ports/topic-registry.port';
import {
  addToTimeIndex,
  decodeTimeIndex,
  encodeTimeIndex,
  endOffsetAsOf,
  type EndOffsetTimeIndex,
  timeLagMs,
} from './end-offset-time-index';
import { copyTopic, sortedTopicCopies, validatePartitionCount, validateTopicName } from './topic-rules';

/** Each topic's encoded time indexes, partition → text (what the stores keep). */
export type EncodedTimeIndexes = Record<string, Record<number, string>>;

/**
 * What every topic registry does the same way, whatever stores it: the topics this process knows by
 * name, read as copies (or, for per-partition checks, as a bare count), and the checks a new topic
 * passes before the store is asked. The embedded and the Redis registry differ only in how they store
 * and share changes.
 */
export abstract class TopicCatalog implements Pick<
  TopicRegistry,
  'get' | 'partitionCount' | 'list' | 'topicCount' | 'partitionOffsets' | 'endOffsetsOf' | 'endOffsetAsOf' | 'timeLagMs'
> {
  protected readonly topics = new Map<string, TopicInfo>();
  /** topic → partition → the partition's end-offset time index (docs/lag.md), made by the reports. */
  protected readonly timeIndexes = new Map<string, Map<number, EndOffsetTimeIndex>>();

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

  topicCount(): number {
    return this.topics.size;
  }

  list(): TopicInfo[] {
    return sortedTopicCopies(this.topics.values());
  }

  endOffsetAsOf(name: string, partition: number, time: number): number | undefined {
    const index = this.timeIndexes.get(name)?.get(partition);
    if (index === undefined || index.length === 0) return undefined;
    return endOffsetAsOf(index, time) ?? this.topics.get(name)?.startOffsets?.[partition] ?? index[1];
  }

  timeLagMs(name: string, partition: number, offset: number, now: number): number | null {
    return timeLagMs(this.timeIndexes.get(name)?.get(partition), offset, now);
  }

  /** The topic's time indexes, made once (a report updates them in place). */
  protected timeIndexesOf(name: string): Map<number, EndOffsetTimeIndex> {
    let indexes = this.timeIndexes.get(name);
    if (!indexes) this.timeIndexes.set(name, (indexes = new Map()));
    return indexes;
  }

  /** Every topic's time indexes as text, for a store. */
  protected encodedTimeIndexes(): EncodedTimeIndexes {
    const out: EncodedTimeIndexes = {};
    for (const [name, indexes] of this.timeIndexes) {
      const topic: Record<number, string> = (out[name] = {});
      for (const [partition, index] of indexes) topic[partition] = encodeTimeIndex(index);
    }
    return out;
  }

  /**
   * Sets a partition's time index from a store's text, ending with the partition's latest report: text
   * it cannot read (or none, from a version before the index) starts the index at that report, when
   * its arrival is known.
   */
  protected restoreTimeIndex(topic: TopicInfo, partition: number, text: string | undefined): void {
    const indexes = this.timeIndexesOf(topic.name);
    const end = topic.endOffsets[partition];
    const decoded = text === undefined ? undefined : decodeTimeIndex(text);
    const lastTime = decoded?.[decoded.length - 2];
    const at = topic.reportedAt?.[partition] ?? lastTime;
    if (end === undefined || at === undefined) indexes.delete(partition);
    else indexes.set(partition, decoded?.[decoded.length - 1] === end ? decoded : addToTimeIndex(decoded, at, end));
  }

  /** Throws INVALID_REQUEST for a bad name or count, or a topic this process already knows. */
  protected checkNewTopic(name: string, partitions: number): void {
    validateTopicName(name);
    validatePartitionCount(partitions);
    if (this.topics.has(name)) throw KafkaError.of('INVALID_REQUEST', `topic '${name}' already exists`);
  }
}
