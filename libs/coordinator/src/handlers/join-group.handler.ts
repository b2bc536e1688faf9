import type { JoinGroupRequest } from '@cohort/protocol';
import { CONSUMER_PROTOCOL_TYPE, ErrorCode } from '@cohort/protocol';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { ClassicGroup } from '../group/classic-group';
import type { JoinCallback } from '../group/member-metadata';
import { joinError } from '../responses/group-responses';
import { joinSuccess } from '../rebalance/join-result';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { PARKED } from '../runtime/coordinator-result';
import { pendingHolder, protocolBytes, type QuotaHolder } from '../group/member-quotas';
import type { ClassicGroupManager } from '../rebalance/classic-group-manager';
import { acceptJoiningMember, validateCurrentMember } from './member-validation';
import type { JoinArgs } from './join-args';
import { memberInit } from './join-args';
import { joinKnownStaticInstance } from './static-member-join';

/**
 * Kafka's `classicGroupJoin` for a group of this shard. The reply is parked on the member (or given at
 * once through `respond`); the result carries what the join writes (a static member's new id, and what
 * a phase it completes writes) and the timers it schedules or cancels.
 */
export function handleJoinGroup(
  classic: ClassicGroupManager,
  request: JoinGroupRequest,
  context: RequestContext,
  respond: JoinCallback,
): CoordinatorResult<never> {
  return classic.finish(joinGroup(classic, request, context, respond));
}

function joinGroup(
  classic: ClassicGroupManager,
  request: JoinGroupRequest,
  context: RequestContext,
  respond: JoinCallback,
): CoordinatorResult<never> {
  const { config, assignors } = classic.env;
  const memberId = request.memberId;
  if (
    request.sessionTimeoutMs < config.groupMinSessionTimeoutMs ||
    request.sessionTimeoutMs > config.groupMaxSessionTimeoutMs
  ) {
    respond(
      joinError(
        memberId,
        ErrorCode.INVALID_SESSION_TIMEOUT,
        `sessionTimeoutMs ${request.sessionTimeoutMs} is outside [${config.groupMinSessionTimeoutMs}, ${config.groupMaxSessionTimeoutMs}]`,
      ),
    );
    return PARKED;
  }
  const serverAssignor = request.serverAssignor ?? null;
  if (serverAssignor !== null && request.protocolType !== CONSUMER_PROTOCOL_TYPE) {
    respond(
      joinError(memberId, ErrorCode.INVALID_REQUEST, `serverAssignor needs protocolType '${CONSUMER_PROTOCOL_TYPE}'`),
    );
    return PARKED;
  }
  if (serverAssignor !== null && !assignors.get(serverAssignor)) {
    respond(
      joinError(
        memberId,
        ErrorCode.INCONSISTENT_GROUP_PROTOCOL,
        `unknown server assignor '${serverAssignor}'; registered: ${assignors.names().join(', ') || 'none'}`,
      ),
    );
    return PARKED;
  }
  const isUnknownMember = memberId === '';
  let group = classic.groups.get(request.groupId);
  if (!group) {
    // Only a member without id may create a group; a known id for a group that does not exist is stale.
    if (!isUnknownMember) {
      respond(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID, `group ${request.groupId} does not exist`));
      return PARKED;
    }
    group = classic.groups.create(request.groupId);
  }
  const args: JoinArgs = {
    request,
    context,
    groupInstanceId: request.groupInstanceId ?? null,
    rebalanceTimeoutMs: request.rebalanceTimeoutMs ?? request.sessionTimeoutMs,
    serverAssignor,
    protocolNames: request.protocols.map((p) => p.name),
  };
  let result: CoordinatorResult<never> = PARKED;
  if (!acceptJoiningMember(group, memberId, config.groupMaxSize)) {
    classic.membership.drop(group, memberId);
    respond(
      joinError(
        '',
        ErrorCode.GROUP_MAX_SIZE_REACHED,
        `group ${group.groupId} has reached its max size of ${config.groupMaxSize}`,
      ),
    );
  } else if (refusedOverQuota(classic, group, args, respond)) {
    // Nothing was added: the principal holds its limit of members or metadata (docs/security.md).
  } else if (isUnknownMember) {
    result = joinNewMember(classic, group, args, respond);
  } else {
    joinCurrentMember(classic, group, args, respond);
  }
  if (group.is('PreparingRebalance')) classic.joins.checkJoin(group);
  classic.groups.dropIfUnused(group);
  return result;
}

/**
 * MAX_MEMBERS_PER_PRINCIPAL and MAX_MEMBER_METADATA_BYTES_PER_PRINCIPAL, checked before the join adds
 * a member or pending id or changes a member's protocols: over either, the JoinGroup is answered
 * THROTTLING_QUOTA_EXCEEDED (89) and the group is left as it was. A JoinGroup that would be refused
 * anyway (an unknown member id) is left to that refusal.
 */
