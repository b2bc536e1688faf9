import type { LogRecord } from '../api/log-record';
import type {
  AppendResult,
  LeadershipListener,
  PartitionOffsets,
  PartitionStore,
  ReadResult,
  RecordVisitor,
} from '../api/partition-store.port';
import { ReplicationErrorCode as E } from '../api/replication-error-code';
import { LeaderEpochCache } from '../epoch/leader-epoch-cache';
import { NO_LEADER, isrEpochOf, type PartitionState } from '../metadata/partition-state';
import { maybeProposeRecovery, maybeShrinkDisconnected } from '../partition/isr-changes';
import { Partition } from '../partition/partition';
import type { DescribeLogEndsResponse, FetchRequest, FetchResponse, RpcMap, RpcRequest } from '../transport/messages';
import { AlterPartitionSender } from './alter-partition-sender';
import { RegistrationCache } from './registration-cache';
import { FetchPurgatory } from './fetch-purgatory';
import { readHighWatermarks } from './hw-checkpoint';
import { LeadershipNotifier } from './leadership-notifier';
import { LogCleanerTask } from './log-cleaner-task';
import { appendAsLeader, awaitCommitted, offsetsOf, readUpTo, scanUpTo } from './store-face';
import { serveFetch } from './fetch-handler';
import { ReplicaFetcher } from './replica-fetcher';
import { logEndsOf } from './log-ends';
import type { ReplicaManagerDeps } from './replica-manager-deps';
import { fetcherHostFor, partitionContextFor, type ReplicaWiring } from './replica-wiring';
import {
  checkpointHighWatermarks,
  expireIsr,
  healLogs,
  LOG_HEAL_INTERVAL_MS,
  type ReplicaMaintenanceHost,
} from './replica-maintenance';

export type { ReplicaManagerDeps, ReplicaObserver } from './replica-manager-deps';
export { LOG_HEAL_INTERVAL_MS } from './replica-maintenance';

/**
 * One node's replicas (Kafka's ReplicaManager): hosts a Partition per assigned partition, applies the
 * controller's metadata (makeLeader / makeFollower), serves follower fetches with long-polls, runs one
 * fetcher per source leader, the ISR-expiry, HW-checkpoint and log-cleaner tasks, sends ISR proposals to
 * the controller, and is the coordinator's PartitionStore.
 */
export class ReplicaManager implements PartitionStore {
  readonly cluster = new RegistrationCache();
  private readonly partitions = new Map<number, Partition>();
  private readonly opening = new Map<number, PartitionState>();
  private readonly fetchers = new Map<number, ReplicaFetcher>();
  private readonly purgatory: FetchPurgatory;
  private readonly notifier: LeadershipNotifier;
  private readonly sender: AlterPartitionSender;
  private readonly cleaner: LogCleanerTask;
  private readonly hwCheckpoint: Map<number, number>;
  /** Peers whose every replication connection closed, until they fetch again. */
  private readonly disconnected = new Set<number>();
  private _nodeEpoch = -1;
  private fenced = true;
  private unwatch: (() => void) | undefined;
  private refreshing = false;
  private refreshAgain = false;

  constructor(private readonly deps: ReplicaManagerDeps) {
    this.purgatory = new FetchPurgatory(deps.scope);
    this.notifier = new LeadershipNotifier((e) => this.reportError(e, 'a leadership listener threw'));
    this.sender = new AlterPartitionSender(
      deps.scope,
      deps.config,
      deps.transport,
      this.cluster,
      deps.controller,
      (p) => this.afterChange(p),
    );
    this.cleaner = new LogCleanerTask(deps.scope, deps.config, (e, c) => this.reportError(e, c));
    this.hwCheckpoint = readHighWatermarks(deps.checkpoints);
  }

  get nodeId(): number {
    return this.deps.nodeId;
  }

  get nodeEpoch(): number {
    return this._nodeEpoch;
  }

