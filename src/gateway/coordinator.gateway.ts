import { Inject, UseFilters, UsePipes } from '@nestjs/common';
import {
  ConnectedSocket,
  MessageBody,
  type OnGatewayConnection,
  type OnGatewayDisconnect,
  type OnGatewayInit,
  SubscribeMessage,
  WebSocketGateway,
} from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import type { RequestContext } from '@cohort/coordinator';
import * as P from '@cohort/protocol';
import { RequestEvent } from '@cohort/protocol';
import { KafkaValidationPipe } from '../common/kafka-validation.pipe';
import { CohortMetrics } from '../metrics/cohort-metrics';
import { measureAcks } from '../metrics/socket-ack-metrics';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { findCoordinator } from '../node/find-coordinator';
import { metadataAnswer } from '../node/metadata-answer';
import { authenticateConnection, type ConnectionData } from './connection-auth';
import { guardRequests } from './request-guard';
import { DeleteGroupsDto } from './dto/delete-groups.dto';
import { DescribeGroupsDto } from './dto/describe-groups.dto';
import { FindCoordinatorDto } from './dto/find-coordinator.dto';
import { HeartbeatDto } from './dto/heartbeat.dto';
import { JoinGroupDto } from './dto/join-group.dto';
import { LeaveGroupDto } from './dto/leave-group.dto';
import { ListGroupsDto } from './dto/list-groups.dto';
import { MetadataDto } from './dto/metadata.dto';
import { OffsetCommitDto } from './dto/offset-commit.dto';
import { OffsetDeleteDto } from './dto/offset-delete.dto';
import { OffsetFetchDto } from './dto/offset-fetch.dto';
import { SyncGroupDto } from './dto/sync-group.dto';
import { GatewayAuthorization } from './authorization/gateway-authorization';
import type { CohortServer, CohortSocket } from './cohort-socket';
import { LeanEvents } from './lean/lean-events';
import { PacketFastLane } from './lean/packet-fast-lane';
import { SocketOutputLimits } from './output/socket-output-limits';
import { SocketPushSink } from './socket-push-sink';
import { WsAckExceptionFilter } from './ws-ack-exception.filter';

/**
 * docs/protocol.md over socket.io: one event per Kafka API, answered on its acknowledgement. Translation only:
 * validated payload + connection → coordinator call → response. Every protocol rule lives in the
 * coordinator; every failure becomes an ack through WsAckExceptionFilter, never a disconnect.
 * Heartbeat, OffsetCommit and OffsetFetch, the requests a consumer sends most, and JoinGroup and
 * SyncGroup (every member sends them at once in a rebalance; the leader's SyncGroup carries every
 * member's assignment), are bound per socket without Nest's pipeline
 * (lean/lean-events.ts) with the same validation, ACL checks and answers.
 * (Options such as maxHttpBufferSize come from CohortIoAdapter, which reads the config.)
 */
@WebSocketGateway()
@UseFilters(WsAckExceptionFilter)
@UsePipes(KafkaValidationPipe)
export class CoordinatorGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect {
  constructor(
    @Inject(COHORT_NODE) private readonly node: CohortNode,
    private readonly pushSink: SocketPushSink,
    private readonly metrics: CohortMetrics,
    private readonly acl: GatewayAuthorization,
    private readonly outputLimits: SocketOutputLimits,
  ) {}

  private readonly lean = new LeanEvents();

  afterInit(server: CohortServer): void {
    server.use(authenticateConnection);
    this.pushSink.attach(server);
  }

  handleConnection(socket: CohortSocket): void {
    this.metrics.connectionOpened();
    socket.use(measureAcks(this.metrics));
    socket.use(guardRequests);
    const plain = socket as unknown as Socket;
    const lane = PacketFastLane.of(plain, this.pushSink.pacer, this.outputLimits.of(plain.conn));
    this.lean.bind(
      plain,
      RequestEvent.Heartbeat,
      { dto: HeartbeatDto, handle: (request, s) => this.heartbeat(request, s) },
      lane,
    );
    this.lean.bind(
      plain,
      RequestEvent.OffsetCommit,
      { dto: OffsetCommitDto, handle: (request, s) => this.offsetCommit(request, s) },
      lane,
    );
    this.lean.bind(
      plain,
      RequestEvent.OffsetFetch,
      { dto: OffsetFetchDto, handle: (request, s) => this.offsetFetch(request, s) },
      lane,
    );
    this.lean.bind(
      plain,
      RequestEvent.JoinGroup,
      { dto: JoinGroupDto, handle: (request, s) => this.joinGroup(request, s) },
      lane,
    );
    this.lean.bind(
      plain,
      RequestEvent.SyncGroup,
      { dto: SyncGroupDto, handle: (request, s) => this.syncGroup(request, s) },
      lane,
    );
  }

