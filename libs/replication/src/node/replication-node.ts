import type { PartitionLog } from '../log/partition-log';
import { ControllerLeaseKeeper } from '../controller/controller-lease-keeper';
import type { MetadataStore } from '../metadata/metadata-store.port';
import { NO_LEADER } from '../metadata/partition-state';
import type { ReplicationRules } from '../partition/replication-rules';
import type { ReplicationConfig } from '../replication-config';
import type { CheckpointStorage } from '../storage/checkpoint-storage.port';
import type { Clock } from '../time/clock';
import type { DescribeLogEndsResponse } from '../transport/messages';
import type { Transport } from '../transport/transport.port';
import { ReplicaManager, type ReplicaObserver } from './replica-manager';
import { TaskScope } from './task-scope';

export interface ReplicationNodeDeps {
  nodeId: number;
  /** What peers put in `PeerAddress.endpoint` to reach this node's transport. */
  endpoint: string;
  config: ReplicationConfig;
  clock: Clock;
  store: MetadataStore;
  transport: Transport;
  checkpoints: CheckpointStorage;
  openLog: (partition: number) => Promise<PartitionLog>;
  /** Kafka's rules unless the simulator's self-test breaks one on purpose. */
  rules?: ReplicationRules;
  observer?: ReplicaObserver;
}

const LAST_EPOCH_FILE = 'node-epoch';
const CLEAN_SHUTDOWN_FILE = 'clean-shutdown';

/**
 * One replication node: registration and its renewal (with self-fencing when renewal cannot be proven
 * in time), the controller lease, and the ReplicaManager. The same code runs embedded (one node, an
 * in-memory store), in cluster mode (Redis, network transport) and in the simulator.
 */
export class ReplicationNode {
  readonly replicas: ReplicaManager;
  private readonly scope: TaskScope;
  private readonly keeper: ControllerLeaseKeeper;
  private nodeEpoch = -1;
  private lastRenewSentAt = -Infinity;
  /** True from a self-fence until a new registration succeeds. */
  private needsRegistration = true;
  private stopping = false;

  constructor(private readonly deps: ReplicationNodeDeps) {
    this.scope = new TaskScope(deps.clock);
    this.keeper = new ControllerLeaseKeeper(
      deps.nodeId,
      deps.store,
      deps.config,
      this.scope,
      (nodeId, partitions) => this.describeLogEnds(nodeId, partitions),
      deps.observer?.trace?.bind(deps.observer),
    );
    this.replicas = new ReplicaManager({
      nodeId: deps.nodeId,
      config: deps.config,
      scope: this.scope,
      store: deps.store,
      transport: deps.transport,
      checkpoints: deps.checkpoints,
      openLog: deps.openLog,
      controller: { localController: () => this.keeper.active },
      rules: deps.rules,
      observer: deps.observer,
    });
  }

  get id(): number {
    return this.deps.nodeId;
  }

  get epoch(): number {
    return this.nodeEpoch;
  }

  /** Registered under a live epoch that renewals still prove (not fenced, not stopping). */
  get isRegistered(): boolean {
    return this.nodeEpoch >= 0 && !this.needsRegistration && !this.stopping;
  }

  get isController(): boolean {
    return this.keeper.active !== undefined;
  }

  /**
   * Registers (retrying until the store answers) and starts serving. The previous epoch is vouched for
   * only after a clean shutdown or under LOG_FLUSH_POLICY=always — otherwise unflushed data may be gone
   * and the controller must drop this node from its ISRs until it catches up (KIP-903/966).
   */
  async start(): Promise<void> {
    const { checkpoints, config } = this.deps;
    const last = Number(checkpoints.read(LAST_EPOCH_FILE) ?? -1);
    const clean = checkpoints.read(CLEAN_SHUTDOWN_FILE) === String(last);
    checkpoints.remove(CLEAN_SHUTDOWN_FILE);
    const previous = last >= 0 && (clean || config.logFlushPolicy === 'always') ? last : -1;
    while (!this.scope.closed && !(await this.register(previous)))
      await this.scope.sleep(config.nodeHeartbeatIntervalMs);
    if (this.scope.closed) return;
    this.replicas.start(this.nodeEpoch);
    this.scope.every(config.nodeHeartbeatIntervalMs, () => void this.heartbeat());
    this.keeper.start();
  }

