/**
 * What this node knows of the cluster, for FindCoordinator and the `/v1/cluster` endpoints (docs/rest.md).
 * Embedded mode answers from the local store; cluster mode from the metadata store (Redis).
 */
export interface NodeView {
  nodeId: number;
  url: string;
  alive: boolean;
}

export interface ReplicaStateView {
  nodeId: number;
  logEndOffset: number;
  lastCaughtUpMs: number;
}

export interface PartitionView {
  partition: number;
  leader: number | null;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
  highWatermark: number;
  logEndOffset: number;
  replicaStates: ReplicaStateView[];
}

export interface ClusterView {
  readonly clusterId: string;
  /** This node's id (NODE_ID). */
  readonly nodeId: number;
  controllerId(): number | null;
  nodes(): NodeView[];
  partitions(): PartitionView[];
  /** The node that leads `partition` and so coordinates its groups; null while there is none. */
  leaderOf(partition: number): NodeView | null;
}
