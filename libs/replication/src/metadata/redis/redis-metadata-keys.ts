/**
 * Every key and the change channel of one cluster, all under `<CLUSTER_ID>:` so that several clusters
 * (and parallel tests) share one Redis without ever touching each other's data (README.md's configuration table).
 */
export class RedisMetadataKeys {
  readonly prefix: string;
  /** Set (to the Redis time it was written) when the cluster's metadata was initialized or restored. */
  readonly alive: string;
  /** Counters behind node and controller epochs; INCR-like, raised to a floor after a data loss. */
  readonly nodeEpoch: string;
  readonly controllerEpoch: string;
  /** Ids of registered nodes; each registration is a hash under `nodeKey(id)` with a TTL. */
  readonly nodes: string;
  /** The controller lease: a hash { nodeId, controllerEpoch } with a TTL. */
  readonly controller: string;
  /** Hash: partition number → PartitionState as JSON. */
  readonly partitions: string;
  /** Pub/sub channel of change hints. */
  readonly changes: string;

  constructor(clusterId: string) {
    if (typeof clusterId !== 'string' || clusterId.length === 0 || /\s/.test(clusterId)) {
      throw new RangeError(`CLUSTER_ID must be a non-empty string without spaces, got ${JSON.stringify(clusterId)}`);
    }
    this.prefix = `${clusterId}:`;
    this.alive = `${this.prefix}alive`;
    this.nodeEpoch = `${this.prefix}node-epoch`;
    this.controllerEpoch = `${this.prefix}controller-epoch`;
    this.nodes = `${this.prefix}nodes`;
    this.controller = `${this.prefix}controller`;
    this.partitions = `${this.prefix}partitions`;
    this.changes = `${this.prefix}changes`;
  }

  /** Prefix of registration hashes; scripts that list nodes append the id themselves. */
  get nodePrefix(): string {
    return `${this.prefix}node:`;
  }

  node(nodeId: number): string {
    return `${this.nodePrefix}${nodeId}`;
  }
}
