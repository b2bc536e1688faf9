import type { ConsumerGroupHeartbeatRequest } from '@cohort/protocol';
import type { PartitionSet } from '../partition-set';
import type { ResolvedConsumerMemberOptions } from './consumer-member-options';

/**
 * Which fields a ConsumerGroupHeartbeat carries (Kafka's ConsumerHeartbeatRequestManager.HeartbeatState
 * and its SentFields): the group, member id, epoch and instance id always; the subscription, rebalance
 * timeout, assignor and rack on a full request (joining, or after an error, a reconnect or a new
 * coordinator) and when they changed; the owned partitions on a full request and whenever they changed
 * since they were last sent — that is how a member acknowledges a reconciliation.
 */
export class HeartbeatFields {
  /** The owned partitions as last sent; null: send everything next time. */
  private sentOwned: string | null = null;

  constructor(private readonly options: ResolvedConsumerMemberOptions) {}

  /** The next request is a full one (Kafka resets the sent fields after any failed heartbeat). */
  reset(): void {
    this.sentOwned = null;
  }

  /**
   * The request for `epoch` with `owned`. `commit()` records what was sent; call it once the request
   * actually goes out, so that a request that never left is sent whole again.
   */
  build(
    memberId: string,
    epoch: number,
    owned: PartitionSet,
  ): { request: ConsumerGroupHeartbeatRequest; commit(): void } {
    const o = this.options;
    const ownedList = owned.toList();
    const ownedKey = JSON.stringify(ownedList);
    const full = this.sentOwned === null || epoch === 0;
    const request: ConsumerGroupHeartbeatRequest = {
      groupId: o.groupId,
      memberId,
      memberEpoch: epoch,
      ...(o.groupInstanceId !== null ? { instanceId: o.groupInstanceId } : {}),
    };
    if (full) {
      // The coordinator treats a request with the timeout, a subscription and the owned partitions as
      // full and answers it with the whole assignment (Kafka's isFullRequest).
      request.rebalanceTimeoutMs = o.rebalanceTimeoutMs;
      if (o.topics !== null) request.subscribedTopicNames = o.topics;
      if (o.topicPattern !== null) request.subscribedTopicRegex = o.topicPattern;
      if (o.serverAssignor !== null) request.serverAssignor = o.serverAssignor;
      if (o.rackId !== null) request.rackId = o.rackId;
    }
    if (full || ownedKey !== this.sentOwned) request.topicPartitions = ownedList;
    return { request, commit: () => (this.sentOwned = ownedKey) };
  }

  /** A leave: epoch -1 (gone), or -2 (a static member away for now, its partitions kept for its session). */
  leave(memberId: string, epoch: -1 | -2): ConsumerGroupHeartbeatRequest {
    const o = this.options;
    return {
      groupId: o.groupId,
      memberId,
      memberEpoch: epoch,
      ...(o.groupInstanceId !== null ? { instanceId: o.groupInstanceId } : {}),
    };
  }
}
