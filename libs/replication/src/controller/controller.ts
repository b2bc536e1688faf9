import { ReplicationErrorCode as E } from '../api/replication-error-code';
import type { MetadataStore } from '../metadata/metadata-store.port';
import { describePartitionState, type PartitionState } from '../metadata/partition-state';
import type { ReplicationConfig } from '../replication-config';
import type { AlterPartitionRequest, AlterPartitionResponse, DescribeLogEndsResponse } from '../transport/messages';
import type { TaskScope } from '../node/task-scope';
import { decideAlterPartition } from './alter-partition-validation';
import { preferredLeaderElections } from './leader-imbalance';
import {
  initialPartitionStates,
  reconcilePartition,
  recoverWith,
  uncleanRecoveryCandidates,
  type LiveNodes,
} from './partition-change';

export interface ControllerDeps {
  nodeId: number;
  /** Asks a node how far its logs go (for unclean recovery); rejects when it cannot be reached. */
  describeLogEnds: (nodeId: number, partitions: number[]) => Promise<DescribeLogEndsResponse>;
  controllerEpoch: number;
  store: MetadataStore;
  config: ReplicationConfig;
  /** The controller's own timers; closed when it loses the lease. */
  scope: TaskScope;
  trace?: (line: string) => void;
}

/**
 * The controller (KRaft's QuorumController + ReplicationControlManager), run by whichever
 * node holds the lease. It keeps no state of its own: each operation reads the store, decides with the
 * pure rules of `partition-change.ts` / `alter-partition-validation.ts`, and writes with a
 * compare-and-set on the partition epoch under its controller epoch — so a deposed controller's writes
 * fail and two controllers can never interleave inside one partition change. Operations run one at a
 * time.
 */
export class Controller {
  private queue: Promise<unknown> = Promise.resolve();
  private reconcileQueued = false;
  private unwatch: (() => void) | undefined;

  constructor(private readonly deps: ControllerDeps) {}

  get controllerEpoch(): number {
    return this.deps.controllerEpoch;
  }

  start(): void {
    const { scope, config, store } = this.deps;
    this.unwatch = store.watch({
      onNodesChanged: () => this.requestReconcile(),
      onPartitionChanged: () => this.requestReconcile(),
    });
    this.requestReconcile();
    // Expiry of registrations is not notified: poll well within the session timeout.
    scope.every(
      Math.max(1, Math.floor(Math.min(config.nodeHeartbeatIntervalMs, config.nodeSessionTimeoutMs / 3))),
      () => this.requestReconcile(),
    );
    if (config.autoLeaderRebalanceEnable)
      scope.every(config.leaderImbalanceCheckIntervalMs, () => void this.enqueue(() => this.rebalanceLeaders()));
  }

  stop(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    this.deps.scope.close();
  }

  /** A leader's ISR proposal (AlterPartition). */
  handleAlterPartition(req: AlterPartitionRequest): Promise<AlterPartitionResponse> {
    return this.enqueue(async () => {
      const { store, config, controllerEpoch } = this.deps;
      const [state, nodes] = await Promise.all([store.getPartition(req.partition), this.liveNodes()]);
      const decision = decideAlterPartition(state, req, nodes, config);
      if (decision.next === undefined) {
        this.trace(`alterPartition p${req.partition} from ${req.nodeId} refused: ${decision.errorCode}`);
        return { errorCode: decision.errorCode, state: state ?? undefined };
      }
      const outcome = await store.compareAndSetPartition(state!.partitionEpoch, decision.next, controllerEpoch);
      if (outcome.ok) {
        this.trace(`alterPartition ${describePartitionState(outcome.state)}`);
        return { errorCode: E.NONE, state: outcome.state };
      }
      if (outcome.reason === 'NOT_CONTROLLER') return { errorCode: E.NOT_CONTROLLER };
      return { errorCode: E.INVALID_UPDATE_VERSION, state: outcome.current ?? undefined };
    });
  }

