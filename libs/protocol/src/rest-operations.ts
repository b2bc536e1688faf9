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
  status: LagStatus;
  /** Oldest first, bounded (docs/lag.md). */
  history: LagSample[];
}

/** `GET /v1/groups/:groupId/lag`. */
export interface GroupLag {
  groupId: string;
  status: LagStatus;
  totalLag: number;
  maxLag: number;
  partitions: PartitionLag[];
}

export type ResetStrategy = 'earliest' | 'latest' | 'offset' | 'shift' | 'current';
export const RESET_STRATEGIES: readonly ResetStrategy[] = ['earliest', 'latest', 'offset', 'shift', 'current'];

/** `POST /v1/groups/:groupId/offsets/reset` body. */
export interface ResetOffsetsRequest {
  topics?: { name: string; partitions?: number[] }[];
  allTopics?: boolean;
  strategy: ResetStrategy;
  value?: number;
  /** Defaults to true: nothing changes unless this is false. */
  dryRun?: boolean;
}

export interface ResetOffsetsEntry {
  topic: string;
  partition: number;
  /** null: the group has no committed offset there. */
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
