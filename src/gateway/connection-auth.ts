import type { Socket } from 'socket.io';
import { MAX_ID_LENGTH } from '@cohort/protocol';

/** What a connection carries for the whole of its life (docs/protocol.md `auth: { clientId?, token? }`). */
export interface ConnectionData {
  clientId: string;
  clientHost: string;
}

/**
 * socket.io middleware, run once per connection before any request: takes the client id from the
 * handshake's `auth` (Kafka's client.id, shown by DescribeGroups) and the peer address. A client id
 * that is not a short string refuses the connection with a message, as a request would be refused.
 * Without one, the socket id stands in, so operators can still tell members apart.
 */
export function authenticateConnection(socket: Socket, next: (error?: Error) => void): void {
  const auth: unknown = socket.handshake.auth;
  const clientId = isRecord(auth) ? auth.clientId : undefined;
  if (
    clientId !== undefined &&
    clientId !== null &&
    (typeof clientId !== 'string' || clientId.length > MAX_ID_LENGTH)
  ) {
    next(new Error(`INVALID_REQUEST: auth.clientId must be a string of at most ${MAX_ID_LENGTH} characters`));
    return;
  }
  const data: ConnectionData = {
    clientId: typeof clientId === 'string' && clientId !== '' ? clientId : socket.id,
    clientHost: socket.handshake.address,
  };
  // Beside what the security gate left there (the principal).
  socket.data = { ...(socket.data as object), ...data };
  next();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}
