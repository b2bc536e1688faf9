import type { Redis } from 'ioredis';
import type { Clock } from '../../time/clock';
import { RealClock } from '../../time/real-clock';
import type { CasOutcome, MetadataChangeListener, MetadataStore } from '../metadata-store.port';
import type { ControllerLease, NodeRegistration } from '../node-registration';
import type { PartitionState } from '../partition-state';
import { requireInt, requirePositiveInt } from './argument-checks';
import { ChangeFeed } from './change-feed';
import { ACQUIRE_LEASE, GET_LEASE, RELEASE_LEASE } from './controller-scripts';
import type { LuaScript } from './lua-script';
import { MetadataRestorer } from './metadata-restorer';
import { MetadataStoreUnavailableError } from './metadata-store-unavailable-error';
import { DEREGISTER_NODE, LIST_NODES, REGISTER_NODE, RENEW_NODE, REQUEST_SHUTDOWN } from './node-scripts';
import { COMPARE_AND_SET_PARTITION, CREATE_PARTITIONS, GET_PARTITION, LIST_PARTITIONS } from './partition-scripts';
import { checkPartitionState, decodePartitionState, encodePartitionState } from './partition-state-json';
import { connectWithin, describeRedisLocation, openRedis } from './redis-connections';
import { describeFailure, isMetadataLost, quit } from './redis-failures';
import { RedisMetadataKeys } from './redis-metadata-keys';
import type { RedisMetadataStoreOptions } from './redis-metadata-store-options';
import { SeenMetadata } from './seen-metadata';

export type { RedisMetadataStoreEvents, RedisMetadataStoreOptions } from './redis-metadata-store-options';

/**
 * The metadata store of cluster mode, in Redis through ioredis. Behaves as InMemoryMetadataStore does
 * (the shared contract suite runs against both): each operation is one Lua script, so it is atomic and
 * linearizable; registrations and the controller lease are keys with a TTL, so expiry runs on Redis's
 * clock; change hints are published on `<clusterId>:changes` and received on a second connection.
 *
 * Redis restarts: operations reject with MetadataStoreUnavailableError while Redis is down; the
 * connections come back by themselves; watchers are told that everything may have changed (and get
 * every partition state again), since hints published during the outage were missed. If Redis came
 * back empty, the store puts back what it has seen (recovery-script.ts).
 */
export class RedisMetadataStore implements MetadataStore {
  private readonly keys: RedisMetadataKeys;
  private readonly feed = new ChangeFeed();
  private readonly seen = new SeenMetadata();
  private readonly where: string;
  private readonly recoveryWindowMs: number;
  private readonly restorer: MetadataRestorer;
  private resyncPending = false;
  private down = false;
  private closed = false;

  private constructor(
    private readonly redis: Redis,
    private readonly subscriber: Redis,
    private readonly clock: Clock,
    private readonly options: RedisMetadataStoreOptions,
  ) {
    this.keys = new RedisMetadataKeys(options.clusterId);
    this.where = `Redis at ${describeRedisLocation(options)}, cluster ${options.clusterId}`;
    this.recoveryWindowMs = options.recoveryWindowMs ?? 3_000;
    this.restorer = new MetadataRestorer(
      redis,
      this.keys,
      this.seen,
      this.recoveryWindowMs,
      this.where,
      options.events,
    );
  }

  /** Connects both connections, subscribes to the change channel and initializes or restores the metadata. */
  static async connect(options: RedisMetadataStoreOptions): Promise<RedisMetadataStore> {
    const clock = options.clock ?? new RealClock();
    const settings = {
      url: options.url,
      sentinels: options.sentinels,
      sentinelName: options.sentinelName,
      commandTimeoutMs: options.commandTimeoutMs ?? 5_000,
      maxReconnectDelayMs: options.maxReconnectDelayMs ?? 1_000,
    };
    const redis = openRedis({ ...settings, connectionName: `cohort-${options.clusterId}-metadata` });
    const subscriber = openRedis({ ...settings, connectionName: `cohort-${options.clusterId}-changes` });
    const store = new RedisMetadataStore(redis, subscriber, clock, options);
    const timeout = options.connectTimeoutMs ?? 10_000;
    try {
      await Promise.all([
        connectWithin(redis, clock, timeout, store.where),
        connectWithin(subscriber, clock, timeout, store.where),
      ]);
      await subscriber.subscribe(store.keys.changes);
      await store.restorer.restore();
    } catch (error) {
      redis.disconnect();
      subscriber.disconnect();
      throw error instanceof MetadataStoreUnavailableError
        ? error
        : new MetadataStoreUnavailableError(store.where, error);
    }
    store.watchConnections();
    return store;
  }

