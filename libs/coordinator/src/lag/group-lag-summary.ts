import type { LagStatus } from '@cohort/protocol';

/** A group's lag without per-partition histories: what the metrics scrape needs, for every group. */
export interface GroupLagSummary {
  groupId: string;
  status: LagStatus;
  totalLag: number;
  maxLag: number;
  /** topic → summed lag of its partitions with a known end offset. */
  topicLag: Map<string, number>;
  /** Only when asked for (METRICS_PARTITION_LAG). */
  partitions?: { topic: string; partition: number; lag: number }[];
}
