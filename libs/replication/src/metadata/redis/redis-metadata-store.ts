import type { Redis } from 'ioredis';
import type { Clock } from '../../time/clock';
import { RealClock } from '../../time/real-clock';
import type { CasOutcome, MetadataChangeListener, MetadataStore } from '../metadata-store.port';
import type { ControllerLease, NodeRegistration } from '../node-registration';
import type { PartitionState } from '../partition-state';
import { ChangeFeed } from './change-feed';
import { ACQUIRE_LEASE, GET_LEASE, RELEASE_LEASE } from './controller-scripts';
import { METADATA_LOST, type LuaScript } from './lua-script';
import { MetadataStoreUnavailableError, redactRedisUrl } from './metadata-store-unavailable-error';
import { DEREGISTER_NODE, LIST_NODES, REGISTER_NODE, RENEW_NODE, REQUEST_SHUTDOWN } from './node-scripts';
import { COMPARE_AND_SET_PARTITION, CREATE_PARTITIONS, GET_PARTITION, LIST_PARTITIONS } from './partition-scripts';
import { checkPartitionState, decodePartitionState, encodePartitionState } from './partition-state-json';
import { isForked, repairForkedPartition } from './forked-partition-repair';
import { REPAIR_PARTITION, RESTORE_METADATA } from './recovery-script';
import { connectWithin, openRedis, type RedisLocation } from './redis-connections';
import { RedisMetadataKeys } from './redis-metadata-keys';
import { SeenMetadata } from './seen-metadata';

export interface RedisMetadataStoreOptions extends RedisLocation {
  /** REDIS_URL (with `sentinels`: only credentials and database; the Sentinels name the master). */
  url: string;
  /** CLUSTER_ID: every key and the change channel live under `<clusterId>:`. */
  clusterId: string;
  /**
   * How long after the metadata was initialized or lost no controller may be elected, so that live
   * nodes can first restore what they know (recovery-script.ts). Longer than a node's reconnect
   * back-off plus one heartbeat. Default 3000.
   */
  recoveryWindowMs?: number;
  /** Default 5000. */
  commandTimeoutMs?: number;
  /** How long `connect` waits for Redis. Default 10000. */
  connectTimeoutMs?: number;
  /** Default 1000. */
  maxReconnectDelayMs?: number;
  clock?: Clock;
  events?: RedisMetadataStoreEvents;
}

