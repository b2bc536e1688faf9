import {
  controllerLeaseMsFor,
  DEFAULT_REPLICATION_CONFIG,
  ReplicationNode,
  SeededRandom,
  type PartitionState,
  type ReplicationConfig,
} from '@cohort/replication';
import {
  InMemoryCheckpointStorage,
  InMemoryMetadataStore,
  InMemoryNetwork,
  MemoryLog,
  describePartitionState,
  type LinkConditions,
  type Partition,
} from '@cohort/replication/testing';
import { rulesFor, type BrokenRule } from './broken-rules';
import { preloadedNodeEpoch } from './preload';
import { SimScheduler } from './sim-scheduler';
import { STORE_NODE_ID, SimStoreLink } from './sim-store-link';
import { Trace } from './trace';

export interface SimOptions {
  seed: number;
  nodes: number;
  config?: Partial<ReplicationConfig>;
  network?: Partial<LinkConditions>;
  fsyncLatencyMs?: number;
  brokenRule?: BrokenRule;
  /** Store call timeout on the simulated link. */
  storeTimeoutMs?: number;
}

/** A node's disk: survives crashes of the node. */
export interface SimDisk {
  logs: Map<number, MemoryLog>;
  checkpoints: InMemoryCheckpointStorage;
}

/** Replication settings for simulations: Kafka's rules with timeouts scaled down so runs stay short. */
export const SIM_CONFIG: ReplicationConfig = {
  ...DEFAULT_REPLICATION_CONFIG,
  numPartitions: 3,
  replicationFactor: 3,
  minInsyncReplicas: 2,
  replicaLagTimeMaxMs: 3_000,
  replicaFetchWaitMaxMs: 200,
  replicaFetchBackoffMs: 200,
  replicaFetchMaxRecords: 50,
  nodeSessionTimeoutMs: 3_000,
  nodeHeartbeatIntervalMs: 500,
  // As cluster mode derives it (1 s for this session), so simulated controllers fail over as fast as real ones.
  controllerLeaseMs: controllerLeaseMsFor(3_000),
  highWatermarkCheckpointIntervalMs: 2_000,
  leaderImbalanceCheckIntervalMs: 10_000,
  requestTimeoutMs: 2_000,
  logCleanerIntervalMs: 5_000,
  deleteRetentionMs: 60_000,
};

/**
 * The whole cluster in one process (the harness of the scenarios in docs/guarantees.md): N ReplicationNodes over a simulated
 * network, a shared in-memory metadata store reached through simulated links, simulated disks that
 * lose unflushed writes on a power cut, all driven by one seeded scheduler.
 */
export class SimCluster {
  readonly clock: SimScheduler;
  readonly random: SeededRandom;
  readonly network: InMemoryNetwork;
  readonly store: InMemoryMetadataStore;
  readonly config: ReplicationConfig;
  readonly trace = new Trace();
  readonly disks = new Map<number, SimDisk>();
  private readonly running = new Map<number, ReplicationNode>();
  readonly nodeIds: number[];
  /** Partition states (`partition:partitionEpoch`) written by the simulated operator, not the controller. */
  readonly adminElections = new Set<string>();
  /** Nodes in the middle of a controlled shutdown. */
  readonly shuttingDown = new Set<number>();
  /** (node, partition) pairs that lost unflushed data in a power cut, with the time. */
  readonly dataLoss: Array<{ nodeId: number; at: number }> = [];
  /** Errors nodes reported (a failed flush after a crash is expected; anything else is suspect). */
  readonly errors: Array<{ nodeId: number; context: string; error: unknown }> = [];
  afterEachStep: (() => void) | undefined;
  onPowerLoss: ((nodeId: number) => void) | undefined;
  onTruncate: ((nodeId: number, partition: number, toOffset: number, hw: number, reason: string) => void) | undefined;

