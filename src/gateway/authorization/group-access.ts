import type { Socket } from 'socket.io';
import type * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import { REQUEST_ACLS } from '@cohort/security';
import type { AuthorizationService, Caller } from '../../security/authorization/authorization.service';
import { callerOfSocket } from '../../security/authorization/caller-of';
import { refusal } from './partial-responses';

/** The socket requests that need one ACL on their group for the whole request. */
export type GroupRequest =
  | 'FindCoordinator'
  | 'JoinGroup'
  | 'SyncGroup'
  | 'Heartbeat'
  | 'LeaveGroup'
  | 'ConsumerGroupHeartbeat'
  | 'ShareAcquire'
  | 'ShareAcknowledge'
  | 'ShareGroupHeartbeat';

/** FindCoordinator (DESCRIBE GROUP) and the member requests (READ GROUP): 30 for the whole request, audited. */
export function requireGroup(
  authorization: AuthorizationService,
  socket: Socket,
  request: GroupRequest,
  groupId: string,
): void {
  if (!authorization.enabled) return;
  const operation = REQUEST_ACLS[request].group;
  const caller = callerOfSocket(socket);
  if (!authorization.check(caller, operation, 'GROUP', groupId, request))
    throw refusal(
      request,
      ErrorCode.GROUP_AUTHORIZATION_FAILED,
      `${caller.principal} may not ${operation} group '${groupId}'`,
    );
}

/** Distinct group ids split into those the caller may `operation` and the others (one audit line). */
export function splitGroups(
  authorization: AuthorizationService,
  caller: Caller,
  operation: P.AclOperation,
  groups: readonly string[],
  request: string,
): [string[], string[]] {
  const refusedIds = authorization.refusedOf(caller, operation, 'GROUP', groups, request);
  const distinct = [...new Set(groups)];
  return [
    distinct.filter((groupId) => !refusedIds.has(groupId)),
    distinct.filter((groupId) => refusedIds.has(groupId)),
  ];
}
