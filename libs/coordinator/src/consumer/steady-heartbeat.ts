import { withAnswerJson } from '@cohort/protocol';
import type { ConsumerGroup } from './consumer-group';
import { type ConsumerGroupMember, isReconciledTo } from './consumer-group-member';
import type { ConsumerGroupManager } from './consumer-group-manager';
import type { MemberSession } from './consumer-member-fencing';
import type {
  ConsumerGroupHeartbeatRequest,
  ConsumerGroupHeartbeatResponse,
  ConsumerRequestContext,
} from './consumer-heartbeat.types';

/**
 * Kafka's `consumerGroupHeartbeat` for a steady heartbeat (`steadyMember`): the member's session
 * restarts and it is answered with its epoch, nothing written. Null, with nothing recorded, when the
 * heartbeat is not steady (or is invalid): it then takes the full path, which gives a steady heartbeat
 * this same answer and session, through a batch (`HeartbeatBatch`) that a steady one does not need.
 */
export function steadyHeartbeat(
  manager: ConsumerGroupManager,
  request: ConsumerGroupHeartbeatRequest,
  context: ConsumerRequestContext,
): ConsumerGroupHeartbeatResponse | null {
  const group = manager.group(request.groupId);
  const member = steadyMember(group, request, context);
  if (group === undefined || member === undefined) return null;
  // Kafka's request checks, once the heartbeat looks steady: any other (a join above all) is checked
  // by the full path, and checking it here too would check it twice.
  try {
    manager.validate(request);
  } catch {
    return null;
  }
  // In the full path's order: the caller first (its ACLs filter the member's regex), then the group epoch's check.
  manager.progress.access?.remember(group.groupId, member.memberId, context.aclCaller);
  if (!manager.progress.subscriptionUnchanged(group, member)) return null;
  const steady = steadyOf(manager, group.groupId, member);
  manager.fencing.restartSession(steady.session);
  return steady.answer;
}

/** What every steady heartbeat of one member object restarts and answers, made once. */
interface Steady {
  manager: ConsumerGroupManager;
  groupId: string;
  /**
   * Its session timer (`ConsumerMemberFencing.session`): the key and the expiry are the same every
   * interval, and building the key's string and hashing it anew on each heartbeat was most of what
   * restarting the session cost.
   */
  session: MemberSession;
  /** The full path's answer to it (`steadyAnswer`). */
  answer: ConsumerGroupHeartbeatResponse;
}

/**
 * The member's Steady, kept while it heartbeats: a member changed by a record is a new object and gets
 * a new one, as does one told another interval.
 */
function steadyOf(manager: ConsumerGroupManager, groupId: string, member: ConsumerGroupMember): Steady {
  const interval = manager.config.heartbeatIntervalMs;
  const kept = steadies.get(member);
  if (
    kept !== undefined &&
    kept.manager === manager &&
    kept.groupId === groupId &&
    kept.answer.memberEpoch === member.memberEpoch &&
    kept.answer.memberId === member.memberId &&
    kept.answer.heartbeatIntervalMs === interval
  )
    return kept;
  const steady = {
    manager,
    groupId,
    session: manager.fencing.session(groupId, member.memberId),
    answer: steadyAnswer(member, interval),
  };
  steadies.set(member, steady);
  return steady;
}

/** Each member's Steady, gone with the member object (a member replaced, removed or unloaded). */
const steadies = new WeakMap<ConsumerGroupMember, Steady>();

/**
 * The member a steady heartbeat is from, or undefined when the heartbeat must take the full path. A
 * heartbeat is steady (Kafka's consumer sends one every interval once it holds its assignment) when it
 * carries only the group, the member id, its current epoch, its instance id and perhaps the partitions
 * it owns (`carriesAField`), comes from the client id and host the member already has, and finds the
 * member stable at the group's target epoch with no new target due. The full path then writes nothing, computes no target and reconciles nothing: its
 * only effects are the session timer and the answer, which `steadyAnswer` gives. Anything else (a join,
 * a leave, a field carried, an epoch that is not the member's, a member still reconciling, a group
 * whose epoch moved) is left to the full path, which also words every error; the request's own checks
 * (`throwIfHeartbeatRequestIsInvalid`) are the caller's, run once this has found the member (it only
 * compares the request with the group, so an invalid request finds none or fails them after).
 */
export function steadyMember(
  group: ConsumerGroup | undefined,
  request: ConsumerGroupHeartbeatRequest,
  context: ConsumerRequestContext,
): ConsumerGroupMember | undefined {
  if (group === undefined || request.memberEpoch <= 0 || carriesAField(request)) return undefined;
  const { instanceId } = request;
  const member =
    instanceId === undefined || instanceId === null ? group.member(request.memberId) : group.staticMember(instanceId);
  if (
    member === undefined ||
    member.memberId !== request.memberId ||
    member.memberEpoch !== request.memberEpoch ||
    member.clientId !== context.clientId ||
    member.clientHost !== context.clientHost ||
    group.groupEpoch !== group.assignmentEpoch ||
    !isReconciledTo(member, group.assignmentEpoch)
  )
    return undefined;
  // A static member is its instance's member (a replaced one would be the full path's to fence).
  if (member.instanceId !== null && group.staticMemberId(member.instanceId) !== member.memberId) return undefined;
  return member;
}

/**
 * Any field besides the group, member id, epoch, instance id and owned partitions: a heartbeat that may
 * change something. The partitions a member says it owns are read only while it reconciles (revoking, or
 * behind its target) or answers at its previous epoch, never by a stable member at its epoch, which is all
 * `steadyMember` takes: the consumer sends them with the heartbeat after each new assignment, and that
 * heartbeat is steady.
 */
function carriesAField(request: ConsumerGroupHeartbeatRequest): boolean {
  return (
    request.rackId != null ||
    (request.rebalanceTimeoutMs != null && request.rebalanceTimeoutMs !== -1) ||
    request.subscribedTopicNames != null ||
    request.subscribedTopicRegex != null ||
    request.serverAssignor != null
  );
}

/**
 * The full path's answer to a steady heartbeat (`heartbeatAnswer` of a member that did not change): no
 * assignment. A member heartbeats every interval with nothing changed, so its answer is made once (kept
 * in its Steady), with its JSON (`withAnswerJson`: the socket writes that text instead of serializing
 * the answer again).
 */
function steadyAnswer(member: ConsumerGroupMember, heartbeatIntervalMs: number): ConsumerGroupHeartbeatResponse {
  return withAnswerJson<ConsumerGroupHeartbeatResponse>({
    errorCode: 0,
    memberId: member.memberId,
    memberEpoch: member.memberEpoch,
    heartbeatIntervalMs,
    assignment: null,
  });
}
