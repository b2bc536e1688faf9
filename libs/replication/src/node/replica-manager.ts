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
import type { PartitionLog } from '../log/partition-log';
import type { MetadataStore } from '../metadata/metadata-store.port';
import { NO_LEADER, isrEpochOf, type PartitionState } from '../metadata/partition-state';
import { maybeProposeRecovery, maybeShrinkDisconnected, maybeShrinkIsr } from '../partition/isr-changes';
import { Partition } from '../partition/partition';
import type { PartitionContext } from '../partition/partition-context';
import { KAFKA_REPLICATION_RULES, type ReplicationRules } from '../partition/replication-rules';
import type { ReplicationConfig } from '../replication-config';
import type { CheckpointStorage } from '../storage/checkpoint-storage.port';
import type { DescribeLogEndsResponse, FetchRequest, FetchResponse, RpcMap, RpcRequest } from '../transport/messages';
import type { Transport } from '../transport/transport.port';
import { AlterPartitionSender, type ControllerLocator } from './alter-partition-sender';
import { RegistrationCache } from './registration-cache';
import { FetchPurgatory } from './fetch-purgatory';
import { readHighWatermarks, writeHighWatermarks } from './hw-checkpoint';
import { LeadershipNotifier } from './leadership-notifier';
import { LogCleanerTask } from './log-cleaner-task';
import { partitionEvents } from './partition-events';
import { appendAsLeader, awaitCommitted, offsetsOf, readUpTo, scanUpTo } from './store-face';
import { serveFetch } from './fetch-handler';
import { ReplicaFetcher, type FetcherHost } from './replica-fetcher';
import type { TaskScope } from './task-scope';

export interface ReplicaManagerDeps {
  nodeId: number;
  config: ReplicationConfig;
  scope: TaskScope;
  store: MetadataStore;
  transport: Transport;
  checkpoints: CheckpointStorage;
  openLog: (partition: number) => Promise<PartitionLog>;
  controller: ControllerLocator;
  /** Kafka's rules unless the simulator's self-test breaks one on purpose. */
  rules?: ReplicationRules;
  /** Observability hooks (the simulator checks invariants through them). */
  observer?: ReplicaObserver;
}

export interface ReplicaObserver {
  trace?(line: string): void;
  onTruncate?(nodeId: number, partition: number, toOffset: number, hw: number, reason: string): void;
  onError?(nodeId: number, error: unknown, context: string): void;
  /** A partition's log took writes again after a storage fault. */
  onLogHealed?(nodeId: number, partition: number): void;
}

/** How often a node tries again to write to a log whose storage failed (a full disk). */
export const LOG_HEAL_INTERVAL_MS = 1_000;

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
    scope.every(Math.max(1, Math.floor(config.replicaLagTimeMaxMs / 2)), () => this.expireIsr());
    scope.every(config.highWatermarkCheckpointIntervalMs, () => this.checkpointHighWatermarks());
    scope.every(LOG_HEAL_INTERVAL_MS, () => this.healLogs());
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
      this.checkpointHighWatermarks();
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
        this.partitionContext(),
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
    if (!f) this.fetchers.set(leaderId, (f = new ReplicaFetcher(leaderId, this.fetcherHost())));
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

  /** How far this node's logs of `partitions` go (those it has opened), for the controller's unclean recovery. */
  describeLogEnds(partitions: number[]): DescribeLogEndsResponse {
    const ends = partitions.flatMap((id) => {
      const p = this.partitions.get(id);
      if (!p) return [];
      const leo = p.log.logEndOffset;
      return [{ partition: id, logEndOffset: leo, lastEpoch: leo > 0 ? p.epochCache.epochAt(leo - 1) : -1 }];
    });
    return { ends };
  }

  // ---- periodic tasks ---------------------------------------------------------------------------

  private expireIsr(): void {
    for (const p of this.partitions.values()) {
      maybeShrinkIsr(p);
      this.afterChange(p);
    }
  }

  /**
   * Logs whose storage failed (a full disk) refuse appends with KAFKA_STORAGE_ERROR and keep serving
   * reads, so a leader's followers go on fetching what it acknowledged; this writes again what failed,
   * and the log takes appends again once that works. Nothing is cut: a follower may hold those records.
   */
  private healLogs(): void {
    for (const p of this.partitions.values()) {
      if (!p.log.storageFault || !p.log.heal) continue;
      p.log
        .heal()
        // Under LOG_FLUSH_POLICY=always the leader counts only flushed records towards the HW.
        .then(() => p.log.flush())
        .then(
          () => {
            this.deps.observer?.onLogHealed?.(this.nodeId, p.partition);
            if (p.maybeIncrementHighWatermark()) this.afterChange(p);
          },
          () => undefined,
        );
    }
  }

  private checkpointHighWatermarks(): void {
    for (const p of this.partitions.values()) this.hwCheckpoint.set(p.partition, p.hw);
    writeHighWatermarks(this.deps.checkpoints, this.hwCheckpoint);
    if (this.deps.config.logFlushPolicy === 'replicated') {
      // Kafka flushes on segment roll; we flush at the checkpoint so a power cut loses a bounded tail.
      for (const p of this.partitions.values())
        if (!p.log.storageFault) p.log.flush().catch((e) => this.reportError(e, `flushing partition ${p.partition}`));
    }
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

  // ---- wiring -----------------------------------------------------------------------------------

  private partitionContext(): PartitionContext {
    return {
      nodeId: this.nodeId,
      nodeEpoch: () => this._nodeEpoch,
      config: this.deps.config,
      clock: this.deps.scope.clock,
      registeredEpoch: (id) => this.cluster.registeredEpoch(id),
      isAcceptable: (id) => this.cluster.isAcceptable(id),
      isConnected: (id) => !this.disconnected.has(id),
      rules: this.deps.rules ?? KAFKA_REPLICATION_RULES,
      events: partitionEvents({
        partition: (id) => this.partitions.get(id),
        flushOnAppend: this.deps.config.logFlushPolicy === 'always',
        purgatory: this.purgatory,
        notifier: this.notifier,
        sender: this.sender,
        afterChange: (p) => this.afterChange(p),
        onTruncate: (partition, toOffset, hw, reason) => {
          this.deps.observer?.onTruncate?.(this.nodeId, partition, toOffset, hw, reason);
          if (toOffset < hw)
            this.trace(`WARNING truncating p${partition} to ${toOffset} below its HW ${hw} (${reason})`);
        },
        reportError: (e, c) => this.reportError(e, c),
      }),
    };
  }

  private fetcherHost(): FetcherHost {
    return {
      scope: this.deps.scope,
      config: this.deps.config,
      transport: this.deps.transport,
      nodeId: this.nodeId,
      nodeEpoch: () => this._nodeEpoch,
      partition: (id) => this.partitions.get(id),
      peer: (id) => this.cluster.peer(id),
      afterFollowerUpdate: () => undefined,
      onError: (e, c) => this.reportError(e, c),
    };
  }

  private reportError(error: unknown, context: string): void {
    this.deps.observer?.onError?.(this.nodeId, error, context);
  }

  private trace(line: string): void {
    this.deps.observer?.trace?.(`node ${this.nodeId}: ${line}`);
  }
}
