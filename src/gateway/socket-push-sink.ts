import { Injectable } from '@nestjs/common';
import type { PushSink } from '@cohort/coordinator';
import { type CoordinatorMovedPush, PushEvent, type RebalanceInProgressPush } from '@cohort/protocol';
import type { CohortServer } from './cohort-socket';

/**
 * The coordinator's PushSink over socket.io: members are addressed by the connection they last used,
 * and every socket is in the room named after its id, so a push is one emit to those rooms. Pushes
 * before the gateway is up, or to sockets that have gone, are dropped: a member that misses one still
 * learns of the rebalance from its next heartbeat (REBALANCE_IN_PROGRESS), as in Kafka.
 */
@Injectable()
export class SocketPushSink implements PushSink {
  private server: CohortServer | null = null;

  attach(server: CohortServer): void {
    this.server = server;
  }

  rebalanceInProgress(connectionIds: string[], push: RebalanceInProgressPush): void {
    if (this.server && connectionIds.length > 0) this.server.to(connectionIds).emit(PushEvent.RebalanceInProgress, push);
  }

  coordinatorMoved(connectionIds: string[], push: CoordinatorMovedPush): void {
    if (this.server && connectionIds.length > 0) this.server.to(connectionIds).emit(PushEvent.CoordinatorMoved, push);
  }
}
