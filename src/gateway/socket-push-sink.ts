import { Injectable } from '@nestjs/common';
import type { PushSink } from '@cohort/coordinator';
import {
  type CoordinatorMovedPush,
  type HeartbeatNowPush,
  PushEvent,
  type RebalanceInProgressPush,
} from '@cohort/protocol';
import type { CohortServer } from './cohort-socket';
import { engineConnectionOf, eventPacket, writeEncodedPacket } from './socket-io-internals';
import { WritePacer } from './write-pacer';

/**
 * The coordinator's PushSink over socket.io: members are addressed by the connection they last used,
 * and every socket is in the room named after its id, so a push is one emit to those rooms (a
 * HeartbeatNow, always to one member, is written on its socket's connection instead). Pushes
 * before the gateway is up, or to sockets that have gone, are dropped: a member that misses one still
 * learns of the rebalance from its next heartbeat (REBALANCE_IN_PROGRESS), as in Kafka.
 *
 * Pushes go out through `pacer`, which every acknowledgement of the gateway shares, so a burst (a push
 * to 10,000 members) is spread over event-loop turns in slices and keeps its place behind the answers
 * already due.
 */
@Injectable()
export class SocketPushSink implements PushSink {
  readonly pacer = new WritePacer();
  private server: CohortServer | null = null;

  attach(server: CohortServer): void {
    this.server = server;
  }

  rebalanceInProgress(connectionIds: string[], push: RebalanceInProgressPush): void {
    this.emit(connectionIds, (server, rooms) => server.to(rooms).emit(PushEvent.RebalanceInProgress, push));
  }

  coordinatorMoved(connectionIds: string[], push: CoordinatorMovedPush): void {
    this.emit(connectionIds, (server, rooms) => server.to(rooms).emit(PushEvent.CoordinatorMoved, push));
  }

  /**
   * One member's push, written on its socket's connection as its acknowledgements are (one pre-encoded
   * frame) instead of broadcast to its socket's room: socket.io's broadcast (an operator, a set of
   * rooms, its encoder and frame) cost about as much again as the write, and a group forming pushes
   * thousands of members one by one. A socket gone by its turn gets nothing, as a room without it would.
   */
  heartbeatNow(connectionId: string, push: HeartbeatNowPush): void {
    const server = this.server;
    if (!server) return;
    this.pacer.write(1, () => {
      const socket = server.sockets.sockets.get(connectionId);
      if (socket !== undefined)
        writeEncodedPacket(engineConnectionOf(socket), eventPacket(PushEvent.HeartbeatNow, push));
    });
  }

  /** One emit per slice of at most a turn's writes, each weighed by its sockets. */
  private emit(connectionIds: string[], send: (server: CohortServer, rooms: string[]) => void): void {
    const server = this.server;
    if (!server) return;
    const slice = this.pacer.perTurn;
    for (let start = 0; start < connectionIds.length; start += slice) {
      const rooms = connectionIds.length <= slice ? connectionIds : connectionIds.slice(start, start + slice);
      this.pacer.write(rooms.length, () => send(server, rooms));
    }
  }
}