  /** Re-runs reconciliation soon (coalesced). */
  requestReconcile(): void {
    if (this.reconcileQueued || this.deps.scope.closed) return;
    this.reconcileQueued = true;
    void this.enqueue(async () => {
      this.reconcileQueued = false;
      await this.reconcile();
    });
  }

  private async reconcile(): Promise<void> {
    const { store, config } = this.deps;
    const [nodes, partitions] = await Promise.all([this.liveNodes(), store.listPartitions()]);
    if (partitions.length === 0) {
      const initial = initialPartitionStates([...nodes.values()], config.numPartitions, config.replicationFactor);
      if (initial) {
        const created = await store.createPartitions(initial, this.deps.controllerEpoch);
        this.trace(`created ${created} partitions`);
      }
      return;
    }
    for (const state of partitions) {
      const current = await this.write(state, reconcilePartition(state, nodes, config), 'reconcile');
      if (current) await this.recoverUncleanly(current, nodes);
    }
  }

  /**
   * KIP-966 unclean recovery for a partition whose every ISR/ELR member restarted without vouching for
   * its data: once they are all back, ask each how far its log goes and elect the most recent history.
   */
  private async recoverUncleanly(state: PartitionState, nodes: LiveNodes): Promise<void> {
    const candidates = uncleanRecoveryCandidates(state, nodes);
    if (!candidates) return;
    const answers = await Promise.all(
      candidates.map((id) =>
        this.deps.describeLogEnds(id, [state.partition]).then(
          (r) => ({ id, r }),
          () => undefined,
        ),
      ),
    );
    const ends = answers.flatMap((a) => {
      const e = a?.r.ends.find((x) => x.partition === state.partition);
      return a && e ? [{ nodeId: a.id, logEndOffset: e.logEndOffset, lastEpoch: e.lastEpoch }] : [];
    });
    if (ends.length < candidates.length) return; // not all back with the partition open: next round
    await this.write(state, recoverWith(state, nodes, ends), 'unclean recovery (most recent history)');
  }

  /**
   * Preferred-leader elections, so leadership spreads back over the nodes after failures: for the nodes
   * whose share of preferred partitions led elsewhere exceeds LEADER_IMBALANCE_PER_BROKER_PERCENTAGE.
   */
  private async rebalanceLeaders(): Promise<void> {
    const [nodes, partitions] = await Promise.all([this.liveNodes(), this.deps.store.listPartitions()]);
    const current = new Map(partitions.map((s) => [s.partition, s]));
    for (const next of preferredLeaderElections(
      partitions,
      nodes,
      this.deps.config.leaderImbalancePerBrokerPercentage,
    )) {
      await this.write(current.get(next.partition)!, next, 'preferred election');
    }
  }

  /** Writes `next` over `state` (compare-and-set); returns the partition's state afterwards, null if the write lost. */
  private async write(state: PartitionState, next: PartitionState | null, why: string): Promise<PartitionState | null> {
    if (this.deps.scope.closed) return null;
    if (!next) return state;
    const outcome = await this.deps.store.compareAndSetPartition(state.partitionEpoch, next, this.deps.controllerEpoch);
    if (!outcome.ok) return null;
    this.trace(`${why}: ${describePartitionState(outcome.state)}`);
    return outcome.state;
  }

  private async liveNodes(): Promise<LiveNodes> {
    const list = await this.deps.store.listNodes();
    return new Map(list.map((n) => [n.nodeId, n]));
  }

  private enqueue<T>(op: () => Promise<T>): Promise<T> {
    const run = this.queue.then(() => {
      if (this.deps.scope.closed) throw new Error('controller stopped');
      return op();
    });
    // A failed operation (store unreachable) must not block the next one; periodic reconciles retry.
    this.queue = run.catch(() => undefined);
    return run;
  }

  private trace(line: string): void {
    this.deps.trace?.(`controller ${this.deps.nodeId}#${this.deps.controllerEpoch} ${line}`);
  }
}
