import { maybeShrinkIsr } from '../partition/isr-changes';
import type { Partition } from '../partition/partition';
import type { ReplicationConfig } from '../replication-config';
import type { CheckpointStorage } from '../storage/checkpoint-storage.port';
import { writeHighWatermarks } from './hw-checkpoint';

/** How often a node tries again to write to a log whose storage failed (a full disk). */
export const LOG_HEAL_INTERVAL_MS = 1_000;

/** What the periodic tasks of a ReplicaManager work on. */
export interface ReplicaMaintenanceHost {
  nodeId: number;
  config: ReplicationConfig;
  checkpoints: CheckpointStorage;
  /** The HWs last checkpointed, per partition (kept for partitions this node no longer hosts). */
  hwCheckpoint: Map<number, number>;
  partitions: () => Iterable<Partition>;
  /** After any change to a partition: leadership announcements, pending ISR proposals, parked fetches. */
  afterChange: (p: Partition) => void;
  onLogHealed?: (nodeId: number, partition: number) => void;
  reportError: (error: unknown, context: string) => void;
}

/** The ISR-expiry task: followers that fell behind leave the ISRs this node leads. */
export function expireIsr(host: ReplicaMaintenanceHost): void {
  for (const p of host.partitions()) {
    maybeShrinkIsr(p);
    host.afterChange(p);
  }
}

/**
 * Logs whose storage failed (a full disk) refuse appends with KAFKA_STORAGE_ERROR and keep serving
 * reads, so a leader's followers go on fetching what it acknowledged; this writes again what failed,
 * and the log takes appends again once that works. Nothing is cut: a follower may hold those records.
 */
export function healLogs(host: ReplicaMaintenanceHost): void {
  for (const p of host.partitions()) {
    if (!p.log.storageFault || !p.log.heal) continue;
    p.log
      .heal()
      // Under LOG_FLUSH_POLICY=always the leader counts only flushed records towards the HW.
      .then(() => p.log.flush())
      .then(
        () => {
          host.onLogHealed?.(host.nodeId, p.partition);
          if (p.maybeIncrementHighWatermark()) host.afterChange(p);
        },
        () => undefined,
      );
  }
}

/** The HW-checkpoint task (and, under LOG_FLUSH_POLICY=replicated, the flush that bounds a power cut's loss). */
export function checkpointHighWatermarks(host: ReplicaMaintenanceHost): void {
  for (const p of host.partitions()) host.hwCheckpoint.set(p.partition, p.hw);
  writeHighWatermarks(host.checkpoints, host.hwCheckpoint);
  if (host.config.logFlushPolicy === 'replicated') {
    // Kafka flushes on segment roll; we flush at the checkpoint so a power cut loses a bounded tail.
    for (const p of host.partitions())
      if (!p.log.storageFault) p.log.flush().catch((e) => host.reportError(e, `flushing partition ${p.partition}`));
  }
}
