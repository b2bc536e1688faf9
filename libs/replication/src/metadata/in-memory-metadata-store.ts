import type { Clock } from '../time/clock';
import type { CasOutcome, MetadataChangeListener, MetadataStore } from './metadata-store.port';
import type { ControllerLease, NodeRegistration } from './node-registration';
import { copyPartitionState, type PartitionState } from './partition-state';

interface Registration extends NodeRegistration {
  expiresAt: number;
}

interface Lease extends ControllerLease {
  expiresAt: number;
}

/**
 * The metadata store in one process: embedded mode, unit tests and the simulator (where every node
 * reaches it through a simulated network link). Expiry is measured with the injected clock; change
 * hints are delivered on a microtask so that a writer never re-enters its own listeners.
 */
export class InMemoryMetadataStore implements MetadataStore {
  private readonly nodes = new Map<number, Registration>();
  private readonly partitions = new Map<number, PartitionState>();
  private lease: Lease | null = null;
  private lastControllerEpoch = 0;
  private lastNodeEpoch = 0;
  private readonly listeners = new Set<MetadataChangeListener>();

  constructor(private readonly clock: Clock) {}

  async registerNode(
    nodeId: number,
    endpoint: string,
    previousNodeEpoch: number,
    sessionTimeoutMs: number,
  ): Promise<NodeRegistration> {
    const registration: Registration = {
      nodeId,
      nodeEpoch: ++this.lastNodeEpoch,
      endpoint,
      shuttingDown: false,
      previousNodeEpoch,
      expiresAt: this.clock.now() + sessionTimeoutMs,
    };
    this.nodes.set(nodeId, registration);
    this.notify((l) => l.onNodesChanged?.());
    return publicRegistration(registration);
  }

  async renewNode(nodeId: number, nodeEpoch: number, sessionTimeoutMs: number): Promise<boolean> {
    const r = this.liveRegistration(nodeId);
    if (!r || r.nodeEpoch !== nodeEpoch) return false;
    r.expiresAt = this.clock.now() + sessionTimeoutMs;
    return true;
  }

  async requestShutdown(nodeId: number, nodeEpoch: number): Promise<boolean> {
    const r = this.liveRegistration(nodeId);
    if (!r || r.nodeEpoch !== nodeEpoch) return false;
    if (!r.shuttingDown) {
      r.shuttingDown = true;
      this.notify((l) => l.onNodesChanged?.());
    }
    return true;
  }

  async deregisterNode(nodeId: number, nodeEpoch: number): Promise<void> {
    const r = this.nodes.get(nodeId);
    if (!r || r.nodeEpoch !== nodeEpoch) return;
    this.nodes.delete(nodeId);
    this.notify((l) => l.onNodesChanged?.());
  }

  async listNodes(): Promise<NodeRegistration[]> {
    return [...this.nodes.keys()]
      .sort((a, b) => a - b)
      .map((id) => this.liveRegistration(id))
      .filter((r): r is Registration => r !== undefined)
      .map(publicRegistration);
  }

  async acquireControllerLease(nodeId: number, leaseMs: number): Promise<ControllerLease | null> {
    const now = this.clock.now();
    const current = this.currentLease();
    if (current && current.nodeId !== nodeId) return null;
    if (current) {
      current.expiresAt = now + leaseMs;
      return { nodeId, controllerEpoch: current.controllerEpoch };
    }
    this.lease = { nodeId, controllerEpoch: ++this.lastControllerEpoch, expiresAt: now + leaseMs };
    this.notify((l) => l.onControllerChanged?.());
    return { nodeId, controllerEpoch: this.lease.controllerEpoch };
  }

  async releaseControllerLease(nodeId: number, controllerEpoch: number): Promise<void> {
    const current = this.currentLease();
    if (!current || current.nodeId !== nodeId || current.controllerEpoch !== controllerEpoch) return;
    this.lease = null;
    this.notify((l) => l.onControllerChanged?.());
  }

  async getControllerLease(): Promise<ControllerLease | null> {
    const current = this.currentLease();
    return current ? { nodeId: current.nodeId, controllerEpoch: current.controllerEpoch } : null;
  }

  async listPartitions(): Promise<PartitionState[]> {
    return [...this.partitions.values()].sort((a, b) => a.partition - b.partition).map(copyPartitionState);
  }

  async getPartition(partition: number): Promise<PartitionState | null> {
    const s = this.partitions.get(partition);
    return s ? copyPartitionState(s) : null;
  }

  async createPartitions(states: PartitionState[], controllerEpoch: number): Promise<number> {
    if (!this.holdsLease(controllerEpoch)) return 0;
    let created = 0;
    for (const s of states) {
      if (this.partitions.has(s.partition)) continue;
      const copy = copyPartitionState(s);
      this.partitions.set(s.partition, copy);
      created++;
      this.notify((l) => l.onPartitionChanged?.(copyPartitionState(copy)));
    }
    return created;
  }

  async compareAndSetPartition(
    expectedPartitionEpoch: number,
    next: PartitionState,
    controllerEpoch: number,
  ): Promise<CasOutcome> {
    if (!this.holdsLease(controllerEpoch)) return { ok: false, reason: 'NOT_CONTROLLER', current: null };
    const current = this.partitions.get(next.partition);
    if (!current) return { ok: false, reason: 'UNKNOWN_PARTITION', current: null };
    if (current.partitionEpoch !== expectedPartitionEpoch) {
      return { ok: false, reason: 'STALE_PARTITION_EPOCH', current: copyPartitionState(current) };
    }
    const stored = copyPartitionState(next);
    this.partitions.set(next.partition, stored);
    this.notify((l) => l.onPartitionChanged?.(copyPartitionState(stored)));
    return { ok: true, state: copyPartitionState(stored) };
  }

  /** Synchronous copy of every partition state: for tests and the simulator's invariant checks. */
  partitionsSnapshot(): PartitionState[] {
    return [...this.partitions.values()].sort((a, b) => a.partition - b.partition).map(copyPartitionState);
  }

  /** Synchronous copy of the live registrations (tests, simulator). */
  nodesSnapshot(): NodeRegistration[] {
    return [...this.nodes.keys()]
      .sort((a, b) => a - b)
      .map((id) => this.liveRegistration(id))
      .filter((r): r is Registration => r !== undefined)
      .map(publicRegistration);
  }

  watch(listener: MetadataChangeListener): () => void {
    this.listeners.add(listener);
    return () => void this.listeners.delete(listener);
  }

  async close(): Promise<void> {
    this.listeners.clear();
  }

  private liveRegistration(nodeId: number): Registration | undefined {
    const r = this.nodes.get(nodeId);
    return r && r.expiresAt > this.clock.now() ? r : undefined;
  }

  private currentLease(): Lease | null {
    return this.lease && this.lease.expiresAt > this.clock.now() ? this.lease : null;
  }

  private holdsLease(controllerEpoch: number): boolean {
    const current = this.currentLease();
    return current !== null && current.controllerEpoch === controllerEpoch;
  }

  private notify(deliver: (l: MetadataChangeListener) => void): void {
    const targets = [...this.listeners];
    queueMicrotask(() => {
      for (const l of targets) deliver(l);
    });
  }
}

function publicRegistration(r: Registration): NodeRegistration {
  return {
    nodeId: r.nodeId,
    nodeEpoch: r.nodeEpoch,
    endpoint: r.endpoint,
    shuttingDown: r.shuttingDown,
    previousNodeEpoch: r.previousNodeEpoch,
  };
}
