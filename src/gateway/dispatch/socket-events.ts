import type { Socket } from 'socket.io';
import type { RequestContext } from '@cohort/coordinator';
import type { RequestEventName, RequestResponseMap } from '@cohort/protocol';
import { findCoordinator } from '../../node/find-coordinator';
import { metadataAnswer } from '../../node/metadata-answer';
import type { CohortNode } from '../../node/cohort-node';
import type { GatewayAuthorization } from '../authorization/gateway-authorization';
import type { ConnectionData } from '../connection-auth';

type RequestOf<E extends RequestEventName> = RequestResponseMap[E][0];
type ResponseOf<E extends RequestEventName> = RequestResponseMap[E][1];

/** What answers one socket event; its contract is its DTO (../dto/socket-request-dtos.ts). */
export interface SocketEvent<E extends RequestEventName> {
  /**
   * The ACL check and the coordinator call, for a request that passed its contract; a throw or a
   * rejection is answered as a Kafka error on the ack (answer-failure.ts).
   */
  handle: (request: RequestOf<E>, socket: Socket) => ResponseOf<E> | Promise<ResponseOf<E>>;
}

/** Every request event of docs/protocol.md, each with exactly one row: a new event fails to compile until it has one. */
export type SocketEventTable = { readonly [E in RequestEventName]: SocketEvent<E> };

/**
 * The socket's one dispatch table, event → ACL check and coordinator call, beside the contracts of
 * ../dto/socket-request-dtos.ts (event → DTO). Translation only: every protocol rule lives in the
 * coordinator, every authorization decision in GatewayAuthorization. socket-dispatch.ts binds each row
 * to every connection, validates against the event's DTO, runs `handle` and answers through the write
 * pacer; adding an event is its DTO and one row here.
 */
export function socketEvents(node: CohortNode, acl: GatewayAuthorization): SocketEventTable {
  const coordinator = node.coordinator;
  return {
    FindCoordinator: {
      handle: (request, socket) => {
        acl.requireGroup(socket, 'FindCoordinator', request.key);
        return findCoordinator(node, request.key);
      },
    },
    Metadata: {
      handle: (request, socket) => {
        const { names, refused } = acl.metadataTopics(socket, request.topics, () =>
          node.topics.list().map((topic) => topic.name),
        );
        return metadataAnswer(node, names, refused);
      },
    },
    JoinGroup: {
      handle: (request, socket) =>
        acl.joinGroup(socket, request, () =>
          // The principal's members count against its limits (MAX_MEMBERS_PER_PRINCIPAL).
          coordinator.joinGroup(request, { ...contextOf(socket), principal: acl.membershipPrincipal(socket) }),
        ),
    },
    SyncGroup: {
      handle: (request, socket) => {
        acl.requireGroup(socket, 'SyncGroup', request.groupId);
        return coordinator.syncGroup(request, contextOf(socket));
      },
    },
    Heartbeat: {
      handle: (request, socket) => {
        acl.requireGroup(socket, 'Heartbeat', request.groupId);
        return coordinator.heartbeat(request, contextOf(socket));
      },
    },
    LeaveGroup: {
      handle: (request, socket) => {
        acl.requireGroup(socket, 'LeaveGroup', request.groupId);
        return coordinator.leaveGroup(request, contextOf(socket));
      },
    },
    OffsetCommit: {
      handle: (request, socket) =>
        acl.offsetCommit(socket, request, (allowed) => coordinator.offsetCommit(allowed, contextOf(socket))),
    },
    OffsetFetch: {
      handle: (request, socket) => acl.offsetFetch(socket, request, (allowed) => coordinator.offsetFetch(allowed)),
    },
    OffsetDelete: {
      handle: (request, socket) => acl.offsetDelete(socket, request, (allowed) => coordinator.offsetDelete(allowed)),
    },
    DescribeGroups: {
      handle: (request, socket) =>
        acl.describeGroups(socket, request, (allowed) => coordinator.describeGroups(allowed)),
    },
    ListGroups: {
      handle: (request, socket) => acl.listGroups(socket, () => coordinator.listGroups(request)),
    },
    DeleteGroups: {
      handle: (request, socket) => acl.deleteGroups(socket, request, (allowed) => coordinator.deleteGroups(allowed)),
    },
    ConsumerGroupHeartbeat: {
      handle: (request, socket) => {
        acl.consumerGroups.heartbeat(socket, request);
        // The caller's ACLs filter what the member's subscribedTopicRegex gives it; its members count
        // against its limits (MAX_MEMBERS_PER_PRINCIPAL), a group its join creates too (MAX_GROUPS_PER_PRINCIPAL).
        // A steady heartbeat, most of them, is charged nothing: it is not asked for its principal.
        const principal = changesMembership(request) ? acl.membershipPrincipal(socket) : undefined;
        const context = contextOf(socket, acl.aclCaller(socket), principal);
        if (request.memberEpoch !== 0 || !acl.limitsGroupCreation)
          return coordinator.consumerGroupHeartbeat(request, context);
        return acl.joiningGroup(socket, 'ConsumerGroupHeartbeat', request, () =>
          coordinator.consumerGroupHeartbeat(request, context),
        );
      },
    },
    ConsumerGroupDescribe: {
      handle: (request, socket) =>
        acl.consumerGroups.describe(socket, request, (allowed) => coordinator.consumerGroupDescribe(allowed)),
    },
    ShareAcquire: {
      handle: (request, socket) =>
        coordinator.shareAcquire(request, contextOf(socket), acl.sharePartitions.acquire(socket, request)),
    },
    ShareAcknowledge: {
      handle: (request, socket) =>
        coordinator.shareAcknowledge(request, contextOf(socket), acl.sharePartitions.acknowledge(socket, request)),
    },
    ShareGroupHeartbeat: {
      handle: (request, socket) => {
        acl.shareGroups.heartbeat(socket, request);
        const principal = changesMembership(request) ? acl.membershipPrincipal(socket) : undefined;
        const context = contextOf(socket, undefined, principal);
        if (request.memberEpoch !== 0 || !acl.limitsGroupCreation)
          return coordinator.shareGroupHeartbeat(request, context);
        return acl.joiningGroup(socket, 'ShareGroupHeartbeat', request, () =>
          coordinator.shareGroupHeartbeat(request, context),
        );
      },
    },
    ShareGroupDescribe: {
      handle: (request, socket) =>
        acl.shareGroups.describe(socket, request, (allowed) => coordinator.shareGroupDescribe(allowed)),
    },
  };
}

/**
 * Whether a consumer or share group heartbeat may change what its member is charged (a join, or a
 * subscription sent): only then does the coordinator count it against its principal's limits.
 */
function changesMembership(request: {
  memberEpoch: number;
  subscribedTopicNames?: readonly string[] | null;
  subscribedTopicRegex?: string | null;
}): boolean {
  return (
    request.memberEpoch === 0 ||
    (request.subscribedTopicNames !== undefined && request.subscribedTopicNames !== null) ||
    (request.subscribedTopicRegex !== undefined && request.subscribedTopicRegex !== null)
  );
}

/**
 * The connection a request came on, as the coordinator records it (client id and host, for DescribeGroups;
 * the connection, for pushes), with the ACLs' caller when the request needs it, and the principal its
 * members count against. Built in one literal:
 * spreading it into another was a slow generic copy on every ConsumerGroupHeartbeat.
 */
function contextOf(socket: Socket, aclCaller?: RequestContext['aclCaller'], principal?: string): RequestContext {
  const data = socket.data as ConnectionData;
  return { clientId: data.clientId, clientHost: data.clientHost, connectionId: socket.id, aclCaller, principal };
}
