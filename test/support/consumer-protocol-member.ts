import type { Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { request as emit } from './socket-client';

/**
 * A Kafka 4 consumer group member (KIP-848) driven by hand over a socket, for tests of what operators
 * see of consumer groups: it joins, heartbeats with what it owns, and leaves.
 */
export class ConsumerProtocolMember {
  epoch = 0;
  owned: P.TopicPartitions[] = [];

  constructor(
    readonly socket: Socket,
    readonly groupId: string,
    readonly memberId: string,
  ) {}

  /** Joins (epoch 0) subscribed to `topics`; resolves with the heartbeat's answer. */
  async join(topics: string[]): Promise<P.ConsumerGroupHeartbeatResponse> {
    return this.send({ memberEpoch: 0, subscribedTopicNames: topics, rebalanceTimeoutMs: 30_000, topicPartitions: [] });
  }

  /** One heartbeat with what it owns, taking what the answer gives. */
  heartbeat(): Promise<P.ConsumerGroupHeartbeatResponse> {
    return this.send({ memberEpoch: this.epoch, topicPartitions: this.owned });
  }

  /** Leaves the group (epoch -1). */
  leave(): Promise<P.ConsumerGroupHeartbeatResponse> {
    return this.send({ memberEpoch: -1 });
  }

  partitions(): string[] {
    return this.owned.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`)).sort();
  }

  private async send(fields: Partial<P.ConsumerGroupHeartbeatRequest>): Promise<P.ConsumerGroupHeartbeatResponse> {
    const answer = await emit(this.socket, 'ConsumerGroupHeartbeat', {
      groupId: this.groupId,
      memberId: this.memberId,
      ...fields,
    } as P.ConsumerGroupHeartbeatRequest);
    if (answer.errorCode !== 0)
      throw new Error(`heartbeat of ${this.memberId}: ${answer.errorName ?? answer.errorCode}`);
    this.epoch = answer.memberEpoch;
    if (answer.assignment) this.owned = answer.assignment.topicPartitions;
    return answer;
  }
}

/** Heartbeats each member in turn, as clients would on their interval, a few rounds (enough to settle). */
export async function reconcileAll(members: ConsumerProtocolMember[], rounds = 4): Promise<void> {
  for (let round = 0; round < rounds; round++) for (const m of members) if (m.epoch >= 0) await m.heartbeat();
}
