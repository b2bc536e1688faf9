import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness, joinOrders } from '@cohort/coordinator/testing';

/**
 * A burst of joins too big for one turn is answered over several (its first halves and target in the
 * first, the reconciliations after): when the first turn's write fails, every joiner gets the write's
 * error, as a single join does, and nothing of the burst stays in the group. Before, the joiners
 * reconciled after the failure were answered as strangers to the group the failure took them out of.
 */
describe('a burst of joins whose write fails', () => {
  const ctx = { clientId: 'client', clientHost: '/127.0.0.1' };
  let h: CoordinatorHarness;

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 400 }],
      consumerAssignors: [createUniformAssignor()],
    });
    await h.settle();
  });

  const join = (memberId: string): Promise<P.ConsumerGroupHeartbeatResponse> =>
    h.coordinator.consumerGroupHeartbeat(joinOrders(memberId), ctx);
  const burst = (size: number) => Promise.all(Array.from({ length: size }, (_, i) => join(`m${i}`)));
  const errorCodes = (answers: P.ConsumerGroupHeartbeatResponse[]) => [...new Set(answers.map((a) => a.errorCode))];

  it('into a group with members: every joiner gets NOT_COORDINATOR, the group keeps only its member, and the joiners get in on their retry', async () => {
    await join('first');
    h.store.failNextAppend(h.partitionOf('cg'), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'moved'));
    expect(errorCodes(await burst(300))).toEqual([ErrorCode.NOT_COORDINATOR]);
    const described = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    expect(described.groups[0].members.map((m) => m.memberId)).toEqual(['first']);

    const retried = await burst(300);
    expect(errorCodes(retried)).toEqual([ErrorCode.NONE]);
    expect(new Set(retried.map((a) => a.memberEpoch)).size).toBe(1);
  });

  it('that creates the group: every joiner gets NOT_COORDINATOR, no group is left, and the retry forms it', async () => {
    h.store.failNextAppend(h.partitionOf('cg'), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'moved'));
    expect(errorCodes(await burst(300))).toEqual([ErrorCode.NOT_COORDINATOR]);
    const described = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    expect(described.groups[0].errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);

    const retried = await burst(300);
    expect(errorCodes(retried)).toEqual([ErrorCode.NONE]);
    expect(h.shardOf('cg').consumerGroup('cg')?.members.size).toBe(300);
  });
});
