import type { ControllerLease, NodeRegistration } from '../metadata/node-registration';
import type { PeerAddress } from '../transport/transport.port';

/** A node's cached copy of the registrations and the controller lease, refreshed from the metadata store. */
export class RegistrationCache {
  private nodes = new Map<number, NodeRegistration>();
  controller: ControllerLease | null = null;

  /** Records the lease; true when a controller other than the one known before holds it. */
  setController(lease: ControllerLease | null): boolean {
    const moved =
      lease !== null &&
      (lease.nodeId !== this.controller?.nodeId || lease.controllerEpoch !== this.controller.controllerEpoch);
    this.controller = lease;
    return moved;
  }

  setNodes(list: NodeRegistration[]): void {
    this.nodes = new Map(list.map((n) => [n.nodeId, n]));
  }

  get(nodeId: number): NodeRegistration | undefined {
    return this.nodes.get(nodeId);
  }

  list(): NodeRegistration[] {
    return [...this.nodes.values()];
  }

  registeredEpoch(nodeId: number): number | undefined {
    return this.nodes.get(nodeId)?.nodeEpoch;
  }

  isAcceptable(nodeId: number): boolean {
    const n = this.nodes.get(nodeId);
    return n !== undefined && !n.shuttingDown;
  }

  peer(nodeId: number): PeerAddress | undefined {
    const n = this.nodes.get(nodeId);
    return n ? { nodeId, endpoint: n.endpoint } : undefined;
  }
}
