import type { InMemoryLink, InterceptedMessage } from './in-memory-link';
import type { RpcKind, RpcMap, RpcRequest } from './messages';
import { TransportError, type PeerAddress, type RpcHandler, type Transport } from './transport.port';

/**
 * One node's endpoint on an `InMemoryNetwork`. Messages are passed by reference: senders and
 * receivers treat them as immutable (logs copy what they append, reads return fresh arrays).
 */
export class InMemoryTransport implements Transport {
  private handler: RpcHandler | undefined;
  private closed = false;
  private readonly inFlight = new Set<(e: TransportError) => void>();
  /** Peers this endpoint sent requests to: as over TCP, they learn when this process goes away. */
  private readonly contacted = new Set<number>();
  private peerClosed: ((nodeId: number) => void) | undefined;

  constructor(
    readonly nodeId: number,
    private readonly network: InMemoryLink,
  ) {}

  get isClosed(): boolean {
    return this.closed;
  }

  listen(handler: RpcHandler): void {
    this.handler = handler;
  }

  send<K extends RpcKind>(
    to: PeerAddress,
    kind: K,
    body: RpcMap[K]['request'],
    timeoutMs: number,
  ): Promise<RpcMap[K]['response']> {
    if (this.closed) return Promise.reject(new TransportError('CLOSED'));
    this.contacted.add(to.nodeId);
    return new Promise<RpcMap[K]['response']>((resolve, reject) => {
      let settled = false;
      const settle = (fn: () => void) => {
        if (settled) return;
        settled = true;
        timer.cancel();
        this.inFlight.delete(fail);
        fn();
      };
      const fail = (e: TransportError) => settle(() => reject(e));
      const timer = this.network.clock.schedule(timeoutMs, () =>
        fail(new TransportError('TIMEOUT', `${kind} to node ${to.nodeId} timed out`)),
      );
      this.inFlight.add(fail);
      const request = { kind, body } as RpcRequest;
      this.intercepted({ from: this.nodeId, to: to.nodeId, kind, direction: 'request', body }, (replaced) => {
        if (replaced !== undefined) {
          // The interceptor answered in the target's place: the target never sees the request.
          this.network.deliver(
            to.nodeId,
            this.nodeId,
            () => !this.closed && settle(() => resolve(replaced as RpcMap[K]['response'])),
          );
          return;
        }
        const target = this.network.endpoint(to.nodeId);
        if (!target) return; // nobody listening: the request is lost, the sender times out
        target.receive(this.nodeId, request).then(
          (response) =>
            this.intercepted(
              { from: to.nodeId, to: this.nodeId, kind, direction: 'response', body: response, request: body },
              (replaced) => {
                if (!this.closed) settle(() => resolve((replaced ?? response) as RpcMap[K]['response']));
              },
            ),
          (error: unknown) =>
            this.network.deliver(to.nodeId, this.nodeId, () => {
              if (!this.closed) fail(new TransportError('REMOTE_FAILURE', String(error)));
            }),
        );
      });
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.handler = undefined;
    this.peerClosed = undefined;
    for (const fail of [...this.inFlight]) fail(new TransportError('CLOSED'));
    for (const peer of this.contacted) this.network.announceClosed(this.nodeId, peer);
  }

  onPeerClosed(listener: (nodeId: number) => void): void {
    this.peerClosed = listener;
  }

  /** The network's notice that `nodeId`'s endpoint closed. */
  peerWentAway(nodeId: number): void {
    if (!this.closed) this.peerClosed?.(nodeId);
  }

  /** Applies the network's interceptor, then the link conditions. */
  private intercepted(message: InterceptedMessage, arrive: (replacement?: unknown) => void): void {
    const decision = this.network.interceptor?.(message) ?? 'deliver';
    if (decision === 'drop') return;
    if (decision === 'deliver') return this.network.deliver(message.from, message.to, () => arrive());
    if ('delayMs' in decision) {
      this.network.clock.schedule(decision.delayMs, () =>
        this.network.deliver(message.from, message.to, () => arrive()),
      );
      return;
    }
    this.network.deliver(message.from, message.to, () => arrive(decision.replaceWith));
  }

  /** A peer's request arrives (called by the sending transport, through the network). */
  receive(from: number, request: RpcRequest): Promise<RpcMap[RpcKind]['response']> {
    const handler = this.handler;
    // A crashed or not-yet-listening node answers nothing; the sender times out as over a real network.
    if (this.closed || !handler) return new Promise(() => undefined);
    return handler(from, request);
  }
}