  /** Starts serving under registration `nodeEpoch`. */
  start(nodeEpoch: number): void {
    this._nodeEpoch = nodeEpoch;
    this.fenced = false;
    const { scope, config, transport, store } = this.deps;
    transport.listen((from, request) => this.handleRequest(from, request));
    transport.onPeerClosed?.((nodeId) => this.peerClosed(nodeId));
    this.unwatch = store.watch({
      onPartitionChanged: (s) => this.applyState(s),
      onNodesChanged: () => void this.refresh(),
      onControllerChanged: () => void this.refresh(),
    });
    void this.refresh();
    scope.every(config.nodeHeartbeatIntervalMs, () => void this.refresh());
    const maintenance = this.maintenanceHost();
    scope.every(Math.max(1, Math.floor(config.replicaLagTimeMaxMs / 2)), () => expireIsr(maintenance));
    scope.every(config.highWatermarkCheckpointIntervalMs, () => checkpointHighWatermarks(maintenance));
    scope.every(LOG_HEAL_INTERVAL_MS, () => healLogs(maintenance));
    this.cleaner.start(() => [...this.partitions.values()]);
  }

  /** The registration changed (fenced and registered again): serve under the new epoch. */
  setNodeEpoch(nodeEpoch: number): void {
    this._nodeEpoch = nodeEpoch;
    this.fenced = false;
    void this.refresh();
  }

  /**
   * This node can no longer prove it is registered (or is shutting down): stop leading everything now,
   * before the controller can elect anyone else, failing pending commits with NOT_COORDINATOR.
   */
  fenceSelf(reason: string): void {
    this.fenced = true;
    for (const p of this.partitions.values()) {
      p.resignLocally(reason);
      this.afterChange(p);
    }
    this.trace(`fenced itself: ${reason}`);
  }

  /** Stops every task and fetcher; `flush` (clean shutdown) flushes and closes the logs. */
  async stop(flush: boolean): Promise<void> {
    this.fenceSelf('stopping');
    this.unwatch?.();
    for (const f of this.fetchers.values()) f.stop();
    this.fetchers.clear();
    if (flush) {
      checkpointHighWatermarks(this.maintenanceHost());
      // close() flushes what is left and releases the files; a failed disk must not block the stop.
      await Promise.all(
        [...this.partitions.values()].map((p) =>
          p.log.close().catch((e) => this.reportError(e, `closing partition ${p.partition}`)),
        ),
      );
    }
    this.deps.scope.close();
    await this.deps.transport.close();
  }

  /** The process dies (simulator): every task stops at once, nothing is flushed, pending commits fail. */
  halt(): void {
    for (const p of this.partitions.values()) p.resignLocally('node halted');
    for (const f of this.fetchers.values()) f.stop();
    this.fetchers.clear();
    this.unwatch?.();
    this.deps.scope.close();
    void this.deps.transport.close();
  }

  partition(partition: number): Partition | undefined {
    return this.partitions.get(partition);
  }

  /** Runs the log cleaner on `partition` now, below its HW (operators and tests). */
  compactNow(partition: number): Promise<boolean> {
    const p = this.partitions.get(partition);
    return p ? this.cleaner.clean(p, true) : Promise.resolve(false);
  }

  allPartitions(): Partition[] {
    return [...this.partitions.values()];
  }

  // ---- metadata ---------------------------------------------------------------------------------

  /** Re-reads registrations, the lease and every partition state from the store. */
  async refresh(): Promise<void> {
    if (this.refreshing) {
      this.refreshAgain = true;
      return;
    }
    this.refreshing = true;
    try {
      do {
        this.refreshAgain = false;
        const { store } = this.deps;
        const [nodes, lease, states] = await Promise.all([
          store.listNodes(),
          store.getControllerLease(),
          store.listPartitions(),
        ]);
        if (this.deps.scope.closed) return;
        this.cluster.setNodes(nodes);
        const controllerMoved = this.cluster.setController(lease);
        for (const s of states) this.applyState(s);
        for (const p of this.partitions.values()) if (p.maybeIncrementHighWatermark()) this.afterChange(p);
        if (controllerMoved) this.sender.controllerMoved(this.partitions.values());
      } while (this.refreshAgain && !this.deps.scope.closed);
    } catch {
      // Store unreachable: the next periodic refresh retries; fencing is the node lifecycle's business.
    } finally {
      this.refreshing = false;
    }
  }

