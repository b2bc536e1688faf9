import type { RpcKind, RpcMap, RpcRequest } from './messages';

/** Where a peer is: its node id and the endpoint from its registration (ignored by in-memory transports). */
export interface PeerAddress {
  nodeId: number;
  endpoint: string;
}

/**
 * Serves requests addressed to this node: receives the sender's node id and the request, resolves with
 * the response body of the same kind. A handler that rejects makes the caller's `send` reject.
 */
export type RpcHandler = (from: number, request: RpcRequest) => Promise<RpcMap[RpcKind]['response']>;

/**
 * The transport port: request/response between nodes. Implementations: `InMemoryTransport` (one
 * process; in the simulator with controllable delay, loss, reordering and partitions) and a network
 * transport between processes.
 *
 * Contract:
 * - At most once: a request is handled zero or one times; a response is delivered zero or one times.
 * - No ordering between requests (the replication protocol never relies on it: every message carries
 *   epochs and offsets, and stale responses are recognized and dropped).
 * - `send` rejects with `TransportError` when the peer is unknown or unreachable, the connection drops,
 *   or no response arrives within `timeoutMs`; the request may then have been handled or not.
 * - Handlers run on the receiving node's event loop; long-polls (Fetch) may hold their response up to
 *   the request's `maxWaitMs`, so `timeoutMs` must exceed it.
 */
export interface Transport {
  /** The local node's id. */
  readonly nodeId: number;
  /** Installs the handler for requests addressed to this node (replacing any earlier one). */
  listen(handler: RpcHandler): void;
  send<K extends RpcKind>(
    to: PeerAddress,
    kind: K,
    body: RpcMap[K]['request'],
    timeoutMs: number,
  ): Promise<RpcMap[K]['response']>;
  /** Stops serving and fails requests in flight from this node. */
  close(): Promise<void>;
  /**
   * Installs the listener told when every connection a peer had opened to this node has closed (its
   * process died or stopped: the kernel closes its sockets at once). A cut network tells nothing — that
   * is what timeouts are for. The leader uses it to drop a dead follower from its ISRs without waiting
   * for REPLICA_LAG_TIME_MAX_MS or the node session timeout.
   */
  onPeerClosed?(listener: (nodeId: number) => void): void;
}

/** Raised by `Transport.send` when no response can be had; the request's outcome is unknown. */
export class TransportError extends Error {
  constructor(
    readonly reason: 'UNREACHABLE' | 'TIMEOUT' | 'CLOSED' | 'REMOTE_FAILURE',
    message?: string,
  ) {
    super(message ?? reason);
    this.name = 'TransportError';
  }
}