  constructor(readonly options: SimOptions) {
    this.clock = new SimScheduler();
    this.random = new SeededRandom(options.seed);
    this.network = new InMemoryNetwork(this.clock, this.random, { minDelayMs: 1, maxDelayMs: 5, ...options.network });
    this.store = new InMemoryMetadataStore(this.clock);
    // A run that changes the session timeout gets production's lease for it, unless it sets one itself.
    const session = options.config?.nodeSessionTimeoutMs ?? SIM_CONFIG.nodeSessionTimeoutMs;
    this.config = { ...SIM_CONFIG, controllerLeaseMs: controllerLeaseMsFor(session), ...options.config };
    this.nodeIds = Array.from({ length: options.nodes }, (_, i) => i);
    for (const id of this.nodeIds)
      this.disks.set(id, { logs: new Map(), checkpoints: new InMemoryCheckpointStorage() });
    this.store.watch({
      onPartitionChanged: (s) => this.trace.add(this.clock.now(), `store ${describePartitionState(s)}`),
    });
  }

  /** Starts every node and waits until all partitions have a leader that can serve. */
  async start(): Promise<void> {
    for (const id of this.nodeIds) this.startNode(id);
    const ok = await this.runUntil(() => this.allPartitionsServing(), 30_000);
    if (!ok) throw new Error(`cluster did not come up\n${this.trace.dump()}`);
  }

  node(id: number): ReplicationNode | undefined {
    return this.running.get(id);
  }

  isUp(id: number): boolean {
    return this.running.has(id);
  }

  upNodes(): ReplicationNode[] {
    return this.nodeIds.map((id) => this.running.get(id)).filter((n): n is ReplicationNode => n !== undefined);
  }

  startNode(id: number): ReplicationNode {
    if (this.running.has(id)) throw new Error(`node ${id} is already running`);
    const disk = this.disks.get(id)!;
    const node = new ReplicationNode({
      nodeId: id,
      endpoint: `sim://${id}`,
      config: this.config,
      clock: this.clock,
      store: new SimStoreLink(id, this.store, this.network, this.options.storeTimeoutMs ?? 1_000),
      transport: this.network.connect(id),
      checkpoints: disk.checkpoints,
      openLog: async (partition) => {
        let log = disk.logs.get(partition);
        if (!log)
          disk.logs.set(
            partition,
            (log = new MemoryLog({ clock: this.clock, fsyncLatencyMs: this.options.fsyncLatencyMs ?? 2 })),
          );
        return log;
      },
      rules: rulesFor(this.options.brokenRule),
      observer: {
        trace: (line) => this.trace.add(this.clock.now(), line),
        onTruncate: (nodeId, partition, toOffset, hw, reason) => {
          this.trace.add(
            this.clock.now(),
            `node ${nodeId}: truncate p${partition} to ${toOffset} (hw ${hw}): ${reason}`,
          );
          this.onTruncate?.(nodeId, partition, toOffset, hw, reason);
        },
        onError: (nodeId, error, context) => {
          this.errors.push({ nodeId, context, error });
          this.trace.add(this.clock.now(), `node ${nodeId}: error ${context}: ${String(error)}`);
        },
      },
    });
    this.running.set(id, node);
    this.trace.add(this.clock.now(), `sim: start node ${id}`);
    void node.start();
    return node;
  }

  /**
   * Kills node `id`. A process crash keeps what the OS already has (unflushed writes survive); a power
   * cut (`powerLoss`) loses every unflushed write, except the first `keepUnflushedBatches` per log.
   */
  crash(id: number, opts: { powerLoss?: boolean; keepUnflushedBatches?: number } = {}): void {
    const node = this.running.get(id);
    if (!node) return;
    // Check the world as it is before the crash: continuations since the last event (an ack, a HW) must
    // be seen before a power cut takes the evidence away.
    this.afterEachStep?.();
    node.crash();
    this.running.delete(id);
    if (opts.powerLoss) {
      for (const log of this.disks.get(id)!.logs.values()) log.crash(opts.keepUnflushedBatches ?? 0);
      this.dataLoss.push({ nodeId: id, at: this.clock.now() });
      this.onPowerLoss?.(id);
    }
    this.trace.add(this.clock.now(), `sim: ${opts.powerLoss ? 'power cut' : 'crash'} node ${id}`);
  }

