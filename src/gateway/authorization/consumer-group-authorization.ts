import type { Socket } from 'socket.io';
import * as P from '@cohort/protocol';
import { ErrorCode } from '@cohort/protocol';
import type { AuthorizationService } from '../../security/authorization/authorization.service';
import { callerOfSocket } from '../../security/authorization/caller-of';
import { mergeByGroup, refusal } from './partial-responses';
import { requireGroup, splitGroups } from './group-access';

/**
 * The ACL checks of Kafka 4's consumer group requests (KIP-848), made before the coordinator is
 * called as Kafka 4's KafkaApis makes them. With authorization off every method is a straight call.
 */
export class ConsumerGroupAuthorization {
  constructor(private readonly authorization: AuthorizationService) {}

  /**
   * ConsumerGroupHeartbeat: READ GROUP (30), and DESCRIBE TOPIC on every subscribed topic name (29 naming
   * the refused ones), as Kafka 4's KafkaApis checks the heartbeat. A pattern's matches are filtered by
   * DESCRIBE TOPIC in the coordinator, per member (KAFKA-18813).
   */
  heartbeat(socket: Socket, request: P.ConsumerGroupHeartbeatRequest): void {
    requireGroup(this.authorization, socket, 'ConsumerGroupHeartbeat', request.groupId);
    if (!this.authorization.enabled) return;
    const caller = callerOfSocket(socket);
    // A subscribedTopicRegex is not refused: the coordinator gives the member only the matched topics
    // its caller may DESCRIBE (the socket's caller travels with the heartbeat as `aclCaller`).
    const names = request.subscribedTopicNames;
    if (!names || names.length === 0) return;
    const refused = this.authorization.refusedOf(caller, 'DESCRIBE', 'TOPIC', names, 'ConsumerGroupHeartbeat');
    if (refused.size > 0)
      throw refusal(
        'ConsumerGroupHeartbeat',
        ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        `The client is not authorized to describe topics: ${[...refused].sort().join(', ')}.`,
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
    if (!this.authorization.enabled) return describe(request);
    const caller = callerOfSocket(socket);
    const [allowed, refused] = splitGroups(
      this.authorization,
      caller,
      'DESCRIBE',
      request.groupIds,
      'ConsumerGroupDescribe',
    );
    const answered =
      allowed.length > 0 ? await describe({ groupIds: allowed }) : { errorCode: ErrorCode.NONE, groups: [] };
    const groups = answered.groups.map((group) => {
      const topics = new Set(group.members.flatMap(topicsShownBy));
      if (topics.size === 0) return group;
      const hidden = this.authorization.refusedOf(caller, 'DESCRIBE', 'TOPIC', [...topics], 'ConsumerGroupDescribe');
      return hidden.size === 0 ? group : refusedConsumerGroup(group.groupId, ErrorCode.TOPIC_AUTHORIZATION_FAILED);
    });
    return {
      ...answered,
      groups: mergeByGroup(
        request.groupIds,
        groups,
        refused.map((groupId) => refusedConsumerGroup(groupId, ErrorCode.GROUP_AUTHORIZATION_FAILED)),
      ),
    };
  }
}

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
