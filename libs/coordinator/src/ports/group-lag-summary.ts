import type { LagStatus } from '@cohort/protocol';

/** A group's lag without per-partition histories: what the metrics scrape needs, for every group. */
export interface GroupLagSummary {
  groupId: string;
  status: LagStatus;
  /** Over the partitions whose lag is known; null when none is. */
  totalLag: number | null;
  maxLag: number | null;
  /** topic → summed lag of its partitions with a known end offset. */
  topicLag: Map<string, number>;
  /** topic → the largest time lag of its partitions with a known end offset (docs/lag.md). */
  topicTimeLagMs: Map<string, number>;
  /** Only when asked for (METRICS_PARTITION_LAG). */
  partitions?: { topic: string; partition: number; lag: number; timeLagMs: number | null }[];
}