  /** The node's disk is replaced by an empty one (it must be down). */
  wipeDisk(id: number): void {
    if (this.running.has(id)) throw new Error(`node ${id} is running`);
    this.disks.set(id, { logs: new Map(), checkpoints: new InMemoryCheckpointStorage() });
    this.onPowerLoss?.(id);
    this.trace.add(this.clock.now(), `sim: wiped the disk of node ${id}`);
  }

  async restart(id: number): Promise<void> {
    this.startNode(id);
    await this.run(0);
  }

  /**
   * Starts a controlled shutdown of node `id` without driving the clock (the caller keeps running the
   * simulation); the node leaves the running set when it has stopped. Resolves then.
   */
  beginControlledShutdown(id: number, timeoutMs = 10_000): Promise<void> {
    const node = this.running.get(id);
    if (!node) return Promise.resolve();
    this.trace.add(this.clock.now(), `sim: controlled shutdown of node ${id}`);
    this.shuttingDown.add(id);
    return node.controlledShutdown(timeoutMs).finally(() => {
      this.shuttingDown.delete(id);
      if (this.running.get(id) === node) this.running.delete(id);
      // The process exits, the machine does not: the next start reads back everything the OS holds. The
      // stop flushed only the logs this process had opened; one that never registered (cut off the
      // store) opened none, and their unflushed tails from an earlier process are still in the page cache.
      for (const log of this.disks.get(id)!.logs.values()) log.reopen();
      this.trace.add(this.clock.now(), `sim: node ${id} stopped after controlled shutdown`);
    });
  }

  /** A controlled shutdown of node `id`, running the simulation until it has stopped. */
  async controlledShutdown(id: number, timeoutMs = 10_000): Promise<void> {
    let done = false;
    void this.beginControlledShutdown(id, timeoutMs).finally(() => (done = true));
    await this.runUntil(() => done, timeoutMs + 5_000);
  }

  /** Cuts `id` off every other node and the metadata store. */
  isolate(id: number): void {
    this.network.partition([id], [...this.nodeIds.filter((n) => n !== id), STORE_NODE_ID]);
    this.trace.add(this.clock.now(), `sim: isolate node ${id}`);
  }

  partitionNetwork(a: number[], b: number[]): void {
    this.network.partition(a, b);
    this.trace.add(this.clock.now(), `sim: partition [${a}] | [${b}]`);
  }

  heal(): void {
    this.network.heal();
    this.trace.add(this.clock.now(), `sim: heal`);
  }

  run(ms: number): Promise<void> {
    return this.clock.run(ms, this.afterEachStep);
  }

  runUntil(predicate: () => boolean, maxMs: number): Promise<boolean> {
    return this.clock.runUntil(predicate, maxMs, this.afterEachStep);
  }

  /** The metadata of `partition` as the store holds it now (synchronously, bypassing the network). */
  state(partition: number): PartitionState {
    const states = this.statesNow();
    const s = states.get(partition);
    if (!s) throw new Error(`partition ${partition} does not exist`);
    return s;
  }

  /** Every partition state in the store, read synchronously. */
  statesNow(): Map<number, PartitionState> {
    return new Map(this.store.partitionsSnapshot().map((s) => [s.partition, s]));
  }

