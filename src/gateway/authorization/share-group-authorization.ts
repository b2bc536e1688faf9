import type { Socket } from 'socket.io';
import * as P from '@cohort/protocol';
import type { AuthorizationService } from '../../security/authorization/authorization.service';
import {
  type DescribedGroups,
  describeWithAccess,
  refusedGroupMessage,
  requireHeartbeatAccess,
} from './group-describe-access';

/**
 * The ACL checks of the share group membership requests (KIP-932), made before the coordinator is
 * called as Kafka's KafkaApis makes them (`handleShareGroupHeartbeat`, `handleShareGroupDescribe`).
 * With authorization off every method is a straight call.
 */
export class ShareGroupAuthorization {
  constructor(private readonly authorization: AuthorizationService) {}

  /** ShareGroupHeartbeat: READ GROUP (30), and DESCRIBE TOPIC on every subscribed topic name (29 naming the refused ones). */
  heartbeat(socket: Socket, request: P.ShareGroupHeartbeatRequest): void {
    requireHeartbeatAccess(
      this.authorization,
      socket,
      'ShareGroupHeartbeat',
      request.groupId,
      request.subscribedTopicNames,
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
    return describeWithAccess(this.authorization, socket, request.groupIds, SHARE_GROUPS, (groupIds) =>
      describe({ groupIds }),
    );
  }
}

const SHARE_GROUPS: DescribedGroups<P.DescribedShareGroup> = {
  request: 'ShareGroupDescribe',
  topicsOf: (group) =>
    group.members.flatMap((m) => [...m.subscribedTopicNames, ...m.assignment.topicPartitions.map((tp) => tp.topic)]),
  refused: refusedShareGroup,
};

function refusedShareGroup(groupId: string, errorCode: number): P.DescribedShareGroup {
  return {
    errorCode,
    errorName: P.errorName(errorCode),
    errorMessage: refusedGroupMessage(errorCode),
    groupId,
    groupState: '',
    groupEpoch: -1,
    assignmentEpoch: -1,
    assignorName: '',
    members: [],
  };
}
