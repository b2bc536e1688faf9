import { Inject } from '@nestjs/common';
import {
  type OnGatewayConnection,
  type OnGatewayDisconnect,
  type OnGatewayInit,
  WebSocketGateway,
} from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import { CohortMetrics } from '../metrics/cohort-metrics';
import { measureAcks } from '../metrics/socket-ack-metrics';
import { COHORT_NODE, type CohortNode } from '../node/cohort-node';
import { GatewayAuthorization } from './authorization/gateway-authorization';
import type { CohortServer, CohortSocket } from './cohort-socket';
import { authenticateConnection } from './connection-auth';
import { SocketDispatch } from './dispatch/socket-dispatch';
import { SOCKET_REQUEST_DTOS } from './dto/socket-request-dtos';
import { socketEvents } from './dispatch/socket-events';
import { SocketOutputLimits } from './output/socket-output-limits';
import { guardRequests } from './request-guard';
import { SocketPushSink } from './socket-push-sink';

/**
 * docs/protocol.md over socket.io: one event per Kafka API, answered on its acknowledgement. The events
 * and what answers them are one table (dispatch/socket-events.ts), bound on every connection by
 * SocketDispatch; this class is the connection's life: the handshake's client id, the socket
 * middlewares (metrics, request guard), and a closed connection reported to the coordinator.
 * (Options such as maxHttpBufferSize come from CohortIoAdapter, which reads the config.)
 */
@WebSocketGateway()
export class CoordinatorGateway implements OnGatewayInit, OnGatewayConnection, OnGatewayDisconnect {
  private readonly dispatch: SocketDispatch;

  constructor(
    @Inject(COHORT_NODE) private readonly node: CohortNode,
    private readonly pushSink: SocketPushSink,
    private readonly metrics: CohortMetrics,
    acl: GatewayAuthorization,
    private readonly outputLimits: SocketOutputLimits,
  ) {
    this.dispatch = new SocketDispatch(socketEvents(node, acl), SOCKET_REQUEST_DTOS);
  }

  afterInit(server: CohortServer): void {
    server.use(authenticateConnection);
    this.pushSink.attach(server);
  }

  handleConnection(socket: CohortSocket): void {
    this.metrics.connectionOpened();
    socket.use(measureAcks(this.metrics));
    socket.use(guardRequests);
    const plain = socket as unknown as Socket;
    this.dispatch.attach(plain, this.pushSink.pacer, this.outputLimits.of(plain.conn));
  }

  /** Binds members to their socket: dynamic members of a closed socket leave after MEMBER_DISCONNECT_GRACE_MS. */
  handleDisconnect(socket: CohortSocket): void {
    this.metrics.connectionClosed();
    this.node.coordinator.connectionClosed(socket.id);
  }
}
