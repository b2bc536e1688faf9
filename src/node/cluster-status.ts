import type { ClusterNode, PartitionInfo, ReplicaState } from '@cohort/protocol';

/** The REST API's shapes (docs/rest.md), under the names this module's callers use. */
export type NodeView = ClusterNode;
export type ReplicaStateView = ReplicaState;
export type PartitionView = PartitionInfo;

/**
 * What this node knows of the cluster, for FindCoordinator and the `/v1/cluster` endpoints (docs/rest.md).
 * Embedded mode answers from the local store; cluster mode from the metadata store (Redis).
 */
export interface ClusterStatus {
  readonly clusterId: string;
  /** This node's id (NODE_ID). */
  readonly nodeId: number;
  controllerId(): number | null;
  nodes(): NodeView[];
  partitions(): PartitionView[];
  /** The node that leads `partition` and so coordinates its groups; null while there is none. */
  leaderOf(partition: number): NodeView | null;
}
