import { type Clock, RealClock } from '@cohort/replication';
import type { EndOffsetReport, TopicInfo, TopicRegistry } from '../ports/topic-registry.port';
import { type EncodedTimeIndexes, TopicCatalog } from './topic-catalog';
import { applyEndOffsets, copyTopic, requireTopic, validateEndOffsets, validateGrowth } from './topic-rules';

export interface InMemoryTopicRegistryOptions {
  /** Topics to start with (e.g. read back from a file in embedded mode). */
  topics?: TopicInfo[];
  /** Their end-offset time indexes as `persist` was given them (a topic or partition missing starts afresh). */
  timeIndexes?: EncodedTimeIndexes;
  /**
   * Called with every topic and their time indexes after each change, and awaited before the change is
   * acknowledged, so the app can persist the registry (a file under DATA_DIR in embedded mode).
   */
  persist?: (topics: TopicInfo[], timeIndexes: EncodedTimeIndexes) => Promise<void> | void;
  /** Stamps each end-offset report with its arrival (the real clock unless a test drives one). */
  clock?: Clock;
}

/**
 * The topic registry of one process: partition counts (for assignors and commit validation) and
 * reported log end offsets (for lag). Listeners hear about creations and growth after persistence.
 */
export class InMemoryTopicRegistry extends TopicCatalog implements TopicRegistry {
  private readonly listeners = new Set<(topic: TopicInfo) => void>();
  private readonly endOffsetListeners = new Set<(topic: string, partitions: number[]) => void>();
  private readonly persist?: (topics: TopicInfo[], timeIndexes: EncodedTimeIndexes) => Promise<void> | void;
  private readonly clock: Clock;

  constructor(options: InMemoryTopicRegistryOptions = {}) {
    super();
    this.clock = options.clock ?? new RealClock();
    for (const topic of options.topics ?? []) {
      this.topics.set(topic.name, copyTopic(topic));
      for (const partition of Object.keys(topic.endOffsets).map(Number))
        this.restoreTimeIndex(topic, partition, options.timeIndexes?.[topic.name]?.[partition]);
    }
    this.persist = options.persist;
  }

  async create(name: string, partitions: number): Promise<TopicInfo> {
    this.checkNewTopic(name, partitions);
    const topic: TopicInfo = { name, partitions, endOffsets: {} };
    this.topics.set(name, topic);
    await this.changed(topic);
    return copyTopic(topic);
  }

  async setPartitions(name: string, partitions: number): Promise<TopicInfo> {
    const topic = this.require(name);
    validateGrowth(topic, partitions);
    if (partitions === topic.partitions) return copyTopic(topic);
    topic.partitions = partitions;
    await this.changed(topic);
    return copyTopic(topic);
  }

  async setEndOffsets(name: string, endOffsets: EndOffsetReport[]): Promise<TopicInfo> {
    const topic = this.require(name);
    const now = this.clock.now();
    validateEndOffsets(topic, endOffsets, now);
    applyEndOffsets(topic, endOffsets, now, this.timeIndexesOf(name));
    await this.persist?.(this.list(), this.encodedTimeIndexes());
    const partitions = [...new Set(endOffsets.map((report) => report.partition))];
    for (const listener of [...this.endOffsetListeners]) listener(name, partitions);
    return copyTopic(topic);
  }

  onEndOffsetsChanged(listener: (topic: string, partitions: number[]) => void): () => void {
    this.endOffsetListeners.add(listener);
    return () => void this.endOffsetListeners.delete(listener);
  }

  onPartitionsChanged(listener: (topic: TopicInfo) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  private require(name: string): TopicInfo {
    return requireTopic(name, this.topics.get(name));
  }

  private async changed(topic: TopicInfo): Promise<void> {
    await this.persist?.(this.list(), this.encodedTimeIndexes());
    for (const listener of [...this.listeners]) listener(copyTopic(topic));
  }
}
