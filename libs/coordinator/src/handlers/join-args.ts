import type { JoinGroupRequest } from '@cohort/protocol';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { MemberInit } from '../group/member-metadata';

/** A JoinGroup with its defaults applied (rebalance timeout = session timeout when absent, as JoinGroup v0). */
export interface JoinArgs {
  request: JoinGroupRequest;
  context: RequestContext;
  groupInstanceId: string | null;
  rebalanceTimeoutMs: number;
  serverAssignor: string | null;
  protocolNames: string[];
}

export function memberInit(args: JoinArgs, memberId: string): MemberInit {
  const { request, context } = args;
  return {
    memberId,
    groupInstanceId: args.groupInstanceId,
    clientId: context.clientId,
    clientHost: context.clientHost,
    rebalanceTimeoutMs: args.rebalanceTimeoutMs,
    sessionTimeoutMs: request.sessionTimeoutMs,
    protocolType: request.protocolType,
    protocols: request.protocols,
    serverAssignor: args.serverAssignor,
  };
}
