import { KafkaError } from '@cohort/protocol';
import type { TopicInfo, TopicRegistry } from '../ports/topic-registry.port';

/** Kafka's legal topic names (`Topic.validate`): at most 249 of [a-zA-Z0-9._-], and not "." or "..". */
const LEGAL_TOPIC_NAME = /^[a-zA-Z0-9._-]{1,249}$/;

export interface InMemoryTopicRegistryOptions {
  /** Topics to start with (e.g. read back from a file in embedded mode). */
  topics?: TopicInfo[];
  /**
   * Called with every topic after each change, and awaited before the change is acknowledged, so the
   * app can persist the registry (a file under DATA_DIR in embedded mode).
   */
  persist?: (topics: TopicInfo[]) => Promise<void> | void;
}

/**
 * The topic registry of one process: partition counts (for assignors and commit validation) and
 * reported log end offsets (for lag). Listeners hear about creations and growth after persistence.
 */
export class InMemoryTopicRegistry implements TopicRegistry {
  private readonly topics = new Map<string, TopicInfo>();
  private readonly listeners = new Set<(topic: TopicInfo) => void>();
  private readonly persist?: (topics: TopicInfo[]) => Promise<void> | void;

  constructor(options: InMemoryTopicRegistryOptions = {}) {
    for (const topic of options.topics ?? []) this.topics.set(topic.name, copy(topic));
    this.persist = options.persist;
  }

  get(name: string): TopicInfo | undefined {
    const topic = this.topics.get(name);
    return topic && copy(topic);
  }

  list(): TopicInfo[] {
    return [...this.topics.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)).map(copy);
  }

  async create(name: string, partitions: number): Promise<TopicInfo> {
    validateName(name);
    validateCount(partitions);
    if (this.topics.has(name)) throw KafkaError.of('INVALID_REQUEST', `topic '${name}' already exists`);
    const topic: TopicInfo = { name, partitions, endOffsets: {} };
    this.topics.set(name, topic);
    await this.changed(topic);
    return copy(topic);
  }

  async setPartitions(name: string, partitions: number): Promise<TopicInfo> {
    const topic = this.require(name);
    validateCount(partitions);
    if (partitions < topic.partitions) {
      throw KafkaError.of(
        'INVALID_REQUEST',
        `topic '${name}' has ${topic.partitions} partitions; the count can only grow (asked for ${partitions})`,
      );
    }
    if (partitions === topic.partitions) return copy(topic);
    topic.partitions = partitions;
    await this.changed(topic);
    return copy(topic);
  }

  async setEndOffsets(name: string, endOffsets: { partition: number; endOffset: number }[]): Promise<TopicInfo> {
    const topic = this.require(name);
    for (const { partition, endOffset } of endOffsets) {
      if (!Number.isInteger(partition) || partition < 0 || partition >= topic.partitions) {
        throw KafkaError.of('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' has no partition ${partition}`);
      }
      if (!Number.isSafeInteger(endOffset) || endOffset < 0) {
        throw KafkaError.of('INVALID_REQUEST', `endOffset of partition ${partition} must be a non-negative integer`);
      }
    }
    for (const { partition, endOffset } of endOffsets) topic.endOffsets[partition] = endOffset;
    await this.persist?.(this.list());
    return copy(topic);
  }

  onPartitionsChanged(listener: (topic: TopicInfo) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private require(name: string): TopicInfo {
    const topic = this.topics.get(name);
    if (!topic) throw KafkaError.of('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' does not exist`);
    return topic;
  }

  private async changed(topic: TopicInfo): Promise<void> {
    await this.persist?.(this.list());
    for (const listener of [...this.listeners]) listener(copy(topic));
  }
}

function validateName(name: string): void {
  if (typeof name !== 'string' || !LEGAL_TOPIC_NAME.test(name) || name === '.' || name === '..') {
    throw KafkaError.of(
      'INVALID_REQUEST',
      `invalid topic name '${String(name)}': use 1-249 characters of [a-zA-Z0-9._-], not "." or ".."`,
    );
  }
}

function validateCount(partitions: number): void {
  if (!Number.isInteger(partitions) || partitions < 1 || partitions > 1_000_000) {
    throw KafkaError.of('INVALID_REQUEST', `partitions must be an integer between 1 and 1000000, got ${String(partitions)}`);
  }
}

function copy(topic: TopicInfo): TopicInfo {
  return { name: topic.name, partitions: topic.partitions, endOffsets: { ...topic.endOffsets } };
}