function refusedOverQuota(
  classic: ClassicGroupManager,
  group: ClassicGroup,
  args: JoinArgs,
  respond: JoinCallback,
): boolean {
  const { quotas, metrics } = classic.env;
  const principal = args.context.principal;
  if (!quotas.counts(principal)) return false;
  const memberId = args.request.memberId;
  let holder: QuotaHolder | undefined;
  let bytes = protocolBytes(args.request.protocols);
  if (memberId === '') {
    const staticId = args.groupInstanceId === null ? undefined : group.staticMemberId(args.groupInstanceId);
    holder = staticId === undefined ? undefined : group.get(staticId);
    // A dynamic member first gets a pending id, which holds no metadata yet.
    if (args.groupInstanceId === null) bytes = 0;
  } else if (group.has(memberId)) {
    holder = group.get(memberId);
  } else if (group.isPendingMember(memberId)) {
    holder = pendingHolder(group.groupId, memberId);
  } else {
    return false;
  }
  const refused = quotas.refusal(principal, holder, bytes);
  if (refused === null) return false;
  metrics.onMemberQuotaRefused?.(refused.limit);
  respond(joinError(memberId, ErrorCode.THROTTLING_QUOTA_EXCEEDED, refused.message));
  return true;
}

function joinReason(args: JoinArgs): string {
  return args.request.reason ?? 'not provided';
}

/** Kafka's `doNewMemberJoinGroup`. */
function joinNewMember(
  classic: ClassicGroupManager,
  group: ClassicGroup,
  args: JoinArgs,
  respond: JoinCallback,
): CoordinatorResult<never> {
  const { request, context } = args;
  if (group.is('Dead')) {
    respond(joinError('', ErrorCode.COORDINATOR_NOT_AVAILABLE));
    return PARKED;
  }
  if (!group.supportsProtocols(request.protocolType, args.protocolNames)) {
    respond(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    return PARKED;
  }
  const newMemberId = classic.membership.generateMemberId(context.clientId, args.groupInstanceId);
  if (args.groupInstanceId !== null) {
    const oldMemberId = group.staticMemberId(args.groupInstanceId);
    if (oldMemberId !== undefined) {
      return joinKnownStaticInstance(classic, group, args, oldMemberId, newMemberId, respond);
    } else {
      classic.membership.addMemberAndRebalance(
        group,
        memberInit(args, newMemberId),
        respond,
        context.connectionId,
        `Adding new member ${newMemberId} with group instance id ${args.groupInstanceId}; client reason: ${joinReason(args)}`,
        context.principal,
      );
    }
    return PARKED;
  }
  // KIP-394: a dynamic member gets its id first and must come back with it within its session timeout.
  classic.membership.addPendingMember(
    group,
    newMemberId,
    request.sessionTimeoutMs,
    context.connectionId,
    context.principal,
  );
  respond(
    joinError(newMemberId, ErrorCode.MEMBER_ID_REQUIRED, 'join again with the memberId of this response (KIP-394)'),
  );
  return PARKED;
}

/** Kafka's `doCurrentMemberJoinGroup`. */
function joinCurrentMember(
  classic: ClassicGroupManager,
  group: ClassicGroup,
  args: JoinArgs,
  respond: JoinCallback,
): void {
  const { request, context } = args;
  const memberId = request.memberId;
  if (group.is('Dead')) {
    respond(joinError(memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    return;
  }
  if (!group.supportsProtocols(request.protocolType, args.protocolNames)) {
    respond(joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    return;
  }
  if (group.isPendingMember(memberId)) {
    if (args.groupInstanceId !== null) {
      respond(
        joinError(
          memberId,
          ErrorCode.INVALID_REQUEST,
          'a KIP-394 pending member id belongs to a dynamic member; drop groupInstanceId',
        ),
      );
      return;
    }
    classic.membership.addMemberAndRebalance(
      group,
      memberInit(args, memberId),
      respond,
      context.connectionId,
      `Adding new member ${memberId} with group instance id null; client reason: ${joinReason(args)}`,
      context.principal,
    );
    return;
  }
  const error = validateCurrentMember(group, memberId, args.groupInstanceId);
  if (error !== ErrorCode.NONE) {
    respond(joinError(memberId, error));
    return;
  }
  const member = group.get(memberId)!;
  classic.connections.bind(group, member, context.connectionId);
  const unchanged = member.matches(request.protocols) && member.serverAssignor === args.serverAssignor;
  const rebalance = (reason: string): void => {
    member.serverAssignor = args.serverAssignor;
    classic.membership.updateMemberAndRebalance(
      group,
      member,
      request.protocols,
      args.rebalanceTimeoutMs,
      request.sessionTimeoutMs,
      respond,
      `${reason}; client reason: ${joinReason(args)}`,
    );
    classic.membership.charge(group, member, context.principal);
  };
  switch (group.state) {
    case 'PreparingRebalance':
      rebalance(`Member ${memberId} joining group during PreparingRebalance`);
      return;
    case 'CompletingRebalance':
      if (!unchanged) rebalance(`Updating metadata for member ${memberId} during CompletingRebalance`);
      // The server-side assignment of this generation is being written: wait for it with the others.
      else if (group.serverAssignor !== null) {
        classic.membership.updateMember(
          group,
          member,
          request.protocols,
          member.rebalanceTimeoutMs,
          member.sessionTimeoutMs,
          respond,
        );
        classic.membership.charge(group, member, context.principal);
      }
      // Same metadata: its JoinGroup reply was probably lost; answer with the current generation again.
      else respond(joinSuccess(group, member, { includeMembers: group.isLeader(memberId) }));
      return;
    case 'Stable':
      // The leader rejoining always rebalances: that is how it reports metadata changes (e.g. new partitions).
      if (group.isLeader(memberId)) rebalance(`Leader ${memberId} re-joining group during Stable`);
      else if (!unchanged) rebalance(`Updating metadata for member ${memberId} during Stable`);
      else respond(joinSuccess(group, member, { includeMembers: false }));
      return;
    case 'Empty':
    case 'Dead':
      respond(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      return;
  }
}
