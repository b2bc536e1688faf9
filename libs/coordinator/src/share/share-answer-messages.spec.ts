import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { type FakeShareMembership, shareGroupHarness } from '@cohort/coordinator/testing';
import { SharePartition, type SharePartitionLimits } from './share-partition';
import { AcknowledgeType as T } from './share-acknowledge-batches';

// Every partition a ShareAcquire or ShareAcknowledge answers with an error says why, as Kafka's answers
// carry an ErrorMessage (and AcknowledgeErrorMessage) beside each partition's code; a partition without
// an error carries none.

const G = 'share-messages';

async function setup() {
  const harness = await shareGroupHarness(G, {
    topics: [
      { name: 'jobs', partitions: 2 },
      { name: 'secret', partitions: 1 },
    ],
    config: { groupShareAutoOffsetReset: 'earliest', groupShareRecordLockDurationMs: 10_000 },
  });
  const { h, membership } = harness;
  membership.members.set('m1', [
    { topic: 'jobs', partition: 0 },
    { topic: 'secret', partition: 0 },
  ]);
  membership.members.set('m2', [{ topic: 'jobs', partition: 0 }]);
  await h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset: 5 }]);
  await h.topics.setEndOffsets('secret', [{ partition: 0, endOffset: 5 }]);
  const notSecret = (topic: string) => topic !== 'secret';
  const acknowledgement = (topic: string, partition: number, firstOffset: number, lastOffset: number, types = [1]) => ({
    topic,
    partition,
    batches: [{ firstOffset, lastOffset, acknowledgeTypes: types }],
  });
  const acknowledge = (memberId: string, acknowledgements: P.ShareAcknowledgement[]) =>
    h.coordinator.shareAcknowledge({ groupId: G, memberId, acknowledgements }, h.context(), notSecret);
  const acquire = (memberId: string, request: Partial<P.ShareAcquireRequest> = {}) =>
    h.coordinator.shareAcquire({ groupId: G, memberId, maxRecords: 3, ...request }, h.context(), notSecret);
  return { h, acknowledgement, acknowledge, acquire };
}

