import type { Socket } from 'socket.io';
import * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { AuthorizationService } from '../../security/authorization/authorization.service';
import { callerOfSocket } from '../../security/authorization/caller-of';
import { mergeByGroup, refusal } from './partial-responses';
import { requireGroup, splitGroups } from './group-access';

/**
 * The ACL checks of the share group membership requests (KIP-932), made before the coordinator is
 * called as Kafka's KafkaApis makes them (`handleShareGroupHeartbeat`, `handleShareGroupDescribe`).
 * With authorization off every method is a straight call.
 */
export class ShareGroupAuthorization {
  constructor(private readonly authorization: AuthorizationService) {}

  /** ShareGroupHeartbeat: READ GROUP (30), and DESCRIBE TOPIC on every subscribed topic name (29 naming the refused ones). */
  heartbeat(socket: Socket, request: P.ShareGroupHeartbeatRequest): void {
    requireGroup(this.authorization, socket, 'ShareGroupHeartbeat', request.groupId);
    if (!this.authorization.enabled) return;
    const names = request.subscribedTopicNames;
    if (!names || names.length === 0) return;
    const caller = callerOfSocket(socket);
    const refused = this.authorization.refusedOf(caller, 'DESCRIBE', 'TOPIC', names, 'ShareGroupHeartbeat');
    if (refused.size > 0)
      throw refusal(
        'ShareGroupHeartbeat',
        ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        `The client is not authorized to describe topics: ${[...refused].sort().join(', ')}.`,
      );
  }

  /**
   * ShareGroupDescribe: DESCRIBE GROUP per group (30), and a group whose members show a topic the caller
   * may not DESCRIBE (subscribed or assigned) is answered 29 without its members.
   */
  async describe(
    socket: Socket,
    request: P.ShareGroupDescribeRequest,
    describe: (allowed: P.ShareGroupDescribeRequest) => Promise<P.ShareGroupDescribeResponse>,
  ): Promise<P.ShareGroupDescribeResponse> {
    if (!this.authorization.enabled) return describe(request);
    const caller = callerOfSocket(socket);
    const [allowed, refused] = splitGroups(
      this.authorization,
      caller,
      'DESCRIBE',
      request.groupIds,
      'ShareGroupDescribe',
    );
    const answered =
      allowed.length > 0 ? await describe({ groupIds: allowed }) : { errorCode: ErrorCode.NONE, groups: [] };
    const groups = answered.groups.map((group) => {
      const topics = new Set(
        group.members.flatMap((m) => [
          ...m.subscribedTopicNames,
          ...m.assignment.topicPartitions.map((tp) => tp.topic),
        ]),
      );
      if (topics.size === 0) return group;
      const hidden = this.authorization.refusedOf(caller, 'DESCRIBE', 'TOPIC', [...topics], 'ShareGroupDescribe');
      return hidden.size === 0 ? group : refusedShareGroup(group.groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    });
    return {
      ...answered,
      groups: mergeByGroup(
        request.groupIds,
        groups,
        refused.map((groupId) => refusedShareGroup(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED)),
      ),
    };
  }
}

function refusedShareGroup(groupId: string, errorCode: number): P.DescribedShareGroup {
  return {
    errorCode,
    errorName: P.errorName(errorCode),
    errorMessage:
      errorCode === ErrorCode.TOPIC_AUTHORIZATION_FAILED
        ? 'The group has described topic(s) that the client is not authorized to describe.'
        : undefined,
    groupId,
    groupState: '',
    groupEpoch: -1,
    assignmentEpoch: -1,
    assignorName: '',
    members: [],
  };
}
