import type { Socket } from 'socket.io';
import { ErrorCode } from '@cohort/protocol';
import type { AuthorizationService } from '../../security/authorization/authorization.service';
import { callerOfSocket } from '../../security/authorization/caller-of';
import { mergeByGroup, refusal } from './partial-responses';
import { requireGroup, splitGroups } from './group-access';

/**
 * The checks Kafka 4's KafkaApis makes on the heartbeat and describe requests of the KIP-848 style
 * groups (consumer and share), which differ only in their types and in which topics a member shows.
 */

/** The heartbeat: READ GROUP (30), and DESCRIBE TOPIC on every subscribed topic name (29 naming the refused ones). */
export function requireHeartbeatAccess(
  authorization: AuthorizationService,
  socket: Socket,
  request: 'ConsumerGroupHeartbeat' | 'ShareGroupHeartbeat',
  groupId: string,
  subscribedTopicNames: readonly string[] | null | undefined,
): void {
  requireGroup(authorization, socket, request, groupId);
  if (!authorization.enabled || !subscribedTopicNames || subscribedTopicNames.length === 0) return;
  const caller = callerOfSocket(socket);
  const refused = authorization.refusedOf(caller, 'DESCRIBE', 'TOPIC', subscribedTopicNames, request);
  if (refused.size > 0)
    throw refusal(
      request,
      ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      `The client is not authorized to describe topics: ${[...refused].sort().join(', ')}.`,
    );
}

/** How one group type's describe answers, for `describeWithAccess`. */
export interface DescribedGroups<G extends { groupId: string }> {
  request: 'ConsumerGroupDescribe' | 'ShareGroupDescribe';
  /** The topics a described group shows (its members' subscriptions and assignments). */
  topicsOf: (group: G) => Iterable<string>;
  /** The group answered with `errorCode` and nothing else. */
  refused: (groupId: string, errorCode: number) => G;
}

/**
 * The describe: DESCRIBE GROUP per group (30), and a group that shows a topic the caller may not
 * DESCRIBE is answered 29 without its members, as Kafka 4 does.
 */
export async function describeWithAccess<G extends { groupId: string }>(
  authorization: AuthorizationService,
  socket: Socket,
  groupIds: string[],
  kind: DescribedGroups<G>,
  describe: (allowed: string[]) => Promise<{ errorCode: number; groups: G[] }>,
): Promise<{ errorCode: number; groups: G[] }> {
  if (!authorization.enabled) return describe(groupIds);
  const caller = callerOfSocket(socket);
  const [allowed, refused] = splitGroups(authorization, caller, 'DESCRIBE', groupIds, kind.request);
  const answered = allowed.length > 0 ? await describe(allowed) : { errorCode: ErrorCode.NONE, groups: [] };
  const groups = answered.groups.map((group) => {
    const topics = new Set(kind.topicsOf(group));
    if (topics.size === 0) return group;
    const hidden = authorization.refusedOf(caller, 'DESCRIBE', 'TOPIC', [...topics], kind.request);
    return hidden.size === 0 ? group : kind.refused(group.groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
  });
  return {
    ...answered,
    groups: mergeByGroup(
      groupIds,
      groups,
      refused.map((groupId) => kind.refused(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED)),
    ),
  };
}

/** Kafka's message for a described group hidden by topic ACLs. */
export function refusedGroupMessage(errorCode: number): string | undefined {
  return errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED
    ? 'The group has described topic(s) that the client is not authorized to describe.'
    : undefined;
}
