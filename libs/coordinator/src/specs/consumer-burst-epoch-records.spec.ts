import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import type { StoredRecord } from '@cohort/replication';
import { CoordinatorHarness, joinOrders } from '@cohort/coordinator/testing';
import { MapConsumerGroupStore, replayConsumerRecord } from '../consumer/consumer-group-replay';
import { decodeConsumerGroupMetadataValue, decodeConsumerRecordKey } from '../consumer/consumer-records';

/**
 * A burst of joins arriving together bumps the group epoch once per join, as Kafka does, but only the
 * last epoch record of the burst's write reaches the log: the others would be replaced by it in the same
 * append. What the log replays to must be what the coordinator shows.
 */
describe('consumer group epoch records of a burst of joins', () => {
  const ctx = { clientId: 'client', clientHost: '/127.0.0.1' };
  let h: CoordinatorHarness;

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 12 }],
      consumerAssignors: [createUniformAssignor()],
    });
    await h.settle();
  });

  const join = (memberId: string): Promise<P.ConsumerGroupHeartbeatResponse> =>
    h.coordinator.consumerGroupHeartbeat(joinOrders(memberId), ctx);

  /** The group epoch records in the log, in order. */
  const epochRecords = (): StoredRecord[] =>
    h.store
      .records(h.partitionOf('cg'))
      .filter((record) => decodeConsumerRecordKey(record.key)?.type === 'consumer-group-metadata');

  /** The group as a fresh load of the log's bytes (no object this process remembers for them) gives it. */
  function replayedFromBytes() {
    const store = new MapConsumerGroupStore();
    for (const record of h.store.records(h.partitionOf('cg'))) {
      const key = decodeConsumerRecordKey(Buffer.from(record.key));
      if (key) replayConsumerRecord(store, key, record.value === null ? null : Buffer.from(record.value));
    }
    return store.get('cg')!;
  }

  it('six members joining together get epoch 6 and six bumps in the history, from one epoch record in the log', async () => {
    const members = ['m1', 'm2', 'm3', 'm4', 'm5', 'm6'];
    const answers = await Promise.all(members.map(join));
    expect(answers.map((a) => [a.errorCode, a.memberEpoch])).toEqual(members.map(() => [0, 6]));

    const live = h.shardOf('cg').consumerGroup('cg')!;
    expect(live.groupEpoch).toBe(6);
    expect(live.history.entries.map((b) => [b.groupEpoch, b.reason, b.memberId])).toEqual(
      members.map((memberId, i) => [i + 1, 'member-joined', memberId]),
    );
    // One epoch record for the six bumps, carrying all six.
    const written = epochRecords();
    expect(written).toHaveLength(1);
    expect(decodeConsumerGroupMetadataValue(Buffer.from(written[0].value!))).toMatchObject({ epoch: 6 });

    const replayed = replayedFromBytes();
    expect(replayed.groupEpoch).toBe(6);
    expect(replayed.assignmentEpoch).toBe(live.assignmentEpoch);
    expect(replayed.history.entries).toEqual(live.history.entries);
    expect([...replayed.members.keys()].sort()).toEqual(members);
  });

  it('a restart after a burst shows the same group, epochs and history, and a later join bumps from there', async () => {
    await Promise.all(['m1', 'm2', 'm3'].map(join));
    const before = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    const history = h.shardOf('cg').consumerGroup('cg')!.history.entries;
    await h.restart();
    expect(await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).toEqual(before);
    expect(h.shardOf('cg').consumerGroup('cg')!.history.entries).toEqual(history);

    expect((await join('m4')).memberEpoch).toBe(4);
    expect(
      h
        .shardOf('cg')
        .consumerGroup('cg')!
        .history.entries.map((b) => b.groupEpoch),
    ).toEqual([1, 2, 3, 4]);
  });

  it('joins arriving one at a time each write their epoch record; a bump its own write closes is written once, closed', async () => {
    for (const memberId of ['m1', 'm2', 'm3']) await join(memberId);
    const bumps = epochRecords().map((r) => {
      const { epoch, history } = decodeConsumerGroupMetadataValue(Buffer.from(r.value!));
      return [epoch, history?.map((b) => [b.groupEpoch, b.completedAt !== null])];
    });
    // The first member alone is Stable at once: its join's write carries the bump closed, not open then closed.
    expect(bumps).toEqual([
      [1, [[1, true]]],
      [
        2,
        [
          [1, true],
          [2, false],
        ],
      ],
      [
        3,
        [
          [1, true],
          [2, false],
          [3, false],
        ],
      ],
    ]);
  });
});
