import {
  applyEndOffsets,
  copyTopic,
  type EndOffsetReport,
  type EndOffsetTimeIndex,
  encodeTimeIndex,
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

/** Attempts at an end-offset report whose partitions another node changed between our read and our write. */
const REPORT_ATTEMPTS = 10;
/**
 * The longest pause before the next attempt, in ms. Nodes that lost a race retry after a random pause
 * (doubling per attempt up to this) instead of at once: two nodes reporting one partition in a loop
 * otherwise re-collide on every attempt, and on a busy machine one lost five times in a row.
 */
const REPORT_BACKOFF_MAX_MS = 64;

/**
 * The topic registry of cluster mode (docs/rest.md), shared by every node through Redis (topic-scripts.ts).
 * Reads are answered from this node's copy, kept current by the change channel; writes go to Redis
 * atomically and update the copy before they return. Listeners hear of every creation and growth,
 * whichever node made it, so every node rebalances the groups it coordinates when a topic grows.
 *
 * An end-offset report is merged here (start offsets kept, the time index grown and thinned, docs/lag.md)
 * and written only if the partitions still hold what was read (compare and set, retried), so two nodes
 * reporting one partition at once lose neither report's index entry. Other nodes re-read only the
 * partitions a report named.
 *
 * Input is checked by the embedded registry's own rules (applied to a scratch copy of the topic as
 * Redis has it), so both modes refuse the same requests with the same Kafka errors.
 */
export class RedisTopicRegistry extends TopicCatalog implements TopicRegistry {
  private readonly listeners = new Set<(topic: TopicInfo) => void>();
  private readonly endOffsetListeners = new Set<(topic: string, partitions: number[]) => void>();
  private readonly reporting = new Map<string, Promise<TopicInfo>>();
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

  /** Reports of one topic through this node go one after another (no point racing ourselves). */
  async setEndOffsets(name: string, endOffsets: EndOffsetReport[]): Promise<TopicInfo> {
    const previous = this.reporting.get(name) ?? Promise.resolve();
    const report = previous.catch(() => undefined).then(() => this.report(name, endOffsets));
    this.reporting.set(name, report);
    try {
      return await report;
    } finally {
      if (this.reporting.get(name) === report) this.reporting.delete(name);
    }
  }

  private async report(name: string, endOffsets: EndOffsetReport[]): Promise<TopicInfo> {
    const partitions = [...new Set(endOffsets.map((report) => report.partition))];
    for (let attempt = 1; ; attempt++) {
      const read = await this.reloadPartitions(name, partitions);
      const current = requireTopic(name, read?.topic);
      const now = this.options.clock.now();
      validateEndOffsets(current, endOffsets, now);
      // Merged on copies (a report without a start offset keeps the known one), stored per partition as one value.
      const merged = copyTopic(current);
      const indexes = new Map<number, EndOffsetTimeIndex>();
      for (const p of partitions) {
        const index = this.timeIndexes.get(name)?.get(p);
        if (index) indexes.set(p, [...index]);
      }
      applyEndOffsets(merged, endOffsets, now, indexes);
      const args = [
        name,
        ...partitions.flatMap((p) => [p, read!.raw.get(p) ?? '', encodePartitionOffsets(merged, p, indexes.get(p))]),
      ];
      // Counts only grow, so partitions that existed when validated still exist: -1 only if Redis lost the topic.
      const outcome = Number(
        await this.write(() =>
          SET_END_OFFSETS.run(this.redis, [this.keys.topics, this.endOffsetsKey(name), this.keys.changes], args),
        ),
      );
      if (outcome === 0) break;
      if (outcome !== -2) throw KafkaError.of('UNKNOWN_TOPIC_OR_PARTITION', `topic '${name}' changed meanwhile; retry`);
      if (attempt === REPORT_ATTEMPTS)
        throw KafkaError.of(
          'COORDINATOR_NOT_AVAILABLE',
          `end offsets of topic '${name}' are being reported through other nodes at the same time; retry`,
        );
      const pauseMs = Math.random() * Math.min(REPORT_BACKOFF_MAX_MS, 2 ** attempt);
      await new Promise((resume) => setTimeout(resume, pauseMs));
    }
    const reread = await this.reloadPartitions(name, partitions);
    this.endOffsetsChanged(name, partitions);
    return copyTopic(reread?.topic ?? { name, partitions: 0, endOffsets: {} });
  }

  onPartitionsChanged(listener: (topic: TopicInfo) => void): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  onEndOffsetsChanged(listener: (topic: string, partitions: number[]) => void): () => void {
    this.endOffsetListeners.add(listener);
    return () => void this.endOffsetListeners.delete(listener);
  }

  private endOffsetsChanged(name: string, partitions: number[]): void {
    for (const listener of [...this.endOffsetListeners]) listener(name, partitions);
  }

  async close(): Promise<void> {
    this.listeners.clear();
    this.endOffsetListeners.clear();
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
    const indexes = new Map<number, string | undefined>();
    for (const [p, value] of Object.entries(offsets))
      indexes.set(Number(p), decodePartitionOffsets(topic, Number(p), value));
    const known = this.topics.get(name);
    // A copy that is newer than what Redis says (Redis lost data) stays until restored.
    if (known && known.partitions > Number(count)) return known;
    this.timeIndexes.delete(name);
    for (const [p, index] of indexes) this.restoreTimeIndex(topic, p, index);
    const reported = reportsChanged(known, topic);
    const learned = this.learn(topic);
    // Reports this node had not heard of (their hints were missed, or it read the topic whole): told as
    // any report is, so the share partitions that wait on them see them.
    if (reported.length > 0) this.endOffsetsChanged(name, reported);
    return learned;
  }

  /**
   * Some partitions of a topic as Redis has them now, merged into this node's copy (a topic this node
   * does not know yet is read whole); with the raw values read, for a compare and set.
   */
  private async reloadPartitions(
    name: string,
    partitions: number[],
  ): Promise<{ topic: TopicInfo; raw: Map<number, string> } | undefined> {
    const keys = partitions.map(String);
    const [count, values] = await this.write(() =>
      Promise.all([
        this.redis.hget(this.keys.topics, name),
        keys.length > 0 ? this.redis.hmget(this.endOffsetsKey(name), ...keys) : Promise.resolve([]),
      ]),
    );
    if (count === null) return undefined;
    const known = this.topics.get(name);
    if (!known || known.partitions !== Number(count)) await this.reload(name);
    const topic = this.topics.get(name);
    if (!topic) return undefined;
    const raw = new Map<number, string>();
    partitions.forEach((p, i) => {
      const value = values[i];
      if (value === null || value === undefined) return;
      raw.set(p, value);
      this.restoreTimeIndex(topic, p, decodePartitionOffsets(topic, p, value));
    });
    return { topic, raw };
  }

  private async reloadAll(): Promise<void> {
    const names = await this.write(() => this.redis.hkeys(this.keys.topics));
    await Promise.all(names.map((name) => this.reload(name)));
  }

  /** After Redis lost its data: put back every topic this node knows (counts only grow). */
  private async restore(): Promise<void> {
    for (const t of this.topics.values()) {
      const indexes = this.timeIndexes.get(t.name);
      const args = [
        t.name,
        t.partitions,
        ...Object.keys(t.endOffsets).flatMap((p) => [p, encodePartitionOffsets(t, Number(p), indexes?.get(Number(p)))]),
      ];
      await RESTORE_TOPIC.run(this.redis, [this.keys.topics, this.endOffsetsKey(t.name), this.keys.changes], args);
    }
  }

  private watchConnections(): void {
    this.subscriber.on('message', (_channel: string, message: string) => {
      // `E<name>:<p>,<p>...` names the partitions a report changed; `P<name>` and `E<name>` the whole topic.
      const [name, partitions] = message.slice(1).split(':');
      const reported = message[0] === 'E' && partitions !== undefined ? partitions.split(',').map(Number) : undefined;
      const reading = reported
        ? this.reloadPartitions(name, reported).then(() => this.endOffsetsChanged(name, reported))
        : this.reload(name);
      void reading.catch(this.options.onError);
    });
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

/** The partitions whose reported end or start offset `read` holds and `known` (this node's copy) did not. */
function reportsChanged(known: TopicInfo | undefined, read: TopicInfo): number[] {
  const changed: number[] = [];
  for (const key of Object.keys(read.endOffsets)) {
    const p = Number(key);
    if (
      known?.endOffsets[p] !== read.endOffsets[p] ||
      (known.startOffsets?.[p] ?? null) !== (read.startOffsets?.[p] ?? null)
    )
      changed.push(p);
  }
  return changed;
}

/**
 * One partition's report in the end-offsets hash: `end|start|reportedAt|timeIndex` (start empty when
 * unknown; the time index as `encodeTimeIndex` writes it). A bare number is an end offset stored before
 * start offsets and arrival times were kept; three fields, a report stored before the time index.
 */
function encodePartitionOffsets(topic: TopicInfo, partition: number, index: EndOffsetTimeIndex | undefined): string {
  return `${topic.endOffsets[partition]}|${topic.startOffsets?.[partition] ?? ''}|${topic.reportedAt?.[partition] ?? ''}|${index ? encodeTimeIndex(index) : ''}`;
}

/** Sets the partition's offsets in `topic`; returns its encoded time index (undefined when none was stored). */
function decodePartitionOffsets(topic: TopicInfo, partition: number, value: string): string | undefined {
  const [end, start, at, index] = value.split('|');
  topic.endOffsets[partition] = Number(end);
  if (start) topic.startOffsets![partition] = Number(start);
  else delete topic.startOffsets![partition];
  if (at) topic.reportedAt![partition] = Number(at);
  return index || undefined;
}