  /** Binds members to their socket: dynamic members of a closed socket leave after MEMBER_DISCONNECT_GRACE_MS. */
  handleDisconnect(socket: CohortSocket): void {
    this.metrics.connectionClosed();
    this.node.coordinator.connectionClosed(socket.id);
  }

  @SubscribeMessage(RequestEvent.FindCoordinator)
  findCoordinator(
    @MessageBody() request: FindCoordinatorDto,
    @ConnectedSocket() socket: Socket,
  ): P.FindCoordinatorResponse {
    this.acl.requireGroup(socket, 'FindCoordinator', request.key);
    return findCoordinator(this.node, request.key);
  }

  @SubscribeMessage(RequestEvent.Metadata)
  metadata(@MessageBody() request: MetadataDto, @ConnectedSocket() socket: Socket): P.MetadataResponse {
    const { names, refused } = this.acl.metadataTopics(socket, request.topics, () =>
      this.node.topics.list().map((topic) => topic.name),
    );
    return metadataAnswer(this.node, names, refused);
  }

  /** Bound in handleConnection (lean path), not by @SubscribeMessage: every member sends it twice per rebalance. */
  joinGroup(request: P.JoinGroupRequest, socket: Socket): Promise<P.JoinGroupResponse> {
    return this.acl.joinGroup(socket, request, () =>
      this.node.coordinator.joinGroup(request, {
        ...contextOf(socket),
        principal: this.acl.membershipPrincipal(socket),
      }),
    );
  }

  /** Bound in handleConnection (lean path), not by @SubscribeMessage: the leader's carries every member's assignment. */
  syncGroup(request: P.SyncGroupRequest, socket: Socket): Promise<P.SyncGroupResponse> {
    this.acl.requireGroup(socket, 'SyncGroup', request.groupId);
    return this.node.coordinator.syncGroup(request, contextOf(socket));
  }

  /** Bound in handleConnection (lean path), not by @SubscribeMessage. */
  heartbeat(request: P.HeartbeatRequest, socket: Socket): Promise<P.HeartbeatResponse> {
    this.acl.requireGroup(socket, 'Heartbeat', request.groupId);
    return this.node.coordinator.heartbeat(request, contextOf(socket));
  }

  @SubscribeMessage(RequestEvent.LeaveGroup)
  leaveGroup(@MessageBody() request: LeaveGroupDto, @ConnectedSocket() socket: Socket): Promise<P.LeaveGroupResponse> {
    this.acl.requireGroup(socket, 'LeaveGroup', request.groupId);
    return this.node.coordinator.leaveGroup(request, contextOf(socket));
  }

  /** Bound in handleConnection (lean path), not by @SubscribeMessage. */
  offsetCommit(request: P.OffsetCommitRequest, socket: Socket): Promise<P.OffsetCommitResponse> {
    return this.acl.offsetCommit(socket, request, (allowed) =>
      this.node.coordinator.offsetCommit(allowed, contextOf(socket)),
    );
  }

  /** Bound in handleConnection (lean path), not by @SubscribeMessage. */
  offsetFetch(request: P.OffsetFetchRequest, socket: Socket): Promise<P.OffsetFetchResponse> {
    return this.acl.offsetFetch(socket, request, (allowed) => this.node.coordinator.offsetFetch(allowed));
  }

  @SubscribeMessage(RequestEvent.OffsetDelete)
  offsetDelete(
    @MessageBody() request: OffsetDeleteDto,
    @ConnectedSocket() socket: Socket,
  ): Promise<P.OffsetDeleteResponse> {
    return this.acl.offsetDelete(socket, request, (allowed) => this.node.coordinator.offsetDelete(allowed));
  }

  @SubscribeMessage(RequestEvent.DescribeGroups)
  describeGroups(
    @MessageBody() request: DescribeGroupsDto,
    @ConnectedSocket() socket: Socket,
  ): Promise<P.DescribeGroupsResponse> {
    return this.acl.describeGroups(socket, request, (allowed) => this.node.coordinator.describeGroups(allowed));
  }

  @SubscribeMessage(RequestEvent.ListGroups)
  listGroups(@MessageBody() request: ListGroupsDto, @ConnectedSocket() socket: Socket): Promise<P.ListGroupsResponse> {
    return this.acl.listGroups(socket, () => this.node.coordinator.listGroups(request));
  }

  @SubscribeMessage(RequestEvent.DeleteGroups)
  deleteGroups(
    @MessageBody() request: DeleteGroupsDto,
    @ConnectedSocket() socket: Socket,
  ): Promise<P.DeleteGroupsResponse> {
    return this.acl.deleteGroups(socket, request, (allowed) => this.node.coordinator.deleteGroups(allowed));
  }
}

function contextOf(socket: Socket): RequestContext {
  const data = socket.data as ConnectionData;
  return { clientId: data.clientId, clientHost: data.clientHost, connectionId: socket.id };
}
