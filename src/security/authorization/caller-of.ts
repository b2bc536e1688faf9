import type { Socket } from 'socket.io';
import { hostOfRequest, hostOfSocket, principalOfRequest, principalOfSocket, type PrincipalRequest } from '../principal';
import type { Caller } from './authorization.service';

export function callerOfRequest(request: PrincipalRequest): Caller {
  return { principal: principalOfRequest(request), host: hostOfRequest(request) };
}

export function callerOfSocket(socket: Pick<Socket, 'data' | 'handshake'>): Caller {
  return { principal: principalOfSocket(socket), host: hostOfSocket(socket) };
}

/** `GET /v1/groups/:groupId` for audit lines and messages: the route as declared, not the concrete URL. */
export function routeOf(request: { method?: string; route?: { path?: string }; path?: string }): string {
  return `${request.method ?? ''} ${request.route?.path ?? request.path ?? ''}`;
}
