import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';

// Every epoch bump converges once, so the converge-time histogram counts as many as the bumps counter
// (a write that recorded nothing used to share its events with the next write, and both counted them).
describe('consumer group epoch metrics', () => {
  it('count one convergence per epoch bump, however many writes a heartbeat makes', async () => {
    const converged: string[] = [];
    const bumps: string[] = [];
    const h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
      metrics: {
        onConsumerGroupConverged: (groupId, reason) => converged.push(`${groupId} ${reason}`),
        onConsumerEpochBump: (groupId, reason) => bumps.push(`${groupId} ${reason}`),
      },
    });
    await h.settle();
    const ctx = { clientId: 'client', clientHost: '/127.0.0.1' };
    const beat = (request: Partial<P.ConsumerGroupHeartbeatRequest> & { memberId: string; memberEpoch: number }) =>
      h.coordinator.consumerGroupHeartbeat({ groupId: 'cg', ...request }, ctx);
    const join = { subscribedTopicNames: ['orders'], rebalanceTimeoutMs: 60_000, topicPartitions: [] };

    const a = await beat({ memberId: 'member-a', memberEpoch: 0, ...join });
    expect(converged).toEqual(['cg member-joined']);
    const b = await beat({ memberId: 'member-b', memberEpoch: 0, ...join });
    const held = new Map<string, P.TopicPartitions[]>([
      ['member-a', a.assignment!.topicPartitions],
      ['member-b', []],
    ]);
    const epochs = new Map([
      ['member-a', a.memberEpoch],
      ['member-b', b.memberEpoch],
    ]);
    for (let round = 0; round < 4; round++)
      for (const [memberId, memberEpoch] of epochs) {
        const answer = await beat({ memberId, memberEpoch, topicPartitions: held.get(memberId)! });
        epochs.set(memberId, answer.memberEpoch);
        if (answer.assignment) held.set(memberId, answer.assignment.topicPartitions);
      }
    expect(bumps).toEqual(['cg member-joined', 'cg member-joined']);
    expect(converged).toEqual(bumps);
  });
});
