import type { HeartbeatRequest, HeartbeatResponse } from '@cohort/protocol';
import { ErrorCode, type ErrorCodeValue, KafkaError } from '@cohort/protocol';
import type { RequestContext } from '../ports/group-coordinator.api';
import { errorFields } from '../responses/error-fields';
import type { ClassicGroupManager } from '../rebalance/classic-group-manager';
import type { CoordinatorResult } from '../runtime/coordinator-result';
import { answer } from '../runtime/coordinator-result';
import { validateCurrentMember } from './member-validation';

/**
 * Kafka's `handleHeartbeat`: keeps the session alive; REBALANCE_IN_PROGRESS tells the member to rejoin.
 * The result writes nothing; it carries the re-armed session timer. A heartbeat that cannot be taken
 * (unknown member, wrong generation, dead group) throws its KafkaError, as Kafka 4's classic heartbeat does.
 */
export function handleHeartbeat(
  classic: ClassicGroupManager,
  request: HeartbeatRequest,
  context: RequestContext,
): CoordinatorResult<HeartbeatResponse> {
  return classic.finish(answer(heartbeat(classic, request, context)));
}

function heartbeat(
  classic: ClassicGroupManager,
  request: HeartbeatRequest,
  context: RequestContext,
): HeartbeatResponse {
  const group = classic.groups.get(request.groupId);
  if (!group) throw KafkaError.of('UNKNOWN_MEMBER_ID', `group ${request.groupId} does not exist`);
  if (group.is('Dead')) throw KafkaError.of('COORDINATOR_NOT_AVAILABLE');
  const memberError = validateCurrentMember(group, request.memberId, request.groupInstanceId);
  if (memberError !== ErrorCode.NONE) throw new KafkaError(memberError as ErrorCodeValue);
  // A known member's request binds it to this connection, whatever the answer (pushes follow it).
  const member = group.get(request.memberId)!;
  classic.connections.bind(group, member, context.connectionId);
  if (request.generationId !== group.generationId) {
    throw KafkaError.of(
      'ILLEGAL_GENERATION',
      `generation ${request.generationId} is not the group's ${group.generationId}`,
    );
  }
  switch (group.state) {
    case 'Empty':
      throw KafkaError.of('UNKNOWN_MEMBER_ID');
    case 'PreparingRebalance':
      classic.liveness.heartbeat(group, member);
      return errorFields(ErrorCode.REBALANCE_IN_PROGRESS);
    default:
      // CompletingRebalance (members may heartbeat right after their JoinGroup reply) and Stable.
      classic.liveness.heartbeat(group, member);
      return errorFields(ErrorCode.NONE);
  }
}
