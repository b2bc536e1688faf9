import type { Socket } from 'socket.io';
import {
  hostOfRequest,
  hostOfSocket,
  principalOfRequest,
  principalOfSocket,
  type PrincipalRequest,
} from '../principal';
import type { Caller } from './authorization.service';

export function callerOfRequest(request: PrincipalRequest): Caller {
  return { principal: principalOfRequest(request), host: hostOfRequest(request) };
}

/** A socket's caller, worked out once: its principal and address are fixed when the handshake is accepted. */
const socketCallers = new WeakMap<object, Caller>();

export function callerOfSocket(socket: Pick<Socket, 'data' | 'handshake'>): Caller {
  let caller = socketCallers.get(socket);
  if (!caller)
    socketCallers.set(socket, (caller = { principal: principalOfSocket(socket), host: hostOfSocket(socket) }));
  return caller;
}

/** `GET /v1/groups/:groupId` for audit lines and messages: the route as declared, not the concrete URL. */
export function routeOf(request: { method?: string; route?: { path?: string }; path?: string }): string {
  return `${request.method ?? ''} ${request.route?.path ?? request.path ?? ''}`;
}