  /** Applies one partition state from the controller (ignored when older than what is known, I21). */
  applyState(state: PartitionState): void {
    if (this.deps.scope.closed || !state.replicas.includes(this.nodeId)) return;
    const p = this.partitions.get(state.partition);
    if (!p) return void this.open(state);
    const role = this.roleFor(state);
    if (state.partitionEpoch < p.partitionEpoch) return;
    if (state.partitionEpoch === p.partitionEpoch && role === p.role) return;
    if (role === 'leader') {
      this.fetchers.get(p.leaderId)?.remove(p.partition);
      if (p.makeLeader(state))
        this.trace(`leads p${p.partition} in epoch ${state.leaderEpoch} from offset ${p.leaderEpochStartOffset}`);
      maybeProposeRecovery(p);
    } else {
      const previousLeader = p.leaderId;
      if (p.makeFollower(state, role)) {
        this.fetchers.get(previousLeader)?.remove(p.partition);
        if (role === 'follower') this.fetcherFor(state.leader).add(p.partition);
      }
    }
    this.purgatory.wake(p.partition);
    this.afterChange(p);
  }

  private roleFor(state: PartitionState): 'leader' | 'follower' | 'offline' {
    if (state.leader === this.nodeId) {
      return !this.fenced && isrEpochOf(state, this.nodeId) === this._nodeEpoch ? 'leader' : 'offline';
    }
    return state.leader === NO_LEADER ? 'offline' : 'follower';
  }

  private async open(state: PartitionState): Promise<void> {
    const pending = this.opening.has(state.partition);
    const known = this.opening.get(state.partition);
    if (!known || state.partitionEpoch >= known.partitionEpoch) this.opening.set(state.partition, state);
    if (pending) return;
    try {
      const log = await this.deps.openLog(state.partition);
      if (this.deps.scope.closed) return;
      const cache = new LeaderEpochCache(this.deps.checkpoints, `partition-${state.partition}/leader-epoch-checkpoint`);
      // Entries beyond the recovered log end belong to writes that did not survive.
      cache.truncateFromEnd(log.logEndOffset);
      const partition = new Partition(
        state.partition,
        log,
        cache,
        this.hwCheckpoint.get(state.partition) ?? 0,
        partitionContextFor(this.wiring()),
      );
      this.partitions.set(state.partition, partition);
      // A first cleaning as the log opens, not one interval later: a node restarted more often than
      // the interval (a crash loop) would otherwise never compact and load ever slower.
      void this.cleaner.clean(partition, false);
    } catch (e) {
      this.reportError(e, `opening partition ${state.partition}`);
      return;
    } finally {
      const latest = this.opening.get(state.partition);
      this.opening.delete(state.partition);
      if (latest && this.partitions.has(state.partition)) this.applyState(latest);
    }
  }

  private fetcherFor(leaderId: number): ReplicaFetcher {
    let f = this.fetchers.get(leaderId);
    if (!f) this.fetchers.set(leaderId, (f = new ReplicaFetcher(leaderId, fetcherHostFor(this.wiring()))));
    return f;
  }

  /** After any change to `p`: leadership announcements, pending ISR proposals, parked fetches. */
  private afterChange(p: Partition): void {
    this.notifier.check(p);
    // Another change may have been in flight when a follower went away: propose its removal now.
    if (this.disconnected.size > 0) maybeShrinkDisconnected(p);
    if (p.isIsrChangePending()) this.sender.send(p);
  }

  /** Every connection of `nodeId` closed: it no longer holds any HW here and leaves the ISRs it may leave. */
  private peerClosed(nodeId: number): void {
    if (this.deps.scope.closed || nodeId === this.nodeId) return;
    this.disconnected.add(nodeId);
    this.trace(`replication connections of node ${nodeId} closed`);
    for (const p of this.partitions.values()) {
      if (p.role !== 'leader') continue;
      p.maybeIncrementHighWatermark();
      this.afterChange(p);
    }
  }

