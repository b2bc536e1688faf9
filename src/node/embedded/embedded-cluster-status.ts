import type { Clock, PartitionStore } from '@cohort/replication';
import type { ClusterStatus, NodeView, PartitionView } from '../cluster-status';
import type { NodeAddress } from '../node-address';

/**
 * The cluster of one: this node is the controller, the only replica and the leader of every partition
 * the local store has made it leader of (in the epoch the store gave, which it bumps on each start).
 */
export class EmbeddedClusterStatus implements ClusterStatus {
  private readonly leaderEpochs = new Map<number, number>();
  private readonly unsubscribe: () => void;

  constructor(
    readonly clusterId: string,
    readonly nodeId: number,
    private readonly numPartitions: number,
    private readonly store: PartitionStore,
    private readonly address: NodeAddress,
    private readonly clock: Clock,
  ) {
    this.unsubscribe = store.subscribe({
      onBecomeLeader: (partition, leaderEpoch) => this.leaderEpochs.set(partition, leaderEpoch),
      onResign: (partition) => this.leaderEpochs.delete(partition),
    });
  }

  controllerId(): number {
    return this.nodeId;
  }

  nodes(): NodeView[] {
    return [this.self()];
  }

  leaderOf(partition: number): NodeView | null {
    return this.leaderEpochs.has(partition) ? this.self() : null;
  }

  partitions(): PartitionView[] {
    const now = this.clock.now();
    return Array.from({ length: this.numPartitions }, (_, partition): PartitionView => {
      const { highWatermark, logEndOffset } = this.store.offsets(partition);
      const leading = this.leaderEpochs.has(partition);
      return {
        partition,
        leader: leading ? this.nodeId : null,
        leaderEpoch: this.leaderEpochs.get(partition) ?? -1,
        replicas: [this.nodeId],
        isr: leading ? [this.nodeId] : [],
        highWatermark,
        logEndOffset,
        replicaStates: [{ nodeId: this.nodeId, logEndOffset, lastCaughtUpMs: now }],
      };
    });
  }

  close(): void {
    this.unsubscribe();
  }

  private self(): NodeView {
    return { nodeId: this.nodeId, url: this.address.url(), alive: true };
  }
}
