import type { StoredBatch } from '../log/partition-log';
import type { IsrMember, LeaderRecoveryState, PartitionState } from '../metadata/partition-state';

/**
 * The messages replicas exchange over the transport: Kafka's Fetch (follower → leader, KIP-320 epoch
 * fencing and KIP-595 divergence detection), AlterPartition (leader → controller, KIP-497/KIP-903) and
 * DescribeLogEnds (controller → replica, for KIP-966's unclean recovery).
 * Error codes are Kafka's numbers (`ReplicationErrorCode`). Everything is plain data: numbers, strings,
 * arrays and, inside records, Buffers — a network transport must carry Buffers byte-exactly.
 */

/** Marks "no epoch": a follower with an empty log has no last fetched epoch. */
export const UNDEFINED_EPOCH = -1;

export interface FetchPartitionRequest {
  partition: number;
  /** The leader epoch the follower believes current (KIP-320): lower → FENCED, higher → UNKNOWN. */
  currentLeaderEpoch: number;
  /** = the follower's LEO; the leader learns the follower's LEO only from this. */
  fetchOffset: number;
  /** Epoch of the follower's last batch (UNDEFINED_EPOCH when none) for the divergence check. */
  lastFetchedEpoch: number;
  logStartOffset: number;
  /** Upper bound on records returned for this partition (whole batches; at least one batch). */
  maxRecords: number;
}

export interface FetchRequest {
  /** The fetching follower's node id. */
  replicaId: number;
  /** Its registration epoch (KIP-903): fetch state from an older incarnation is refused. */
  replicaEpoch: number;
  /** Long-poll: the leader holds the request up to this long while no partition has new data. */
  maxWaitMs: number;
  partitions: FetchPartitionRequest[];
}

export interface DivergingEpoch {
  epoch: number;
  endOffset: number;
}

export interface FetchPartitionResponse {
  partition: number;
  errorCode: number;
  /** The leader's HW as it was before this fetch took effect. */
  highWatermark: number;
  logStartOffset: number;
  /** The leader's LEO: lets a follower that is out of range decide where to restart. */
  logEndOffset: number;
  /** Present when the follower's log diverges: truncate to this instead of appending. */
  divergingEpoch?: DivergingEpoch;
  /** Whole batches from `fetchOffset`, with the leader's offsets and epochs. Empty on error/divergence. */
  batches: StoredBatch[];
  /**
   * The leader's epoch-cache entries starting within the returned range (from `fetchOffset` to the last
   * record returned). Compaction may have removed an epoch's first batches, so a batch's base offset
   * is not always where its epoch starts; the follower copies these instead of guessing. Optional: a
   * follower that gets none assumes the epoch starts where its own log ended (the safe side).
   */
  epochStarts?: Array<{ epoch: number; startOffset: number }>;
}

export interface FetchResponse {
  /** Request-level error (NONE normally; e.g. NOT_LEADER_OR_FOLLOWER when the node is shutting down). */
  errorCode: number;
  partitions: FetchPartitionResponse[];
}

export interface AlterPartitionRequest {
  /** The leader proposing the change, with its registration epoch. */
  nodeId: number;
  nodeEpoch: number;
  partition: number;
  leaderEpoch: number;
  /** The partition epoch the proposal is based on: the compare-and-set version. */
  partitionEpoch: number;
  /** The proposed ISR with each member's registration epoch as the leader saw it in its fetches. */
  newIsr: IsrMember[];
  leaderRecoveryState: LeaderRecoveryState;
}

export interface AlterPartitionResponse {
  errorCode: number;
  /** The partition state after the change (on success), or the controller's current state when known. */
  state?: PartitionState;
}

/** Controller → replica: how far its logs of these partitions go (KIP-966 unclean recovery). */
export interface DescribeLogEndsRequest {
  partitions: number[];
}

export interface DescribeLogEndsResponse {
  /** Only partitions this node has opened; `lastEpoch` is the epoch of the last record (-1 when empty). */
  ends: Array<{ partition: number; logEndOffset: number; lastEpoch: number }>;
}

/** Every request kind with its request and response bodies. */
export interface RpcMap {
  fetch: { request: FetchRequest; response: FetchResponse };
  alterPartition: { request: AlterPartitionRequest; response: AlterPartitionResponse };
  describeLogEnds: { request: DescribeLogEndsRequest; response: DescribeLogEndsResponse };
}

export type RpcKind = keyof RpcMap;

/** A request on the wire: its kind and body. */
export type RpcRequest = { [K in RpcKind]: { kind: K; body: RpcMap[K]['request'] } }[RpcKind];
