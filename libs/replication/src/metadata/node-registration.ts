/**
 * A node's registration in the metadata store (Kafka's broker registration). Registering again — as a
 * restarted process does — always yields a new, larger `nodeEpoch`: the epoch tells incarnations apart,
 * so that state learned from an earlier incarnation (ISR membership, fetch positions) is not trusted.
 */
export interface NodeRegistration {
  nodeId: number;
  /** Unique per registration and increasing across the whole cluster (Kafka's broker epoch). */
  nodeEpoch: number;
  /** How peers reach this node's transport (e.g. `http://10.0.0.5:3000`); opaque to the replication core. */
  endpoint: string;
  /** Controlled shutdown requested: the controller moves leadership away and drops it from every ISR. */
  shuttingDown: boolean;
  /**
   * The epoch of this node's previous registration if the node vouches that it still holds everything
   * it reported under that epoch (clean shutdown, or LOG_FLUSH_POLICY=always, or a re-registration
   * without a restart); -1 otherwise. KIP-966's clean-shutdown detection: ISR/ELR memberships of the
   * previous epoch carry over only when this matches; otherwise the node lost unflushed data and is
   * removed from them until it has caught up again (KIP-903).
   */
  previousNodeEpoch: number;
}

/** The controller lease: the node that currently runs the controller, and the lease's fencing epoch. */
export interface ControllerLease {
  nodeId: number;
  /** +1 every time the lease changes hands; partition writes carry it and are refused when stale. */
  controllerEpoch: number;
}
