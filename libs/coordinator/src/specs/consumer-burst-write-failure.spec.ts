import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness, joinOrders, track } from '@cohort/coordinator/testing';

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

/**
 * A joiner left waiting for partitions another member must revoke has its answer held, in the turn
 * that wrote its reconciliation. When that write fails, the answer must not go out once the partitions
 * come free: the member it describes was never written.
 */
describe('a burst of joins whose answers are held when their write fails', () => {
  const on = (connectionId: string) => ({ clientId: 'client', clientHost: '/127.0.0.1', connectionId });
  const joining = { subscribedTopicNames: ['orders'], rebalanceTimeoutMs: 60_000, topicPartitions: [] };

  it('answers those held joiners with the write error, and every joiner answered without error holds the epoch it was told', async () => {
    const h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 400 }],
      consumerAssignors: [createUniformAssignor()],
      config: { consumerHoldsUnreleasedAnswers: true, groupConsumerHeartbeatIntervalMs: 5000 },
    });
    await h.settle();
    const beat = (memberId: string, more: Partial<P.ConsumerGroupHeartbeatRequest>) =>
      h.coordinator.consumerGroupHeartbeat({ groupId: 'cg', memberId, memberEpoch: 0, ...more }, on(memberId));
    const a = await beat('a', joining);
    const joiners = Array.from({ length: 300 }, (_, i) => track(beat(`m${i}`, joining)));
    // The burst's first turn (first halves, target) reaches the log; the turn reconciling the first of
    // them, each held for what member a holds, is refused.
    const logged = () => h.store.records(h.partitionOf('cg')).length;
    const before = logged();
    while (logged() === before) await new Promise((resolve) => setImmediate(resolve));
    h.store.failNextAppend(h.partitionOf('cg'), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'moved'));
    await h.settle();
    const revoking = await beat('a', { memberEpoch: a.memberEpoch, topicPartitions: a.assignment!.topicPartitions });
    await beat('a', { memberEpoch: revoking.memberEpoch, topicPartitions: revoking.assignment!.topicPartitions });
    await h.advance(2000);

    const group = h.shardOf('cg').consumerGroup('cg')!;
    const answered = joiners.map((joiner, i) => ({ answer: joiner.value, member: group.member(`m${i}`) }));
    expect(joiners.every((joiner) => joiner.done)).toBe(true);
    const refused = answered.filter(({ answer }) => answer.errorCode === ErrorCode.NOT_COORDINATOR);
    expect(refused.length).toBeGreaterThan(0);
    for (const { answer, member } of answered.filter(({ answer }) => answer.errorCode === ErrorCode.NONE))
      expect(member?.memberEpoch).toBe(answer.memberEpoch);
    expect(refused.length + answered.filter(({ answer }) => answer.errorCode === ErrorCode.NONE).length).toBe(300);
  });
});