  async registerNode(
    nodeId: number,
    endpoint: string,
    previousNodeEpoch: number,
    sessionTimeoutMs: number,
  ): Promise<NodeRegistration> {
    requireInt('nodeId', nodeId);
    requireInt('previousNodeEpoch', previousNodeEpoch);
    requirePositiveInt('sessionTimeoutMs', sessionTimeoutMs);
    if (typeof endpoint !== 'string') throw new TypeError('endpoint must be a string');
    const k = this.keys;
    const nodeEpoch = Number(
      await this.call(
        REGISTER_NODE,
        [k.alive, k.nodeEpoch, k.nodes, k.node(nodeId), k.changes],
        [nodeId, endpoint, previousNodeEpoch, sessionTimeoutMs, this.seen.maxNodeEpoch],
      ),
    );
    this.seen.observeNodeEpoch(nodeEpoch);
    return { nodeId, nodeEpoch, endpoint, shuttingDown: false, previousNodeEpoch };
  }

  async renewNode(nodeId: number, nodeEpoch: number, sessionTimeoutMs: number): Promise<boolean> {
    requireInt('nodeId', nodeId);
    requirePositiveInt('sessionTimeoutMs', sessionTimeoutMs);
    return (
      (await this.call(RENEW_NODE, [this.keys.alive, this.keys.node(nodeId)], [nodeEpoch, sessionTimeoutMs])) === 1
    );
  }

  async requestShutdown(nodeId: number, nodeEpoch: number): Promise<boolean> {
    requireInt('nodeId', nodeId);
    const k = this.keys;
    return (await this.call(REQUEST_SHUTDOWN, [k.alive, k.node(nodeId), k.changes], [nodeEpoch])) === 1;
  }

  async deregisterNode(nodeId: number, nodeEpoch: number): Promise<void> {
    requireInt('nodeId', nodeId);
    const k = this.keys;
    await this.call(DEREGISTER_NODE, [k.alive, k.node(nodeId), k.nodes, k.changes], [nodeId, nodeEpoch]);
  }

  async listNodes(): Promise<NodeRegistration[]> {
    const rows = (await this.call(
      LIST_NODES,
      [this.keys.alive, this.keys.nodes],
      [this.keys.nodePrefix],
    )) as string[][];
    const nodes = rows.map(([id, epoch, endpoint, shuttingDown, previous]) => ({
      nodeId: Number(id),
      nodeEpoch: Number(epoch),
      endpoint,
      shuttingDown: shuttingDown === '1',
      previousNodeEpoch: Number(previous),
    }));
    for (const n of nodes) this.seen.observeNodeEpoch(n.nodeEpoch);
    return nodes.sort((a, b) => a.nodeId - b.nodeId);
  }

  async acquireControllerLease(nodeId: number, leaseMs: number): Promise<ControllerLease | null> {
    requireInt('nodeId', nodeId);
    requirePositiveInt('leaseMs', leaseMs);
    const k = this.keys;
    const epoch = Number(
      await this.call(
        ACQUIRE_LEASE,
        [k.alive, k.controller, k.controllerEpoch, k.changes],
        [nodeId, leaseMs, this.seen.maxControllerEpoch, this.recoveryWindowMs],
      ),
    );
    if (epoch < 0) return null;
    this.seen.observeControllerEpoch(epoch);
    return { nodeId, controllerEpoch: epoch };
  }

  async releaseControllerLease(nodeId: number, controllerEpoch: number): Promise<void> {
    requireInt('nodeId', nodeId);
    await this.call(
      RELEASE_LEASE,
      [this.keys.alive, this.keys.controller, this.keys.changes],
      [nodeId, controllerEpoch],
    );
  }

  async getControllerLease(): Promise<ControllerLease | null> {
    const holder = (await this.call(GET_LEASE, [this.keys.alive, this.keys.controller], [])) as string[];
    if (holder.length === 0) return null;
    const lease = { nodeId: Number(holder[0]), controllerEpoch: Number(holder[1]) };
    this.seen.observeControllerEpoch(lease.controllerEpoch);
    return lease;
  }

  async listPartitions(): Promise<PartitionState[]> {
    const values = (await this.call(LIST_PARTITIONS, [this.keys.alive, this.keys.partitions], [])) as string[];
    const states = values.map(decodePartitionState).sort((a, b) => a.partition - b.partition);
    for (const s of states) this.seen.observePartition(s);
    return states;
  }

