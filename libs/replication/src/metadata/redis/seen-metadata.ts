import { copyPartitionState, type PartitionState } from '../partition-state';
import { isForked } from './forked-partition-repair';

/**
 * What one store has seen of the cluster's metadata: the newest copy of each partition state (by
 * partition epoch) and the highest node and controller epochs. It is what this node puts back into
 * Redis if Redis loses its data (recovery-script.ts); every read, write result and change hint feeds it.
 */
export class SeenMetadata {
  private readonly partitions = new Map<number, PartitionState>();
  private nodeEpoch = 0;
  private controllerEpoch = 0;

  /**
   * Keeps the newer copy, unless it cannot follow from the one known (isForked): that is the evidence
   * of a lost write, which the next restore must still see to repair the fork — a change hint can
   * arrive on the change channel before the metadata connection is back and its restore has run.
   */
  observePartition(state: PartitionState): void {
    const known = this.partitions.get(state.partition);
    if (!known || (known.partitionEpoch < state.partitionEpoch && !isForked(state, known)))
      this.partitions.set(state.partition, copyPartitionState(state));
  }

  observeNodeEpoch(epoch: number): void {
    this.nodeEpoch = Math.max(this.nodeEpoch, epoch);
  }

  observeControllerEpoch(epoch: number): void {
    this.controllerEpoch = Math.max(this.controllerEpoch, epoch);
  }

  get maxNodeEpoch(): number {
    return this.nodeEpoch;
  }

  get maxControllerEpoch(): number {
    return this.controllerEpoch;
  }

  /** The newest copy of every partition seen, in partition order. */
  partitionStates(): PartitionState[] {
    return [...this.partitions.values()].sort((a, b) => a.partition - b.partition).map(copyPartitionState);
  }
}
