import type { StoredBatch } from '@cohort/replication';
import { MemoryLog, formatEpochCheckpoint } from '@cohort/replication/testing';
import type { SimCluster } from './sim-cluster';

/** The registration epoch a preloaded replica claims to have had before the simulation starts. */
export function preloadedNodeEpoch(nodeId: number): number {
  return 1_000 + nodeId;
}

/**
 * Writes a replica's log and epoch checkpoint to its simulated disk before the node starts, as earlier
 * history (e.g. unclean elections) would have left them. `batches` are [epoch, startOffset, count];
 * values are `e<epoch>@<offset>` (same epoch and offset, same record — log matching). The node also remembers a previous registration epoch, so with
 * LOG_FLUSH_POLICY=always it vouches for its data when it registers.
 */
export async function preloadReplica(
  sim: SimCluster,
  nodeId: number,
  partition: number,
  batches: Array<[number, number, number]>,
): Promise<void> {
  const disk = sim.disks.get(nodeId)!;
  const log = new MemoryLog({ clock: sim.clock, fsyncLatencyMs: 1 });
  const stored: StoredBatch[] = batches.map(([epoch, start, count]) => ({
    baseOffset: start,
    leaderEpoch: epoch,
    records: Array.from({ length: count }, (_, i) => ({
      offset: start + i,
      leaderEpoch: epoch,
      key: Buffer.from(`k-e${epoch}@${start + i}`),
      value: Buffer.from(`e${epoch}@${start + i}`),
      timestamp: sim.clock.now(),
    })),
  }));
  log.appendAsFollower(stored);
  const flushed = log.flush();
  await sim.clock.run(5);
  await flushed;
  disk.logs.set(partition, log);
  disk.checkpoints.write(
    `partition-${partition}/leader-epoch-checkpoint`,
    formatEpochCheckpoint(batches.map(([epoch, start]) => ({ epoch, startOffset: start }))),
  );
  disk.checkpoints.write('node-epoch', String(preloadedNodeEpoch(nodeId)));
}
