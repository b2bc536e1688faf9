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
 * The ACL checks of Kafka 4's consumer group requests (KIP-848), made before the coordinator is
 * called as Kafka 4's KafkaApis makes them. With authorization off every method is a straight call.
 */
export class ConsumerGroupAuthorization {
  constructor(private readonly authorization: AuthorizationService) {}

  /**
   * ConsumerGroupHeartbeat: READ GROUP (30), and DESCRIBE TOPIC on every subscribed topic name (29 naming
   * the refused ones), as Kafka 4's KafkaApis checks the heartbeat. A subscribedTopicRegex is not refused:
   * the coordinator gives the member only the matched topics its caller may DESCRIBE (the socket's
   * caller travels with the heartbeat as `aclCaller`).
   */
  heartbeat(socket: Socket, request: P.ConsumerGroupHeartbeatRequest): void {
    requireHeartbeatAccess(
      this.authorization,
      socket,
      'ConsumerGroupHeartbeat',
      request.groupId,
      request.subscribedTopicNames,
    );
  }

  /**
   * ConsumerGroupDescribe: DESCRIBE GROUP per group (30), and a group that shows a topic the caller may
   * not DESCRIBE (subscribed, assigned or targeted) is answered 29 without its members, as Kafka 4 does.
   */
  async describe(
    socket: Socket,
    request: P.ConsumerGroupDescribeRequest,
    describe: (allowed: P.ConsumerGroupDescribeRequest) => Promise<P.ConsumerGroupDescribeResponse>,
  ): Promise<P.ConsumerGroupDescribeResponse> {
    return describeWithAccess(this.authorization, socket, request.groupIds, CONSUMER_GROUPS, (groupIds) =>
      describe({ groupIds }),
    );
  }
}

const CONSUMER_GROUPS: DescribedGroups<P.DescribedConsumerGroup> = {
  request: 'ConsumerGroupDescribe',
  topicsOf: (group) => group.members.flatMap(topicsShownBy),
  refused: refusedConsumerGroup,
};

/** Every topic a described member shows: subscribed, assigned or in its target. */
function topicsShownBy(member: P.DescribedConsumerGroupMember): string[] {
  return [
    ...member.subscribedTopicNames,
    ...member.assignment.topicPartitions.map((tp) => tp.topic),
    ...member.targetAssignment.topicPartitions.map((tp) => tp.topic),
  ];
}

function refusedConsumerGroup(groupId: string, errorCode: number): P.DescribedConsumerGroup {
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
