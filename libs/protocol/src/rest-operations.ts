/**
 * REST shapes of the operator endpoints (offset resets, lag evaluation, the assignor dry run), shared
 * by the server, the CLI, the dashboard and tests. Field names are the REST API's (docs/lag.md,
 * README "Operations").
 */

/** Burrow's evaluation of a partition or a group (docs/lag.md); UNKNOWN: no end offset reported. */
export type LagStatus = 'OK' | 'WARN' | 'ERR' | 'STOP' | 'STALL' | 'UNKNOWN';
export const LAG_STATUSES: readonly LagStatus[] = ['OK', 'WARN', 'ERR', 'STOP', 'STALL', 'UNKNOWN'];

/** One point of a partition's recent window: a commit (with the end offset known then), or the latest report. */
export interface LagSample {
  timestamp: number;
  committedOffset: number;
  logEndOffset: number | null;
  lag: number | null;
}

export interface PartitionLag {
  topic: string;
  partition: number;
  committedOffset: number;
  logEndOffset: number | null;
  lag: number | null;
  /**
   * Time lag: how long ago the committed offset was the partition's log end, read from the end-offset
   * time index (docs/lag.md); 0 when caught up, null when no end offset was reported.
   */
  timeLagMs: number | null;
  status: LagStatus;
  /** Oldest first, bounded (docs/lag.md). */
  history: LagSample[];
}

/** `GET /v1/groups/:groupId/lag`. The totals cover the partitions whose lag is known; null when none is. */
export interface GroupLag {
  groupId: string;
  status: LagStatus;
  totalLag: number | null;
  maxLag: number | null;
  maxTimeLagMs: number | null;
  partitions: PartitionLag[];
}

export type ResetStrategy = 'earliest' | 'latest' | 'offset' | 'shift' | 'current' | 'datetime' | 'duration';
export const RESET_STRATEGIES: readonly ResetStrategy[] = [
  'earliest',
  'latest',
  'offset',
  'shift',
  'current',
  'datetime',
  'duration',
];

/** `POST /v1/groups/:groupId/offsets/reset` body. */
export interface ResetOffsetsRequest {
  topics?: { name: string; partitions?: number[] }[];
  allTopics?: boolean;
  strategy: ResetStrategy;
  value?: number;
  /**
   * Strategy `datetime` (kafka-consumer-groups.sh `--to-datetime`): ISO-8601 `YYYY-MM-DDTHH:mm:SS.sss`,
   * UTC unless it ends with `Z` or an offset (`+01:00`, `-0500`, `+02`), as Kafka reads it.
   */
  datetime?: string;
  /** Strategy `duration` (`--by-duration`): an ISO-8601 duration `PnDTnHnMn.nS` (Java's `Duration.parse`) before now. */
  duration?: string;
  /** Defaults to true: nothing changes unless this is false. */
  dryRun?: boolean;
}

export interface ResetOffsetsEntry {
  topic: string;
  partition: number;
  /** null: the group has no committed offset there (for a share group: no share-partition state, so no SPSO). */
  currentOffset: number | null;
  newOffset: number;
}

export interface ResetOffsetsResult {
  groupId: string;
  dryRun: boolean;
  offsets: ResetOffsetsEntry[];
}

/** `POST /v1/assignors/:name/assign` answer. */
export interface AssignDryRunResult {
  assignments: Record<string, { topic: string; partitions: number[] }[]>;
  /** Subscribed topics missing from partitionsPerTopic: nobody gets anything of them. */
  unknownTopics: string[];
}