  async getPartition(partition: number): Promise<PartitionState | null> {
    requireInt('partition', partition);
    const json = (await this.call(GET_PARTITION, [this.keys.alive, this.keys.partitions], [partition])) as
      string | null;
    if (json === null) return null;
    const state = decodePartitionState(json);
    this.seen.observePartition(state);
    return state;
  }

  async createPartitions(states: PartitionState[], controllerEpoch: number): Promise<number> {
    states.forEach(checkPartitionState);
    // Only the first state given for a partition can be created, as in memory.
    const args: (string | number)[] = [controllerEpoch];
    for (const s of states) args.push(s.partition, encodePartitionState(s));
    const k = this.keys;
    return Number(await this.call(CREATE_PARTITIONS, [k.alive, k.controller, k.partitions, k.changes], args));
  }

  async compareAndSetPartition(
    expectedPartitionEpoch: number,
    next: PartitionState,
    controllerEpoch: number,
  ): Promise<CasOutcome> {
    checkPartitionState(next);
    const json = encodePartitionState(next);
    const k = this.keys;
    const [outcome, current] = (await this.call(
      COMPARE_AND_SET_PARTITION,
      [k.alive, k.controller, k.partitions, k.changes],
      [controllerEpoch, next.partition, expectedPartitionEpoch, json],
    )) as [string, string | undefined];
    switch (outcome) {
      case 'OK': {
        const state = decodePartitionState(json);
        this.seen.observePartition(state);
        return { ok: true, state };
      }
      case 'STALE_PARTITION_EPOCH': {
        const state = decodePartitionState(current ?? '');
        this.seen.observePartition(state);
        return { ok: false, reason: 'STALE_PARTITION_EPOCH', current: state };
      }
      case 'UNKNOWN_PARTITION':
        return { ok: false, reason: 'UNKNOWN_PARTITION', current: null };
      default:
        return { ok: false, reason: 'NOT_CONTROLLER', current: null };
    }
  }

  watch(listener: MetadataChangeListener): () => void {
    return this.feed.add(listener);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.feed.clear();
    await Promise.all([quit(this.redis), quit(this.subscriber)]);
  }

  /** Runs one operation; when the metadata turns out to be missing, restores it and runs it once more. */
  private async call(script: LuaScript, keys: string[], args: (string | number)[]): Promise<unknown> {
    if (this.closed) throw new MetadataStoreUnavailableError(this.where, new Error('the store is closed'));
    // After a reconnect, what this store saw goes back first: its own next write must not build on a
    // copy that lost one of its earlier writes.
    await this.restorer.settled();
    try {
      return await script.run(this.redis, keys, args);
    } catch (error) {
      if (!isMetadataLost(error)) throw describeFailure(this.where, script, error);
    }
    await this.restorer.restore();
    try {
      return await script.run(this.redis, keys, args);
    } catch (error) {
      throw describeFailure(this.where, script, error);
    }
  }

  private watchConnections(): void {
    this.redis.on('ready', () => {
      this.down = false;
      this.background(this.restorer.restore().then(() => this.options.events?.onReconnected?.()));
      this.maybeResync();
    });
    this.subscriber.on('ready', () => {
      // Hints published while the subscriber was away are lost: tell the watchers to re-read.
      this.resyncPending = true;
      this.maybeResync();
    });
    this.subscriber.on('message', (_channel: string, message: string) => {
      try {
        const state = this.feed.dispatch(message);
        if (state) this.seen.observePartition(state);
      } catch (error) {
        this.options.events?.onBackgroundError?.(error as Error);
      }
    });
    const onError = (error: Error) => {
      if (this.down || this.closed) return;
      this.down = true;
      this.options.events?.onDisconnected?.(new MetadataStoreUnavailableError(this.where, error));
    };
    this.redis.on('error', onError);
    this.subscriber.on('error', onError);
  }

  /** Once both connections are back after the subscriber dropped: every hint again, from a fresh read. */
  private maybeResync(): void {
    if (!this.resyncPending || this.closed || this.redis.status !== 'ready' || this.subscriber.status !== 'ready')
      return;
    this.resyncPending = false;
    const resync = this.restorer
      .restore()
      .then(() => this.listPartitions())
      .then((states) => {
        this.feed.nodesChanged();
        this.feed.controllerChanged();
        for (const s of states) this.feed.partitionChanged(s);
      });
    this.background(
      resync.catch((error: unknown) => {
        // Still disconnected or Redis busy: try again shortly unless a reconnect does it first.
        this.resyncPending = true;
        this.clock.schedule(500, () => this.maybeResync());
        throw error;
      }),
    );
  }

  private background(task: Promise<unknown>): void {
    task.catch((error: unknown) => {
      if (!this.closed) this.options.events?.onBackgroundError?.(error as Error);
    });
  }
}
