import type { Socket } from 'socket.io';
import { canonicalHost } from '@cohort/security';

/**
 * The seam between authentication and authorization: who is asking, as Kafka's `KafkaPrincipal`
 * string `type:name` (`User:alice`). Authentication (the socket.io handshake middleware, the REST
 * guard) decides the principal once and stores it here; authorization (src/security/authorization)
 * only ever reads it through these helpers, so neither side knows how the other works.
 *
 * - socket.io: `socket.data.principal`, set by the handshake middleware before `connection`.
 * - REST: `request.principal` on the Express request, set by the authentication middleware before
 *   any guard runs (authorization is one global guard, src/security/authorization/acl.guard.ts).
 *   Forwarded group requests (src/http/coordinator-forwarding.middleware.ts) are authorized where
 *   they land, so the forwarding node passes the caller's principal along and the landing node
 *   trusts it only from a peer that proved the cluster secret.
 * - Without authentication configured nothing sets it and the principal is `User:ANONYMOUS`, as on
 *   Kafka's PLAINTEXT listeners. Authorization is enforced only when authentication is configured
 *   (`CohortConfig.authenticationEnabled`): with every client anonymous an ACL could not tell them
 *   apart, and protected mode (loopback only) is what guards that default.
 * - Refusals of either side are one line each through src/security/audit-logger.ts; the Kafka codes
 *   (29, 30, 31, 58, 89) are in `ErrorCode` with their HTTP statuses in src/http/http-status-of.ts.
 */
export const ANONYMOUS_PRINCIPAL = 'User:ANONYMOUS';

/** What authentication leaves on a socket's `data` (besides the client id and host of connection-auth). */
export interface PrincipalData {
  principal?: string;
}

/** The Express request as authentication leaves it. */
export interface PrincipalRequest {
  principal?: string;
  ip?: string;
  socket?: { remoteAddress?: string };
}

export function principalOfSocket(socket: Pick<Socket, 'data'>): string {
  const principal = (socket.data as PrincipalData | undefined)?.principal;
  return typeof principal === 'string' && principal !== '' ? principal : ANONYMOUS_PRINCIPAL;
}

export function principalOfRequest(request: PrincipalRequest): string {
  return typeof request.principal === 'string' && request.principal !== '' ? request.principal : ANONYMOUS_PRINCIPAL;
}

/**
 * The client address an ACL's host and the audit line name (Kafka: the connection's IP string),
 * written one way (canonicalHost: a dual-stack listener's `::ffff:` prefix taken off, IPv6 compressed)
 * so that an ACL host matches however either side spells the address.
 */
export function hostOfSocket(socket: Pick<Socket, 'handshake'>): string {
  return plainAddress(socket.handshake.address);
}

export function hostOfRequest(request: PrincipalRequest): string {
  return plainAddress(request.ip ?? request.socket?.remoteAddress);
}

function plainAddress(address: string | undefined): string {
  return address ? canonicalHost(address) : '';
}
