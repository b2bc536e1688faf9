import type { Socket } from 'socket.io';
import type * as P from '@cohort/protocol';
import type { AuthorizationService } from '../../security/authorization/authorization.service';
import { callerOfSocket } from '../../security/authorization/caller-of';
import { requireGroup } from './group-access';

/** Whether the caller may read a topic: the coordinator answers 29 for the partitions of the others. */
export type TopicReadable = (topic: string) => boolean;

const EVERY_TOPIC: TopicReadable = () => true;

/**
 * The ACL checks of share groups' data plane (KIP-932): READ GROUP for the whole request (30), and
 * READ TOPIC per topic, decided here and handed to the coordinator, which answers 29 on a refused
 * topic's partitions (leasing none of them, applying none of their acknowledgements) and serves the
 * others. The topics the request names are checked at once (one audit line); a topic first met among
 * the member's assigned partitions is checked when the coordinator asks.
 */
export class ShareAcquireAuthorization {
  constructor(private readonly authorization: AuthorizationService) {}

  acquire(socket: Socket, request: P.ShareAcquireRequest): TopicReadable {
    return this.readable(socket, 'ShareAcquire', request.groupId, request.acknowledgements ?? []);
  }

  acknowledge(socket: Socket, request: P.ShareAcknowledgeRequest): TopicReadable {
    return this.readable(socket, 'ShareAcknowledge', request.groupId, request.acknowledgements);
  }

  private readable(
    socket: Socket,
    request: 'ShareAcquire' | 'ShareAcknowledge',
    groupId: string,
    acknowledgements: readonly P.ShareAcknowledgement[],
  ): TopicReadable {
    requireGroup(this.authorization, socket, request, groupId);
    if (!this.authorization.enabled) return EVERY_TOPIC;
    const caller = callerOfSocket(socket);
    const named = acknowledgements.map((ack) => ack.topic);
    const refused = this.authorization.refusedOf(caller, 'READ', 'TOPIC', named, request);
    const decided = new Map<string, boolean>(named.map((topic) => [topic, !refused.has(topic)]));
    return (topic) => {
      let allowed = decided.get(topic);
      if (allowed === undefined) {
        allowed = this.authorization.check(caller, 'READ', 'TOPIC', topic, request);
        decided.set(topic, allowed);
      }
      return allowed;
    };
  }
}
