import type {
  CasOutcome,
  ControllerLease,
  MetadataChangeListener,
  MetadataStore,
  NodeRegistration,
  PartitionState,
} from '@cohort/replication';
import type { InMemoryMetadataStore, InMemoryNetwork } from '@cohort/replication/testing';

/** The pseudo node id of the metadata store on the simulated network (Redis, in cluster mode). */
export const STORE_NODE_ID = -100;

/**
 * One node's connection to the shared in-memory metadata store, over the simulated network: each call
 * travels node → store, runs there atomically, and its answer travels back; a cut or lossy link makes
 * calls time out (possibly after they were applied, as with a real store), and change hints are
 * delivered over the same link. Cutting a node off the store is how the simulator isolates a node from
 * the controller.
 */
export class SimStoreLink implements MetadataStore {
  private closed = false;
  private readonly unwatchers: Array<() => void> = [];

  constructor(
    private readonly nodeId: number,
    private readonly store: InMemoryMetadataStore,
    private readonly network: InMemoryNetwork,
    private readonly timeoutMs: number,
  ) {}

  registerNode(
    nodeId: number,
    endpoint: string,
    previousNodeEpoch: number,
    sessionTimeoutMs: number,
  ): Promise<NodeRegistration> {
    return this.call(() => this.store.registerNode(nodeId, endpoint, previousNodeEpoch, sessionTimeoutMs));
  }
  renewNode(nodeId: number, nodeEpoch: number, sessionTimeoutMs: number): Promise<boolean> {
    return this.call(() => this.store.renewNode(nodeId, nodeEpoch, sessionTimeoutMs));
  }
  requestShutdown(nodeId: number, nodeEpoch: number): Promise<boolean> {
    return this.call(() => this.store.requestShutdown(nodeId, nodeEpoch));
  }
  deregisterNode(nodeId: number, nodeEpoch: number): Promise<void> {
    return this.call(() => this.store.deregisterNode(nodeId, nodeEpoch));
  }
  listNodes(): Promise<NodeRegistration[]> {
    return this.call(() => this.store.listNodes());
  }
  acquireControllerLease(nodeId: number, leaseMs: number): Promise<ControllerLease | null> {
    return this.call(() => this.store.acquireControllerLease(nodeId, leaseMs));
  }
  releaseControllerLease(nodeId: number, controllerEpoch: number): Promise<void> {
    return this.call(() => this.store.releaseControllerLease(nodeId, controllerEpoch));
  }
  getControllerLease(): Promise<ControllerLease | null> {
    return this.call(() => this.store.getControllerLease());
  }
  listPartitions(): Promise<PartitionState[]> {
    return this.call(() => this.store.listPartitions());
  }
  getPartition(partition: number): Promise<PartitionState | null> {
    return this.call(() => this.store.getPartition(partition));
  }
  createPartitions(states: PartitionState[], controllerEpoch: number): Promise<number> {
    return this.call(() => this.store.createPartitions(states, controllerEpoch));
  }
  compareAndSetPartition(
    expectedPartitionEpoch: number,
    next: PartitionState,
    controllerEpoch: number,
  ): Promise<CasOutcome> {
    return this.call(() => this.store.compareAndSetPartition(expectedPartitionEpoch, next, controllerEpoch));
  }

  watch(listener: MetadataChangeListener): () => void {
    const relay = (deliver: () => void) =>
      this.network.deliver(STORE_NODE_ID, this.nodeId, () => !this.closed && deliver());
    const unwatch = this.store.watch({
      onPartitionChanged: (s) => relay(() => listener.onPartitionChanged?.(s)),
      onNodesChanged: () => relay(() => listener.onNodesChanged?.()),
      onControllerChanged: () => relay(() => listener.onControllerChanged?.()),
    });
    this.unwatchers.push(unwatch);
    return unwatch;
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const u of this.unwatchers) u();
  }

  private call<T>(op: () => Promise<T>): Promise<T> {
    if (this.closed) return Promise.reject(new Error('store link closed'));
    return new Promise<T>((resolve, reject) => {
      let settled = false;
      const timer = this.network.clock.schedule(this.timeoutMs, () => {
        if (settled) return;
        settled = true;
        reject(new Error('metadata store call timed out'));
      });
      this.network.deliver(this.nodeId, STORE_NODE_ID, () => {
        op().then((value) =>
          this.network.deliver(STORE_NODE_ID, this.nodeId, () => {
            if (settled || this.closed) return;
            settled = true;
            timer.cancel();
            resolve(value);
          }),
        );
      });
    });
  }
}
