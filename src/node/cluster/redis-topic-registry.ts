import {
  applyEndOffsets,
  copyTopic,
  type EndOffsetReport,
  requireTopic,
  TopicCatalog,
  type TopicInfo,
  type TopicRegistry,
  validateEndOffsets,
  validateGrowth,
} from '@cohort/coordinator';
import { KafkaError } from '@cohort/protocol';
import { type Clock, connectWithin, describeRedisLocation, openRedis, type RedisLocation } from '@cohort/replication';
import type { Redis } from 'ioredis';
import { CREATE_TOPIC, GROW_TOPIC, RESTORE_TOPIC, SET_END_OFFSETS } from './topic-scripts';

export interface RedisTopicRegistryOptions extends RedisLocation {
  clusterId: string;
  clock: Clock;
  /** Failures of background work (re-reading after a hint, restoring after a Redis restart). */
  onError(error: unknown): void;
  connectTimeoutMs?: number;
}

/**
 * The topic registry of cluster mode (docs/rest.md), shared by every node through Redis (topic-scripts.ts).
 * Reads are answered from this node's copy, kept current by the change channel; writes go to Redis
 * atomically and update the copy before they return. Listeners hear of every creation and growth,
 * whichever node made it, so every node rebalances the groups it coordinates when a topic grows.
 *
 * Input is checked by the embedded registry's own rules (applied to a scratch copy of the topic as
 * Redis has it), so both modes refuse the same requests with the same Kafka errors.
 */
export class RedisTopicRegistry extends TopicCatalog implements TopicRegistry {
  private readonly listeners = new Set<(topic: TopicInfo) => void>();
  private readonly keys: { topics: string; changes: string; endOffsetsPrefix: string };

