import type { ControllerLease, NodeRegistration } from './node-registration';
import type { PartitionState } from './partition-state';

/**
 * The metadata store port: node registry, controller lease and partition state (the roles of KRaft's
 * metadata log, kept in a store instead). Implementations: `InMemoryMetadataStore` (embedded mode and
 * the simulator) and a Redis store (cluster mode; atomic operations in Lua, registrations and the lease
 * as keys with expiry, change notification over pub/sub).
 *
 * Contract shared by all implementations:
 * - Every method is atomic and linearizable with respect to the others.
 * - Time-based expiry (registrations, the lease) is measured by the store's own clock.
 * - Promises may reject (store unreachable, connection lost); callers retry. A rejected write may or may
 *   not have been applied, so every write is safe to retry or is guarded by an epoch.
 * - Notifications are hints that something changed, delivered at least once per change while the
 *   watcher is connected, possibly late or coalesced. Watchers re-read what they need; the
 *   `partitionEpoch` in each state tells them which copy is newer. Expiries need not be notified: the
 *   controller also polls `listNodes` (at least every NODE_SESSION_TIMEOUT_MS / 3).
 */
export interface MetadataStore {
  // ---- node registry --------------------------------------------------------------------------

  /**
   * Registers `nodeId` with a new node epoch, replacing any earlier registration of the same id (a
   * restarted process), alive for `sessionTimeoutMs` unless renewed. `previousNodeEpoch` is stored as
   * given (see NodeRegistration).
   */
  registerNode(
    nodeId: number,
    endpoint: string,
    previousNodeEpoch: number,
    sessionTimeoutMs: number,
  ): Promise<NodeRegistration>;

  /**
   * Extends the registration by `sessionTimeoutMs` from now. Returns false — and changes nothing — when
   * the registration of that epoch has expired or been replaced: the node is fenced and must register again.
   */
  renewNode(nodeId: number, nodeEpoch: number, sessionTimeoutMs: number): Promise<boolean>;

  /** Marks the registration of that epoch as shutting down (controlled shutdown). False when it is gone. */
  requestShutdown(nodeId: number, nodeEpoch: number): Promise<boolean>;

  /** Removes the registration if it still has that epoch. */
  deregisterNode(nodeId: number, nodeEpoch: number): Promise<void>;

  /** Live (unexpired) registrations, in node id order. */
  listNodes(): Promise<NodeRegistration[]>;

  // ---- controller lease -----------------------------------------------------------------------

  /**
   * Takes the controller lease for `nodeId` if it is free or expired (the controller epoch then grows by
   * one), or renews it if `nodeId` already holds it (same epoch). Returns the lease when `nodeId` holds
   * it afterwards, null when another node does.
   */
  acquireControllerLease(nodeId: number, leaseMs: number): Promise<ControllerLease | null>;

  /** Gives the lease up early (clean shutdown) if `nodeId` still holds it with that epoch. */
  releaseControllerLease(nodeId: number, controllerEpoch: number): Promise<void>;

  /** The current unexpired lease, or null. */
  getControllerLease(): Promise<ControllerLease | null>;

  // ---- partition state ------------------------------------------------------------------------

  /** Every partition's state, in partition order. */
  listPartitions(): Promise<PartitionState[]>;

  getPartition(partition: number): Promise<PartitionState | null>;

  /**
   * Creates partitions that do not exist yet (the others are left untouched), only while
   * `controllerEpoch` is the current lease's epoch. Returns how many were created.
   */
  createPartitions(states: PartitionState[], controllerEpoch: number): Promise<number>;

  /**
   * Replaces the state of `next.partition` only if its current `partitionEpoch` equals
   * `expectedPartitionEpoch` and `controllerEpoch` is the current lease's epoch. The caller sets
   * `next.partitionEpoch = expectedPartitionEpoch + 1`.
   */
  compareAndSetPartition(
    expectedPartitionEpoch: number,
    next: PartitionState,
    controllerEpoch: number,
  ): Promise<CasOutcome>;

  // ---- notification ---------------------------------------------------------------------------

  /** Subscribes to change hints; returns the unsubscribe function. */
  watch(listener: MetadataChangeListener): () => void;

  close(): Promise<void>;
}

export type CasOutcome =
  | { ok: true; state: PartitionState }
  | { ok: false; reason: 'STALE_PARTITION_EPOCH' | 'UNKNOWN_PARTITION'; current: PartitionState | null }
  | { ok: false; reason: 'NOT_CONTROLLER'; current: null };

export interface MetadataChangeListener {
  /** A partition's state was written (the state as written, for convenience; re-read if in doubt). */
  onPartitionChanged?(state: PartitionState): void;
  /** A registration was added, replaced, marked shutting down or removed (not necessarily on expiry). */
  onNodesChanged?(): void;
  /** The controller lease changed hands or was released. */
  onControllerChanged?(): void;
}
