import { ErrorCode } from '@cohort/protocol';
import type { ClassicGroup } from '../group/classic-group';
import type { JoinCallback } from '../group/member-metadata';
import { joinError } from '../responses/group-responses';
import { joinSuccess } from '../rebalance/join-result';
import type { ClassicGroupManager } from '../rebalance/classic-group-manager';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { PARKED } from '../runtime/coordinator-result';
import { heartbeatKey } from '../timers/shard-timers';
import type { JoinArgs } from './join-args';

/**
 * A known static instance joins without member id (a restart, KIP-345; Kafka's
 * `updateStaticMemberAndRebalance`): the member moves to a new id, the old id is fenced, and in Stable,
 * when the vote would not change, no rebalance happens: the new id is persisted and the member gets the
 * current generation back (the leader with `skipAssignment`, KIP-814). If that write fails, the
 * replacement is undone. The result is that write (its appendFuture answers the JoinGroup), or nothing.
 */
export function joinKnownStaticInstance(
  classic: ClassicGroupManager,
  group: ClassicGroup,
  args: JoinArgs,
  oldMemberId: string,
  newMemberId: string,
  respond: JoinCallback,
): CoordinatorResult<never> {
  const { request, context } = args;
  const instanceId = args.groupInstanceId!;
  const currentLeader = group.leaderId;
  classic.effects.cancel(heartbeatKey(group.groupId, oldMemberId));
  const member = group.replaceStaticMember(instanceId, oldMemberId, newMemberId);
  classic.connections.bind(group, member, context.connectionId);
  classic.liveness.heartbeat(group, member);
  const old = {
    protocols: member.supportedProtocols,
    rebalanceTimeoutMs: member.rebalanceTimeoutMs,
    sessionTimeoutMs: member.sessionTimeoutMs,
    serverAssignor: member.serverAssignor,
  };
  member.serverAssignor = args.serverAssignor;
  classic.membership.updateMember(
    group,
    member,
    request.protocols,
    args.rebalanceTimeoutMs,
    request.sessionTimeoutMs,
    respond,
  );
  classic.membership.charge(group, member, context.principal);
  const reason = `static member ${newMemberId} with instance id ${instanceId} rejoined; client reason: ${request.reason ?? 'not provided'}`;
  switch (group.state) {
    case 'Stable': {
      if (group.protocolName !== group.selectProtocol()) {
        classic.joins.maybePrepareRebalance(group, `Group's selected protocol will change because ${reason}`);
        return PARKED;
      }
      const generationId = group.generationId;
      const assignments = new Map(group.allMembers().map((m) => [m.memberId, m.assignment]));
      return classic.syncs.storeGroup(group, assignments, (error) => {
        if (!classic.groups.owns(group) || group.get(newMemberId) !== member) return;
        if (error !== ErrorCode.NONE) {
          // Undo: the old id stays the member's, as the log still says.
          classic.env.logger.warn(
            `failed to persist the new member id of static member ${instanceId} in group ${group.groupId}: error ${error}`,
          );
          const callback = group.parked.takeJoin(member);
          group.updateMember(member, old.protocols, old.rebalanceTimeoutMs, old.sessionTimeoutMs, null);
          member.serverAssignor = old.serverAssignor;
          classic.effects.cancel(heartbeatKey(group.groupId, newMemberId));
          group.replaceStaticMember(instanceId, newMemberId, oldMemberId);
          classic.liveness.heartbeat(group, member);
          callback?.({
            ...joinError('', error),
            generationId: group.generationId,
            protocolType: group.protocolType,
            protocolName: group.protocolName,
            leader: currentLeader ?? '',
          });
          return;
        }
        // A rebalance that started meanwhile has taken this JoinGroup over; it will answer it.
        if (!group.is('Stable') || group.generationId !== generationId) return;
        const isLeader = group.isLeader(newMemberId);
        const response = joinSuccess(group, member, { includeMembers: isLeader });
        group.parked.completeJoin(member, { ...response, skipAssignment: response.skipAssignment || isLeader });
      });
    }
    case 'CompletingRebalance':
      // The leader may already have assigned under the old id: assign again.
      classic.joins.prepareRebalance(group, `Updating metadata for ${reason}`);
      return PARKED;
    default:
      // PreparingRebalance: the JoinGroup is parked with the others.
      return PARKED;
  }
}
