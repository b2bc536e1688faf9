import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import type {
  ConsumerAssignorGroupSpec,
  ConsumerGroupAssignorPort,
} from '@cohort/coordinator/ports/consumer-assignor.port';

/** The uniform assignor, counting how often it runs: how many times a group's target was computed. */
export class CountingUniformAssignor implements ConsumerGroupAssignorPort {
  readonly name = 'uniform';
  runs = 0;
  private readonly inner = createUniformAssignor();

  assign(group: ConsumerAssignorGroupSpec, topics: Parameters<ConsumerGroupAssignorPort['assign']>[1]) {
    this.runs++;
    return this.inner.assign(group, topics);
  }
}

/**
 * A consumer-protocol join (epoch 0, no partitions owned, a 60 s rebalance timeout) of `memberId` to
 * group `cg` subscribing to `orders`, the group and topic of the coordinator harness's consumer specs.
 */
export function joinOrders(
  memberId: string,
  more: Partial<P.ConsumerGroupHeartbeatRequest> = {},
): P.ConsumerGroupHeartbeatRequest {
  return {
    groupId: 'cg',
    memberId,
    memberEpoch: 0,
    subscribedTopicNames: ['orders'],
    rebalanceTimeoutMs: 60_000,
    topicPartitions: [],
    ...more,
  };
}
