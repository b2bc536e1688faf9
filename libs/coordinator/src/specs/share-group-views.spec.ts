import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { shareGroupHarness } from '@cohort/coordinator/testing';
import type { ShareMembershipView } from '../share/share-ports';
import { ShareAssignment } from '../share/share-assignment';

// What operators see of a share group (REST describe, list, dead letters, redelivery), through the
// coordinator on virtual time, with a membership that assigns jobs-0 to every member.

const G = 'share-ops';

class FakeMembership implements ShareMembershipView {
  private readonly jobs0 = ShareAssignment.ofList([{ topic: 'jobs', partition: 0 }]);

  assignedPartitions(groupId: string, memberId: string): ShareAssignment | number {
    if (groupId !== G) return ErrorCode.GROUP_ID_NOT_FOUND;
    return memberId.startsWith('m') ? this.jobs0 : ErrorCode.UNKNOWN_MEMBER_ID;
  }
}

async function setup() {
  const {
    h,
    bind,
    acquire: acquireRequest,
  } = await shareGroupHarness(G, {
    topics: [{ name: 'jobs', partitions: 2 }],
    config: { groupShareAutoOffsetReset: 'earliest', groupShareRecordLockDurationMs: 10_000 },
    membership: new FakeMembership(),
  });
  const acquire = (memberId: string, maxRecords = 100) => acquireRequest(memberId, { maxRecords });
  const ack = (memberId: string, firstOffset: number, lastOffset: number, types: number[]) =>
    h.coordinator.shareAcknowledge(
      {
        groupId: G,
        memberId,
        acknowledgements: [
          { topic: 'jobs', partition: 0, batches: [{ firstOffset, lastOffset, acknowledgeTypes: types }] },
        ],
      },
      h.context(),
    );
  const leases = (response: P.ShareAcquireResponse) =>
    response.partitions.flatMap((p) => p.leases.map((l) => [l.firstOffset, l.lastOffset, l.deliveryCount]));
  await h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset: 8 }]);
  return { h, bind, acquire, ack, leases };
}

const errorOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: unknown) => (error instanceof KafkaError ? error.errorName : String(error)),
  );

describe('share groups as operators see them', () => {
  it('describes each share partition: SPSO, the reported end, offsets by state and the oldest lease age', async () => {
    const { h, acquire, ack } = await setup();
    await acquire('m1', 5); // 0..4 leased
    await ack('m1', 0, 2, [1, 1, 3]); // 0, 1 accepted, 2 rejected: SPSO moves to 3
    await h.advance(1500);
    const view = await h.coordinator.describeGroup(G);
    expect(view).toMatchObject({ groupId: G, type: 'share', state: 'Empty', protocolType: 'share', members: [] });
    expect(view.sharePartitions).toEqual([
      {
        topic: 'jobs',
        partition: 0,
        startOffset: 3,
        endOffset: 8,
        stateEpoch: 0,
        offsets: { available: 3, acquired: 2, acknowledged: 0, archived: 0 },
        oldestLeaseAgeMs: 1500,
      },
    ]);
    expect(await h.coordinator.listGroupSummaries()).toEqual([
      { groupId: G, type: 'share', protocolType: 'share', state: 'Empty', members: 0 },
    ]);
    expect(await h.coordinator.listGroupSummaries(undefined, 'jobs')).toHaveLength(1);
    expect(await h.coordinator.listGroupSummaries(undefined, 'other')).toEqual([]);
  });

  it('shows SPSO moved back under a new state epoch after a redelivery, on this node and after a restart', async () => {
    const { h, bind, acquire, ack } = await setup();
    await acquire('m1', 4);
    await ack('m1', 0, 3, [1, 3, 1, 1]); // offset 1 rejected; SPSO passes it to 4
    expect((await h.coordinator.describeGroup(G)).sharePartitions?.[0]).toMatchObject({
      startOffset: 4,
      stateEpoch: 0,
    });
    expect(await h.coordinator.shareDeadLetters(G)).toEqual([
      { topic: 'jobs', partition: 0, firstOffset: 1, lastOffset: 1, reason: 'rejected', deliveryCount: 1 },
    ]);
    const done = await h.coordinator.redeliverDeadLetters({
      groupId: G,
      topic: 'jobs',
      partition: 0,
      firstOffset: 0,
      lastOffset: 3,
    });
    expect(done).toEqual({ errorCode: 0, redelivered: 1 });
    const after = (await h.coordinator.describeGroup(G)).sharePartitions?.[0];
    expect(after).toMatchObject({ startOffset: 1, stateEpoch: 1, offsets: { available: 5 } });
    await h.restart();
    bind();
    expect((await h.coordinator.describeGroup(G)).sharePartitions?.[0]).toMatchObject({
      startOffset: 1,
      stateEpoch: 1,
    });
    expect(await errorOf(h.coordinator.describeGroup('nope'))).toBe('GROUP_ID_NOT_FOUND');
  });
});