/** What the store reports of its connection, for logs and tests. */
export interface RedisMetadataStoreEvents {
  /** Redis became unreachable (once per outage). */
  onDisconnected?(error: Error): void;
  /** The connection is back (and the metadata checked and, if it was lost, restored). */
  onReconnected?(): void;
  /** A restore found the metadata missing (`initialized`) or, inside the window, put partition states back (`merged`). */
  onRestored?(mode: 'initialized' | 'merged', restoredPartitions: number): void;
  /** Redis held `stored` while this store had seen `seen` (lost writes); `repaired` replaced it. */
  onForkRepaired?(stored: PartitionState, seen: PartitionState, repaired: PartitionState): void;
  /** A background task (restore or watcher resync after a reconnect) failed; it is retried. */
  onBackgroundError?(error: Error): void;
}

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
  private restoring: Promise<void> | null = null;
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
    const at = options.sentinels?.length ? `master ${options.sentinelName ?? 'mymaster'} of Sentinels ${options.sentinels.map((x) => `${x.host}:${x.port}`).join(',')}` : redactRedisUrl(options.url);
    this.where = `Redis at ${at}, cluster ${options.clusterId}`;
    this.recoveryWindowMs = options.recoveryWindowMs ?? 3_000;
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
      await Promise.all([connectWithin(redis, clock, timeout, store.where), connectWithin(subscriber, clock, timeout, store.where)]);
      await subscriber.subscribe(store.keys.changes);
      await store.restore();
    } catch (error) {
      redis.disconnect();
      subscriber.disconnect();
      throw error instanceof MetadataStoreUnavailableError ? error : new MetadataStoreUnavailableError(store.where, error);
    }
    store.watchConnections();
    return store;
  }

  async registerNode(nodeId: number, endpoint: string, previousNodeEpoch: number, sessionTimeoutMs: number): Promise<NodeRegistration> {
    requireInt('nodeId', nodeId);
    requireInt('previousNodeEpoch', previousNodeEpoch);
    requirePositiveInt('sessionTimeoutMs', sessionTimeoutMs);
    if (typeof endpoint !== 'string') throw new TypeError('endpoint must be a string');
    const k = this.keys;
    const nodeEpoch = Number(
      await this.call(REGISTER_NODE, [k.alive, k.nodeEpoch, k.nodes, k.node(nodeId), k.changes], [nodeId, endpoint, previousNodeEpoch, sessionTimeoutMs, this.seen.maxNodeEpoch]),
    );
    this.seen.observeNodeEpoch(nodeEpoch);
    return { nodeId, nodeEpoch, endpoint, shuttingDown: false, previousNodeEpoch };
  }

  async renewNode(nodeId: number, nodeEpoch: number, sessionTimeoutMs: number): Promise<boolean> {
    requireInt('nodeId', nodeId);
    requirePositiveInt('sessionTimeoutMs', sessionTimeoutMs);
    return (await this.call(RENEW_NODE, [this.keys.alive, this.keys.node(nodeId)], [nodeEpoch, sessionTimeoutMs])) === 1;
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
    const rows = (await this.call(LIST_NODES, [this.keys.alive, this.keys.nodes], [this.keys.nodePrefix])) as string[][];
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
      await this.call(ACQUIRE_LEASE, [k.alive, k.controller, k.controllerEpoch, k.changes], [nodeId, leaseMs, this.seen.maxControllerEpoch, this.recoveryWindowMs]),
    );
    if (epoch < 0) return null;
    this.seen.observeControllerEpoch(epoch);
    return { nodeId, controllerEpoch: epoch };
  }

  async releaseControllerLease(nodeId: number, controllerEpoch: number): Promise<void> {
    requireInt('nodeId', nodeId);
    await this.call(RELEASE_LEASE, [this.keys.alive, this.keys.controller, this.keys.changes], [nodeId, controllerEpoch]);
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
    const json = (await this.call(GET_PARTITION, [this.keys.alive, this.keys.partitions], [partition])) as string | null;
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

  async compareAndSetPartition(expectedPartitionEpoch: number, next: PartitionState, controllerEpoch: number): Promise<CasOutcome> {
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
    if (this.restoring) await this.restoring.catch(() => undefined);
    try {
      return await script.run(this.redis, keys, args);
    } catch (error) {
      if (!isMetadataLost(error)) throw this.describe(script, error);
    }
    await this.restore();
    try {
      return await script.run(this.redis, keys, args);
    } catch (error) {
      throw this.describe(script, error);
    }
  }

  /** Puts back what this store has seen (single flight: concurrent callers share one run). */
  private restore(): Promise<void> {
    this.restoring ??= this.runRestore().finally(() => (this.restoring = null));
    return this.restoring;
  }

  private async runRestore(): Promise<void> {
    const k = this.keys;
    const args: (string | number)[] = [this.recoveryWindowMs, this.seen.maxNodeEpoch, this.seen.maxControllerEpoch];
    for (const s of this.seen.partitionStates()) args.push(s.partition, s.partitionEpoch, encodePartitionState(s));
    let outcome: [string, number, ...string[]];
    try {
      outcome = (await RESTORE_METADATA.run(this.redis, [k.alive, k.nodeEpoch, k.controllerEpoch, k.partitions, k.changes], args)) as [string, number, ...string[]];
    } catch (error) {
      throw this.describe(RESTORE_METADATA, error);
    }
    const [mode, restored, ...stored] = outcome;
    if (mode === 'initialized' || (mode === 'merged' && Number(restored) > 0)) this.options.events?.onRestored?.(mode, Number(restored));
    await this.repairForks(stored);
  }

  /**
   * Redis holds an older or a different copy of a partition state than one this store saw: writes were
   * lost without the metadata being lost (a failover to a replica that missed them). Replace it with a
   * state newer in partition and leader epoch than both, so no leader epoch is ever used twice.
   */
  private async repairForks(storedJson: string[]): Promise<void> {
    const seen = new Map(this.seen.partitionStates().map((s) => [s.partition, s]));
    for (const json of storedJson) {
      const stored = decodePartitionState(json);
      const mine = seen.get(stored.partition);
      if (!mine || !isForked(stored, mine)) continue;
      const repaired = repairForkedPartition(stored, mine);
      const repairedJson = encodePartitionState(repaired);
      const k = this.keys;
      const done = await REPAIR_PARTITION.run(this.redis, [k.alive, k.partitions, k.changes], [stored.partition, json, repairedJson]).catch((e: unknown) => {
        throw this.describe(REPAIR_PARTITION, e);
      });
      if (done === 1) {
        this.seen.observePartition(repaired);
        this.options.events?.onForkRepaired?.(stored, mine, repaired);
      }
    }
  }

  private watchConnections(): void {
    this.redis.on('ready', () => {
      this.down = false;
      this.background(this.restore().then(() => this.options.events?.onReconnected?.()));
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
    if (!this.resyncPending || this.closed || this.redis.status !== 'ready' || this.subscriber.status !== 'ready') return;
    this.resyncPending = false;
    const resync = this.restore()
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

  private describe(script: LuaScript, error: unknown): Error {
    if (isUnavailable(error)) return new MetadataStoreUnavailableError(this.where, error);
    const message = error instanceof Error ? error.message : String(error);
    return new Error(`metadata store (${this.where}): ${script.name} failed: ${message}`, { cause: error });
  }
}

/** Connection-level failures (as opposed to Redis refusing a script, which is a bug). */
function isUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return true;
  if (error.name !== 'ReplyError') return true;
  return /^(LOADING|BUSY|MASTERDOWN|READONLY|TRYAGAIN|CLUSTERDOWN|NOREPLICAS)\b/.test(error.message) || isMetadataLost(error);
}

function isMetadataLost(error: unknown): boolean {
  return error instanceof Error && error.message.includes(METADATA_LOST);
}

async function quit(redis: Redis): Promise<void> {
  try {
    if (redis.status === 'ready') await redis.quit();
  } catch {
    // Already gone: nothing to say goodbye to.
  } finally {
    redis.disconnect();
  }
}

function requireInt(name: string, value: number): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${name} must be an integer, got ${value}`);
}

function requirePositiveInt(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value <= 0) throw new RangeError(`${name} must be a positive integer (ms), got ${value}`);
}