  /**
   * Controlled shutdown: stop leading at once (so nothing is served here once another node leads), ask
   * the controller to move leadership and ISR membership away, wait until it has (or `timeoutMs`),
   * then stop cleanly.
   */
  async controlledShutdown(timeoutMs: number): Promise<void> {
    this.stopping = true;
    this.replicas.fenceSelf('controlled shutdown');
    const deadline = this.deps.clock.now() + timeoutMs;
    let requested = false;
    while (this.deps.clock.now() < deadline && !this.scope.closed) {
      try {
        if (!requested) requested = await this.deps.store.requestShutdown(this.deps.nodeId, this.nodeEpoch);
        if (requested && (await this.movedAway())) break;
      } catch {
        // Store unreachable: retry until the deadline.
      }
      await this.scope.sleep(this.deps.config.nodeHeartbeatIntervalMs);
    }
    await this.stop();
  }

  /** Clean stop: flush, checkpoint, give up the lease and the registration. */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.keeper.stop(true);
    await this.replicas.stop(true);
    this.deps.checkpoints.write(CLEAN_SHUTDOWN_FILE, String(this.nodeEpoch));
    await this.deps.store.deregisterNode(this.deps.nodeId, this.nodeEpoch).catch(() => undefined);
    await this.deps.store.close().catch(() => undefined);
  }

  /** The process dies (simulator): nothing is flushed, released or deregistered. */
  crash(): void {
    this.stopping = true;
    void this.keeper.stop(false);
    this.replicas.halt();
    this.scope.close();
    void this.deps.store.close().catch(() => undefined);
  }

  /** The controller's question to a node (possibly this one) about its log ends. */
  private async describeLogEnds(nodeId: number, partitions: number[]): Promise<DescribeLogEndsResponse> {
    if (nodeId === this.deps.nodeId) return this.replicas.describeLogEnds(partitions);
    const peer =
      this.replicas.cluster.peer(nodeId) ??
      (await this.deps.store.listNodes())
        .map((n) => ({ nodeId: n.nodeId, endpoint: n.endpoint }))
        .find((n) => n.nodeId === nodeId);
    if (!peer) throw new Error(`node ${nodeId} is not registered`);
    return this.deps.transport.send(peer, 'describeLogEnds', { partitions }, this.deps.config.requestTimeoutMs);
  }

  private async movedAway(): Promise<boolean> {
    const states = await this.deps.store.listPartitions();
    const me = this.deps.nodeId;
    // Done when nothing is led here and no ISR still counts on us — except an ISR we are the last member
    // of, which the controller never empties (the partition waits for us to come back).
    return states.every(
      (s) => s.leader !== me && (!s.isr.some((m) => m.nodeId === me) || (s.isr.length === 1 && s.leader === NO_LEADER)),
    );
  }

  private async register(previousNodeEpoch: number): Promise<boolean> {
    const sentAt = this.deps.clock.now();
    try {
      const r = await this.deps.store.registerNode(
        this.deps.nodeId,
        this.deps.endpoint,
        previousNodeEpoch,
        this.deps.config.nodeSessionTimeoutMs,
      );
      if (this.scope.closed) return false;
      this.nodeEpoch = r.nodeEpoch;
      this.deps.checkpoints.write(LAST_EPOCH_FILE, String(r.nodeEpoch));
      this.lastRenewSentAt = sentAt;
      this.needsRegistration = false;
      this.deps.observer?.trace?.(
        `node ${this.deps.nodeId}: registered with epoch ${r.nodeEpoch} (previous ${previousNodeEpoch})`,
      );
      return true;
    } catch {
      return false;
    }
  }

  /**
   * Renews the registration. The store extends it from when the renewal arrives, which is after we sent
   * it; so "sent at t and succeeded" proves registration until t + session timeout. Past
   * t + session − heartbeat without a newer proof, the node fences itself before the store can expire
   * it and the controller can elect a successor (docs/guarantees.md: stop serving before the new leader starts).
   */
  private async heartbeat(): Promise<void> {
    if (this.stopping) return;
    const { clock, config, store } = this.deps;
    if (this.needsRegistration) {
      // Fenced but the process (and its data) is intact: the previous epoch's data is still ours.
      if (await this.register(this.nodeEpoch)) this.replicas.setNodeEpoch(this.nodeEpoch);
      return;
    }
    if (clock.now() >= this.lastRenewSentAt + config.nodeSessionTimeoutMs - config.nodeHeartbeatIntervalMs) {
      return this.selfFence('registration renewal not confirmed in time');
    }
    const sentAt = clock.now();
    let renewed: boolean;
    try {
      renewed = await store.renewNode(this.deps.nodeId, this.nodeEpoch, config.nodeSessionTimeoutMs);
    } catch {
      return;
    }
    if (this.scope.closed || this.stopping || this.needsRegistration) return;
    if (renewed) this.lastRenewSentAt = Math.max(this.lastRenewSentAt, sentAt);
    else this.selfFence('registration expired or replaced');
  }

  private selfFence(reason: string): void {
    this.needsRegistration = true;
    void this.keeper.stop(false);
    this.replicas.fenceSelf(reason);
  }
}
