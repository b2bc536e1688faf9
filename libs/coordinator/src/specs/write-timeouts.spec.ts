import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness, joinOrders, track } from '@cohort/coordinator/testing';

/**
 * A write whose commit is not seen within the commit timeout is answered with an "outcome unknown"
 * error, but its records are in the log and may still commit: the shard keeps what they changed until
 * the log decides, so memory is always what a replay of the log gives, and a later write that commits
 * keeps the state it was computed from.
 */
describe('a write that times out', () => {
  let h: CoordinatorHarness;
  const ctx = { clientId: 'client', clientHost: '/127.0.0.1' };

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
    });
    await h.settle();
  });

  const join = (memberId: string) => h.coordinator.consumerGroupHeartbeat(joinOrders(memberId), ctx);

  const describe = async (): Promise<P.DescribedConsumerGroup> =>
    (await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).groups[0];

  it('is answered COORDINATOR_NOT_AVAILABLE; when it and a later join commit, the later join keeps its state and memory equals a replay of the log', async () => {
    expect((await join('member-a')).errorCode).toBe(0);
    h.store.autoCommit = false;
    const timeoutMs = h.config.offsetsCommitTimeoutMs;
    const b = track(join('member-b'));
    await h.settle();
    await h.advance(timeoutMs / 2);
    // A later batch, computed from the group member-b's join left.
    const c = track(join('member-c'));
    await h.settle();
    await h.advance(timeoutMs / 2);
    expect(b.value.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    expect(c.done).toBe(false);

    h.store.advanceHighWatermark(h.partitionOf('cg'));
    await h.settle();
    expect(c.value.errorCode).toBe(0);
    const live = await describe();
    expect(live.members.map((m) => m.memberId).sort()).toEqual(['member-a', 'member-b', 'member-c']);
    expect(live.groupEpoch).toBe(c.value.memberEpoch);

    await h.restart();
    expect(await describe()).toEqual(live);
  });

  it('that the log then loses is taken back with every write after it, and a reload gives the same group', async () => {
    expect((await join('member-a')).errorCode).toBe(0);
    const committed = await describe();
    h.store.autoCommit = false;
    const b = track(join('member-b'));
    await h.settle();
    await h.advance(h.config.offsetsCommitTimeoutMs);
    expect(b.value.errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    // Still pending: the group keeps member-b while its records may commit.
    const c = track(join('member-c'));
    await h.settle();
    const partition = h.partitionOf('cg');
    h.store.failPendingCommits(partition, new KafkaError(ErrorCode.KAFKA_STORAGE_ERROR));
    await h.settle();
    expect(c.value.errorCode).toBe(ErrorCode.KAFKA_STORAGE_ERROR);
    h.store.truncate(partition, h.store.offsets(partition).highWatermark);
    h.store.autoCommit = true;
    expect(await describe()).toEqual(committed);
    await h.restart();
    expect(await describe()).toEqual(committed);
  });

  it('an offset commit that times out is answered REQUEST_TIMED_OUT and installed once its record commits, as a reload reads it', async () => {
    const a = await join('member-a');
    h.store.autoCommit = false;
    const commit = track(
      h.coordinator.offsetCommit(
        {
          groupId: 'cg',
          generationId: a.memberEpoch,
          memberId: 'member-a',
          topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 42 }] }],
        },
        ctx,
      ),
    );
    await h.settle();
    await h.advance(h.config.offsetsCommitTimeoutMs);
    expect(commit.value.topics[0].partitions[0].errorCode).toBe(ErrorCode.REQUEST_TIMED_OUT);
    h.store.advanceHighWatermark(h.partitionOf('cg'));
    await h.settle();
    const fetch = () => h.fetch('cg', [{ name: 'orders', partitionIndexes: [0] }]);
    const live = await fetch();
    expect(live.topics[0].partitions[0].committedOffset).toBe(42);
    await h.restart();
    expect(await fetch()).toEqual(live);
  });
});