  // ---- requests ---------------------------------------------------------------------------------
  private handleRequest(from: number, request: RpcRequest): Promise<RpcMap[keyof RpcMap]['response']> {
    if (request.kind === 'fetch') return this.handleFetch(request.body);
    if (request.kind === 'describeLogEnds') return Promise.resolve(this.describeLogEnds(request.body.partitions));
    const controller = this.deps.controller.localController();
    if (!controller) return Promise.resolve({ errorCode: E.NOT_CONTROLLER });
    return controller.handleAlterPartition(request.body);
  }

  private handleFetch(request: FetchRequest): Promise<FetchResponse> {
    if (this.deps.scope.closed) return Promise.resolve({ errorCode: E.NOT_LEADER_OR_FOLLOWER, partitions: [] });
    this.disconnected.delete(request.replicaId);
    const first = serveFetch(
      (id) => this.partitions.get(id),
      request,
      true,
      (p) => this.afterChange(p),
    );
    if (first.answerNow || request.maxWaitMs <= 0) return Promise.resolve(first.response);
    const reread = () =>
      serveFetch(
        (id) => this.partitions.get(id),
        request,
        false,
        () => undefined,
      ).response;
    return this.purgatory.park(
      request.partitions.map((p) => p.partition),
      request.maxWaitMs,
      reread,
    );
  }

  /** DescribeLogEnds, for the controller's unclean recovery (`logEndsOf`). */
  describeLogEnds(partitions: number[]): DescribeLogEndsResponse {
    return logEndsOf(this.partitions, partitions);
  }

  /** What the periodic tasks (ISR expiry, HW checkpoint, log healing) work on. */
  private maintenanceHost(): ReplicaMaintenanceHost {
    return {
      nodeId: this.nodeId,
      config: this.deps.config,
      checkpoints: this.deps.checkpoints,
      hwCheckpoint: this.hwCheckpoint,
      partitions: () => this.partitions.values(),
      afterChange: (p) => this.afterChange(p),
      onLogHealed: (nodeId, partition) => this.deps.observer?.onLogHealed?.(nodeId, partition),
      reportError: (e, c) => this.reportError(e, c),
    };
  }

  // ---- PartitionStore -----------------------------------------------------------------------------

  append(partition: number, leaderEpoch: number, records: LogRecord[]): AppendResult {
    return appendAsLeader(this.partitions.get(partition), this.nodeId, partition, leaderEpoch, records);
  }

  awaitCommit(partition: number, leaderEpoch: number, lastOffset: number, timeoutMs: number): Promise<void> {
    return awaitCommitted(this.partitions.get(partition), this.nodeId, partition, leaderEpoch, lastOffset, timeoutMs);
  }

  async read(partition: number, fromOffset: number, upToOffset: number, maxRecords: number): Promise<ReadResult> {
    return readUpTo(this.partitions.get(partition), this.nodeId, partition, fromOffset, upToOffset, maxRecords);
  }

  async scan(
    partition: number,
    fromOffset: number,
    upToOffset: number,
    maxRecords: number,
    visit: RecordVisitor,
  ): Promise<number> {
    return scanUpTo(this.partitions.get(partition), this.nodeId, partition, fromOffset, upToOffset, maxRecords, visit);
  }

  offsets(partition: number): PartitionOffsets {
    return offsetsOf(this.partitions.get(partition));
  }

  subscribe(listener: LeadershipListener): () => void {
    return this.notifier.subscribe(listener);
  }

  /** What the partitions and fetchers this node makes are wired to. */
  private wiring(): ReplicaWiring {
    return {
      deps: this.deps,
      nodeEpoch: () => this._nodeEpoch,
      cluster: this.cluster,
      disconnected: this.disconnected,
      partitions: this.partitions,
      purgatory: this.purgatory,
      notifier: this.notifier,
      sender: this.sender,
      afterChange: (p) => this.afterChange(p),
      reportError: (e, c) => this.reportError(e, c),
      trace: (line) => this.trace(line),
    };
  }

  private reportError(error: unknown, context: string): void {
    this.deps.observer?.onError?.(this.nodeId, error, context);
  }

  private trace(line: string): void {
    this.deps.observer?.trace?.(`node ${this.nodeId}: ${line}`);
  }
}