describe('ShareAcquire and ShareAcknowledge error messages', () => {
  it('ShareAcknowledge: each refused partition says why, an accepted one says nothing', async () => {
    const { acknowledgement, acknowledge, acquire } = await setup();
    await acquire('m1');
    const answer = await acknowledge('m2', [
      acknowledgement('secret', 0, 0, 0),
      acknowledgement('jobs', 1, 0, 0),
      acknowledgement('jobs', 0, 0, 2),
    ]);
    expect(answer.partitions).toEqual([
      {
        topic: 'secret',
        partition: 0,
        errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
        errorMessage: "Topic authorization failed: READ on topic 'secret' is not allowed.",
      },
      {
        topic: 'jobs',
        partition: 1,
        errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
        errorMessage: 'jobs-1 is not assigned to member m2.',
      },
      {
        topic: 'jobs',
        partition: 0,
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'Offsets 0-2 cannot be acknowledged: member m2 is not the owner of offsets 0-2.',
      },
    ]);
    expect((await acknowledge('m1', [acknowledgement('jobs', 0, 0, 2)])).partitions).toEqual([
      { topic: 'jobs', partition: 0, errorCode: 0 },
    ]);
    expect((await acknowledge('m1', [acknowledgement('jobs', 0, 3, 4)])).partitions[0].errorMessage).toBe(
      'Offsets 3-4 cannot be acknowledged: offsets 3-4 were never acquired.',
    );
  });

  it('ShareAcknowledge: offsets of a partition the group never acquired from', async () => {
    const { h, acknowledgement, acknowledge } = await setup();
    const { membership } = { membership: h.shardOf(G).sharePartitions.membership as FakeShareMembership };
    membership.members.set('m3', [{ topic: 'jobs', partition: 1 }]);
    expect((await acknowledge('m3', [acknowledgement('jobs', 1, 0, 0)])).partitions).toEqual([
      {
        topic: 'jobs',
        partition: 1,
        errorCode: ErrorCode.INVALID_REQUEST,
        errorMessage: 'The offsets cannot be acknowledged: nothing of jobs-1 was ever acquired.',
      },
    ]);
  });

  it('ShareAcquire: an acknowledgement refused says why in acknowledgeErrorMessage, a topic not readable in errorMessage', async () => {
    const { acknowledgement, acquire } = await setup();
    await acquire('m1');
    const answer = await acquire('m2', { acknowledgements: [acknowledgement('jobs', 0, 0, 0, [9])] });
    expect(answer.partitions).toContainEqual(
      expect.objectContaining({
        topic: 'jobs',
        partition: 0,
        acknowledgeErrorCode: ErrorCode.INVALID_REQUEST,
        acknowledgeErrorMessage: 'batch 0-0: acknowledge type 9 is not 0 (gap) to 4 (renew)',
      }),
    );
    const refused = (await acquire('m1')).partitions.find((p) => p.topic === 'secret');
    expect(refused).toMatchObject({
      errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED,
      errorMessage: "Topic authorization failed: READ on topic 'secret' is not allowed.",
    });
  });

  it('a failed write answers its partitions with what failed: leases and acknowledgements taken back', async () => {
    const { h, acknowledgement, acknowledge, acquire } = await setup();
    const failNext = () =>
      h.store.failNextAppend(h.partitionOf(G), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'the leader moved'));
    failNext();
    const leased = (await acquire('m1')).partitions.find((p) => p.topic === 'jobs');
    expect(leased).toMatchObject({
      errorCode: ErrorCode.NOT_COORDINATOR,
      errorMessage: "The write of jobs-0's state failed (the leader moved): its leases were taken back.",
      leases: [],
    });
    await acquire('m1');
    failNext();
    expect((await acknowledge('m1', [acknowledgement('jobs', 0, 0, 2)])).partitions).toEqual([
      {
        topic: 'jobs',
        partition: 0,
        errorCode: ErrorCode.NOT_COORDINATOR,
        errorMessage: "The write of jobs-0's state failed (the leader moved): its acknowledgements were taken back.",
      },
    ]);
  });
});

describe('why offsets cannot be acknowledged', () => {
  const LIMITS: SharePartitionLimits = { deliveryCountLimit: 5, maxRecordLocks: 200, lockDurationMs: 30_000 };
  const refusal = (sp: SharePartition, memberId: string, first: number, last: number, now: number) =>
    sp.acknowledge(memberId, [{ firstOffset: first, lastOffset: last, acknowledgeTypes: [T.ACCEPT] }], now, LIMITS)
      .message;

  it('names the offsets and the reason, as Kafka’s InvalidRecordStateException does', () => {
    const sp = new SharePartition(0, 0);
    sp.reportEnd(10);
    const { change } = sp.acquire('m1', 4, 4, 1000, LIMITS);
    expect(refusal(sp, 'm1', 0, 3, 1000)).toBe(
      'Offsets 0-3 cannot be acknowledged: a change of offsets 0-3 is being written, the acknowledgement of delivery could not be completed.',
    );
    sp.complete(change!, true, 1000, LIMITS);
    expect(refusal(sp, 'm2', 2, 2, 1000)).toBe(
      'Offset 2 cannot be acknowledged: member m2 is not the owner of offset 2.',
    );
    expect(refusal(sp, 'm1', 0, 3, 31_000)).toBe(
      'Offsets 0-3 cannot be acknowledged: the acquisition lock of offsets 0-3 timed out.',
    );
    expect(refusal(sp, 'm1', 3, 4, 1000)).toBe('Offsets 3-4 cannot be acknowledged: offset 4 was never acquired.');
    const accepted = sp.acknowledge(
      'm1',
      [{ firstOffset: 1, lastOffset: 1, acknowledgeTypes: [T.ACCEPT] }],
      1000,
      LIMITS,
    );
    sp.complete(accepted.change!, true, 1000, LIMITS);
    expect(refusal(sp, 'm1', 0, 2, 1000)).toBe(
      'Offsets 0-2 cannot be acknowledged: offset 1 is not in the acquired state.',
    );
  });
});
