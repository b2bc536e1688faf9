import type {
  Clock,
  ControllerLease,
  MetadataStore,
  NodeRegistration,
  PartitionState,
  ReplicaManager,
  TimerHandle,
} from '@cohort/replication';
import { NO_LEADER } from '@cohort/replication';
import type { ClusterStatus, NodeView, PartitionView, ReplicaStateView } from '../cluster-status';
import { advertisedUrlOf } from './node-endpoint';

export interface MetadataClusterStatusOptions {
  clusterId: string;
  nodeId: number;
  numPartitions: number;
  store: MetadataStore;
  replicas: Pick<ReplicaManager, 'offsets' | 'partition'>;
  clock: Clock;
  /** How often everything is re-read (registrations expire without a hint). */
  refreshIntervalMs: number;
  /** The first failure of an outage of the store (the view keeps its last answers meanwhile). */
  onError(error: unknown): void;
}

/**
 * Cluster mode's answer to FindCoordinator and `/v1/cluster*` (docs/protocol.md; docs/rest.md): registrations, the
 * controller lease and partition states from the metadata store, cached here because those answers
 * are synchronous. Change hints update the cache at once; a periodic re-read catches expiries (which
 * give no hint) and anything missed while Redis was away. Offsets and follower progress come from this
 * node's own replicas — exact for the partitions it leads, a follower's view for the others.
 */
export class MetadataClusterStatus implements ClusterStatus {
  readonly clusterId: string;
  readonly nodeId: number;
  private registered = new Map<number, NodeRegistration>();
  /** Last known URL of every node ever seen, so that a node that went away is listed as not alive. */
  private readonly knownUrls = new Map<number, string>();
  private readonly states = new Map<number, PartitionState>();
  private lease: ControllerLease | null = null;
  private unwatch: (() => void) | null = null;
  private timer: TimerHandle | null = null;
  private closed = false;
  /** A failing re-read is reported once, not on every period of an outage. */
  private failing = false;

  constructor(private readonly options: MetadataClusterStatusOptions) {
    this.clusterId = options.clusterId;
    this.nodeId = options.nodeId;
  }

  async start(): Promise<void> {
    this.unwatch = this.options.store.watch({
      onNodesChanged: () => void this.refreshNodes().catch(this.options.onError),
      onControllerChanged: () => void this.refreshLease().catch(this.options.onError),
      onPartitionChanged: (state) => this.applyHint(state),
    });
    await this.refreshAll().catch(this.options.onError);
    this.schedule();
  }

  close(): void {
    this.closed = true;
    this.unwatch?.();
    this.timer?.cancel();
  }

  /** A controller holds the lease and every partition's state has been read (readiness). */
  isMetadataKnown(): boolean {
    return this.lease !== null && this.states.size >= this.options.numPartitions;
  }

  /** Partitions whose state names `nodeId` leader. */
  partitionsLedBy(nodeId: number): number[] {
    return [...this.states.values()].filter((s) => s.leader === nodeId).map((s) => s.partition);
  }

  controllerId(): number | null {
    return this.lease?.nodeId ?? null;
  }

  nodes(): NodeView[] {
    const ids = new Set<number>([...this.knownUrls.keys()]);
    for (const s of this.states.values()) for (const id of s.replicas) ids.add(id);
    return [...ids]
      .sort((a, b) => a - b)
      .map((nodeId) => ({ nodeId, url: this.knownUrls.get(nodeId) ?? '', alive: this.registered.has(nodeId) }));
  }

  leaderOf(partition: number): NodeView | null {
    const leader = this.states.get(partition)?.leader ?? NO_LEADER;
    const registration = this.registered.get(leader);
    const url = registration && advertisedUrlOf(registration.endpoint);
    return url ? { nodeId: leader, url, alive: true } : null;
  }

  partitions(): PartitionView[] {
    return Array.from({ length: this.options.numPartitions }, (_, partition) => this.partitionView(partition));
  }

  private partitionView(partition: number): PartitionView {
    const state = this.states.get(partition);
    const { highWatermark, logEndOffset } = this.options.replicas.offsets(partition);
    return {
      partition,
      leader: state && state.leader !== NO_LEADER ? state.leader : null,
      leaderEpoch: state?.leaderEpoch ?? -1,
      replicas: state ? [...state.replicas] : [],
      isr: state ? state.isr.map((m) => m.nodeId) : [],
      highWatermark,
      logEndOffset,
      replicaStates: this.replicaStates(partition, logEndOffset),
    };
  }

  /** Progress of every replica as the leader tracks it; only the leader knows, so others list just themselves. */
  private replicaStates(partition: number, localLogEndOffset: number): ReplicaStateView[] {
    const hosted = this.options.replicas.partition(partition);
    if (!hosted) return [];
    const self = { nodeId: this.nodeId, logEndOffset: localLogEndOffset, lastCaughtUpMs: this.options.clock.now() };
    if (hosted.role !== 'leader') return [self];
    const remotes = [...hosted.remotes.values()].map((r) => ({
      nodeId: r.nodeId,
      logEndOffset: r.leo,
      lastCaughtUpMs: r.lastCaughtUpTimeMs,
    }));
    return [self, ...remotes].sort((a, b) => a.nodeId - b.nodeId);
  }

  /**
   * A new leader is elected only after the controller saw the old one's registration expire (or end):
   * re-read the registrations before showing the change, so this view never names the new leader while
   * still listing the node it replaced as alive (registrations expire without a hint, and the periodic
   * re-read could otherwise lag the partition hint by a whole period).
   */
  private applyHint(state: PartitionState): void {
    const known = this.states.get(state.partition);
    if (!known || known.leader === state.leader) return this.apply(state);
    void this.refreshNodes()
      .catch(this.options.onError)
      .finally(() => this.apply(state));
  }

  private apply(state: PartitionState): void {
    const known = this.states.get(state.partition);
    if (!known || known.partitionEpoch <= state.partitionEpoch) this.states.set(state.partition, state);
  }

  private async refreshAll(): Promise<void> {
    const [, , states] = await Promise.all([
      this.refreshNodes(),
      this.refreshLease(),
      this.options.store.listPartitions(),
    ]);
    for (const s of states) this.apply(s);
  }

  private async refreshNodes(): Promise<void> {
    const list = await this.options.store.listNodes();
    this.registered = new Map(list.map((n) => [n.nodeId, n]));
    for (const n of list) this.knownUrls.set(n.nodeId, advertisedUrlOf(n.endpoint) ?? '');
  }

  private async refreshLease(): Promise<void> {
    this.lease = await this.options.store.getControllerLease();
  }

  private schedule(): void {
    if (this.closed) return;
    this.timer = this.options.clock.schedule(this.options.refreshIntervalMs, () => {
      this.refreshAll()
        .then(
          () => void (this.failing = false),
          (error: unknown) => {
            if (!this.failing) this.options.onError(error);
            this.failing = true;
          },
        )
        .finally(() => this.schedule());
    });
  }
}
