import type { Clock } from '../time/clock';
import type { RpcKind, RpcMap, RpcRequest } from './messages';

/** A message as an interceptor sees it: a request, or the response to one (`body` is the response). */
export interface InterceptedMessage {
  from: number;
  to: number;
  kind: string;
  direction: 'request' | 'response';
  body: unknown;
  /** For a response: the request it answers. */
  request?: unknown;
}

/**
 * What to do with a message: deliver it (normally, or after an extra delay), drop it, or replace it —
 * a replaced response arrives with the given body; a replaced request is answered with the given body
 * without reaching its target. Tests use this to stage exact fault scenarios.
 */
export type InterceptDecision = 'deliver' | 'drop' | { delayMs: number } | { replaceWith: unknown };

export type Interceptor = (message: InterceptedMessage) => InterceptDecision;

/** The receiving side of a transport, as a peer on the same network reaches it. */
export interface InMemoryEndpoint {
  receive(from: number, request: RpcRequest): Promise<RpcMap[RpcKind]['response']>;
  /** The peer `from` closed its transport: its connections to this node are gone. */
  peerWentAway(from: number): void;
}

/**
 * What a transport needs of its network (`InMemoryNetwork`): the clock, the interceptor, delivery under
 * the link conditions and the peers' endpoints. A narrow port, so the transport does not import the network.
 */
export interface InMemoryLink {
  readonly clock: Clock;
  readonly interceptor: Interceptor | null;
  deliver(from: number, to: number, arrive: () => void): void;
  /** Tells `to`, after the link's delay, that `from` closed its transport. */
  announceClosed(from: number, to: number): void;
  endpoint(nodeId: number): InMemoryEndpoint | undefined;
}