  /**
   * The operator's unclean recovery (KIP-966's "longest log" strategy, done by hand): for a partition
   * whose ISR and ELR are empty because every member restarted without vouching for its data, elect
   * the live replica with the most recent log (highest last epoch, then longest). Returns the node
   * elected, or undefined.
   */
  async uncleanRecovery(partition: number): Promise<number | undefined> {
    const s = this.state(partition);
    if (s.leader !== -1 || s.isr.length > 0 || s.elr.length > 0) return undefined;
    const nodes = new Map(this.store.nodesSnapshot().map((n) => [n.nodeId, n]));
    // The most recent history wins: highest last epoch, then the longest log within it.
    let best: { id: number; leo: number; epoch: number } | undefined;
    for (const id of s.replicas) {
      const r = this.replica(id, partition);
      if (!r || !nodes.has(id)) continue;
      const candidate = { id, leo: r.log.logEndOffset, epoch: r.epochCache.latestEpoch() };
      if (!best || candidate.epoch > best.epoch || (candidate.epoch === best.epoch && candidate.leo > best.leo))
        best = candidate;
    }
    const lease = await this.store.getControllerLease();
    if (!best || !lease) return undefined;
    const next: PartitionState = {
      ...s,
      leader: best.id,
      isr: [{ nodeId: best.id, nodeEpoch: nodes.get(best.id)!.nodeEpoch }],
      elr: [],
      leaderEpoch: s.leaderEpoch + 1,
      partitionEpoch: s.partitionEpoch + 1,
      leaderRecoveryState: 'RECOVERING',
    };
    this.adminElections.add(`${partition}:${next.partitionEpoch}`);
    const outcome = await this.store.compareAndSetPartition(s.partitionEpoch, next, lease.controllerEpoch);
    this.trace.add(
      this.clock.now(),
      `sim: operator unclean recovery of p${partition} → node ${best.id} (LEO ${best.leo}): ${outcome.ok ? 'done' : outcome.reason}`,
    );
    return outcome.ok ? best.id : undefined;
  }

  /**
   * Creates a partition state before the nodes start (a history staged with `preloadReplica`); ISR
   * members carry their preloaded registration epochs.
   */
  async presetPartition(p: {
    partition: number;
    replicas: number[];
    leader: number;
    leaderEpoch: number;
    isr: number[];
    recovering: boolean;
  }): Promise<void> {
    const lease = await this.store.acquireControllerLease(-1, 1_000);
    if (!lease) throw new Error('cannot preset partitions while a controller runs');
    await this.store.createPartitions(
      [
        {
          partition: p.partition,
          replicas: p.replicas,
          isr: p.isr.map((nodeId) => ({ nodeId, nodeEpoch: preloadedNodeEpoch(nodeId) })),
          elr: [],
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          partitionEpoch: 0,
          leaderRecoveryState: p.recovering ? 'RECOVERING' : 'RECOVERED',
        },
      ],
      lease.controllerEpoch,
    );
    await this.store.releaseControllerLease(-1, lease.controllerEpoch);
  }

  /** The replica of `partition` on `nodeId`, if the node is up and has opened it. */
  replica(nodeId: number, partition: number): Partition | undefined {
    return this.running.get(nodeId)?.replicas.partition(partition);
  }

  /** The node currently leading `partition` (metadata leader whose replica acts as leader). */
  leaderOf(partition: number): ReplicationNode | undefined {
    const s = this.state(partition);
    const node = this.running.get(s.leader);
    const p = node?.replicas.partition(partition);
    return p && p.role === 'leader' && p.leaderEpoch === s.leaderEpoch ? node : undefined;
  }

  /** Every partition has a leader whose HW reached its epoch start (the coordinator could load it). */
  allPartitionsServing(): boolean {
    const states = this.statesNow();
    if (states.size < this.config.numPartitions) return false;
    for (const s of states.values()) {
      const p = this.leaderOf(s.partition)?.replicas.partition(s.partition);
      if (!p || !p.isLoadable()) return false;
    }
    return true;
  }

  /** Every partition has all replicas in its ISR and every live replica at the leader's LEO and HW. */
  fullyReplicated(): boolean {
    for (const s of this.statesNow().values()) {
      if (s.isr.length !== s.replicas.length) return false;
      const leader = this.leaderOf(s.partition)?.replicas.partition(s.partition);
      if (!leader || !leader.isLoadable()) return false;
      for (const id of s.replicas) {
        const r = this.replica(id, s.partition);
        if (!r || r.log.logEndOffset !== leader.log.logEndOffset || r.hw !== leader.hw) return false;
      }
    }
    return true;
  }
}