  private constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly options: RedisTopicRegistryOptions,
  ) {
    super();
    const prefix = `${options.clusterId}:`;
    this.keys = {
      topics: `${prefix}topics`,
      changes: `${prefix}topic-changes`,
      endOffsetsPrefix: `${prefix}topic-end-offsets:`,
    };
  }

  static async connect(options: RedisTopicRegistryOptions): Promise<RedisTopicRegistry> {
    const settings = {
      url: options.url,
      sentinels: options.sentinels,
      sentinelName: options.sentinelName,
      commandTimeoutMs: 5_000,
      maxReconnectDelayMs: 1_000,
    };
    const redis = openRedis({ ...settings, connectionName: `cohort-${options.clusterId}-topics` });
    const subscriber = openRedis({ ...settings, connectionName: `cohort-${options.clusterId}-topic-changes` });
    const where = `topic registry in Redis at ${describeRedisLocation(options)}`;
    const timeout = options.connectTimeoutMs ?? 10_000;
    try {
      await Promise.all([
        connectWithin(redis, options.clock, timeout, where),
        connectWithin(subscriber, options.clock, timeout, where),
      ]);
      const registry = new RedisTopicRegistry(redis, subscriber, options);
      await subscriber.subscribe(registry.keys.changes);
      await registry.reloadAll();
      registry.watchConnections();
      return registry;
    } catch (error) {
      redis.disconnect();
      subscriber.disconnect();
      throw error;
    }
  }

  async create(name: string, partitions: number): Promise<TopicInfo> {
    this.checkNewTopic(name, partitions);
    const created = await this.write(() =>
      CREATE_TOPIC.run(this.redis, [this.keys.topics, this.keys.changes], [name, partitions]),
    );
    if (created !== 1) throw KafkaError.of('INVALID_REQUEST', `topic '${name}' already exists`);
    return copyTopic(this.learn({ name, partitions, endOffsets: {} }));
  }

  async setPartitions(name: string, partitions: number): Promise<TopicInfo> {
    const current = requireTopic(name, await this.reload(name));
    validateGrowth(current, partitions);
    if (partitions === current.partitions) return copyTopic(current);
    const count = Number(
      await this.write(() => GROW_TOPIC.run(this.redis, [this.keys.topics, this.keys.changes], [name, partitions])),
    );
    if (count < 0) throw KafkaError.of('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' does not exist`);
    return copyTopic(this.learn({ ...current, partitions: count }));
  }

  async setEndOffsets(name: string, endOffsets: EndOffsetReport[]): Promise<TopicInfo> {
    const current = requireTopic(name, await this.reload(name));
    validateEndOffsets(current, endOffsets);
    // Merged here (a report without a start offset keeps the known one), stored per partition as one value.
    const merged = copyTopic(current);
    applyEndOffsets(merged, endOffsets, this.options.clock.now());
    const args = [
      name,
      ...endOffsets.flatMap(({ partition }) => [partition, encodePartitionOffsets(merged, partition)]),
    ];
    // Counts only grow, so partitions that existed when validated still exist: -1 only if Redis lost the topic.
    const outcome = Number(
      await this.write(() =>
        SET_END_OFFSETS.run(this.redis, [this.keys.topics, this.endOffsetsKey(name), this.keys.changes], args),
      ),
    );
    if (outcome !== 0) throw KafkaError.of('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' changed meanwhile; retry`);
    return copyTopic((await this.reload(name)) ?? { name, partitions: 0, endOffsets: {} });
  }

  onPartitionsChanged(listener: (topic: TopicInfo) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    await Promise.all([this.redis, this.subscriber].map((c) => c.quit().catch(() => c.disconnect())));
  }

  /** Updates this node's copy; tells the listeners when the topic is new or grew. */
  private learn(topic: TopicInfo): TopicInfo {
    const known = this.topics.get(topic.name);
    this.topics.set(topic.name, topic);
    if (!known || known.partitions < topic.partitions) for (const l of [...this.listeners]) l(copyTopic(topic));
    return topic;
  }

  /** The topic as Redis has it now (also refreshing this node's copy). */
  private async reload(name: string): Promise<TopicInfo | undefined> {
    const [count, offsets] = await this.write(() =>
      Promise.all([this.redis.hget(this.keys.topics, name), this.redis.hgetall(this.endOffsetsKey(name))]),
    );
    if (count === null) return undefined;
    const topic: TopicInfo = { name, partitions: Number(count), endOffsets: {}, startOffsets: {}, reportedAt: {} };
    for (const [p, value] of Object.entries(offsets)) decodePartitionOffsets(topic, Number(p), value);
    const known = this.topics.get(name);
    // A copy that is newer than what Redis says (Redis lost data) stays until restored.
    if (known && known.partitions > Number(count)) return known;
    return this.learn(topic);
  }

  private async reloadAll(): Promise<void> {
    const names = await this.write(() => this.redis.hkeys(this.keys.topics));
    await Promise.all(names.map((name) => this.reload(name)));
  }

  /** After Redis lost its data: put back every topic this node knows (counts only grow). */
  private async restore(): Promise<void> {
    for (const t of this.topics.values()) {
      const args = [
        t.name,
        t.partitions,
        ...Object.keys(t.endOffsets).flatMap((p) => [p, encodePartitionOffsets(t, Number(p))]),
      ];
      await RESTORE_TOPIC.run(this.redis, [this.keys.topics, this.endOffsetsKey(t.name), this.keys.changes], args);
    }
  }

  private watchConnections(): void {
    this.subscriber.on(
      'message',
      (_channel: string, message: string) => void this.reload(message.slice(1)).catch(this.options.onError),
    );
    // Back after an outage: hints were missed, and Redis may have come back empty.
    this.redis.on(
      'ready',
      () =>
        void this.restore()
          .then(() => this.reloadAll())
          .catch(this.options.onError),
    );
    this.subscriber.on('ready', () => void this.reloadAll().catch(this.options.onError));
    this.redis.on('error', () => undefined); // reported through the failing calls; ioredis reconnects
    this.subscriber.on('error', () => undefined);
  }

  private endOffsetsKey(name: string): string {
    return `${this.keys.endOffsetsPrefix}${name}`;
  }

  /** Redis unreachable is the client's to retry: COORDINATOR_NOT_AVAILABLE (503 over REST). */
  private async write<T>(call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (error) {
      if (error instanceof KafkaError) throw error;
      throw KafkaError.of(
        'COORDINATOR_NOT_AVAILABLE',
        `topic registry unavailable: ${error instanceof Error ? error.message : String(error)}`,
      );
    }
  }
}

/**
 * One partition's report in the end-offsets hash: `end|start|reportedAt` (start empty when unknown).
 * A bare number is an end offset stored before start offsets and arrival times were kept.
 */
function encodePartitionOffsets(topic: TopicInfo, partition: number): string {
  return `${topic.endOffsets[partition]}|${topic.startOffsets?.[partition] ?? ''}|${topic.reportedAt?.[partition] ?? ''}`;
}

function decodePartitionOffsets(topic: TopicInfo, partition: number, value: string): void {
  const [end, start, at] = value.split('|');
  topic.endOffsets[partition] = Number(end);
  if (start) topic.startOffsets![partition] = Number(start);
  if (at) topic.reportedAt![partition] = Number(at);
}
