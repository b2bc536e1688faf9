import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness, track } from '@cohort/coordinator/testing';
import { SHARE_PARTITION_STATE_RECORD_TYPE } from './share-state-records';

// DeleteGroups of a share group (DELETE /v1/groups/:groupId) through the coordinator on virtual time, with
// real share membership: the group and its share partitions' state (Kafka's DeleteShareGroupState) go in
// one write, so a group created again under the same id is a fresh group, whether it comes back before
// the deletion commits or after a reload, and a deletion whose write fails leaves the old group whole.

const G = 'share-delete';

async function setup() {
  const h = new CoordinatorHarness({
    topics: [{ name: 'jobs', partitions: 1 }],
    config: { groupShareAutoOffsetReset: 'earliest', groupShareRecordLockDurationMs: 10_000 },
  });
  await h.settle();
  await h.topics.setEndOffsets('jobs', [{ partition: 0, endOffset: 6 }]);
  const heartbeat = async (memberId: string, memberEpoch: number) => {
    const answer = await h.coordinator.shareGroupHeartbeat(
      { groupId: G, memberId, memberEpoch, subscribedTopicNames: ['jobs'] },
      h.context(`conn-${memberId}`),
    );
    expect(answer.errorCode).toBe(0);
    return answer;
  };
  const acquire = (memberId: string) =>
    h.coordinator.shareAcquire({ groupId: G, memberId, maxRecords: 100 }, h.context(`conn-${memberId}`));
  const leases = (response: P.ShareAcquireResponse) =>
    response.partitions.flatMap((p) => p.leases.map((l) => [l.firstOffset, l.lastOffset, l.deliveryCount]));
  /** jobs-0: 0-2 acknowledged, 3-5 released (delivered once); then the member leaves: the group is Empty. */
  const worked = async () => {
    await heartbeat('m1', 0);
    expect(leases(await acquire('m1'))).toEqual([[0, 5, 1]]);
    const acked = await h.coordinator.shareAcknowledge(
      {
        groupId: G,
        memberId: 'm1',
        acknowledgements: [
          {
            topic: 'jobs',
            partition: 0,
            batches: [{ firstOffset: 0, lastOffset: 5, acknowledgeTypes: [1, 1, 1, 2, 2, 2] }],
          },
        ],
      },
      h.context('conn-m1'),
    );
    expect(acked.partitions[0].errorCode).toBe(0);
    await heartbeat('m1', -1);
  };
  const deleteGroup = () => h.coordinator.deleteGroups({ groupsNames: [G] }).then((r) => r.results[0].errorCode);
  const stateRecords = () =>
    h.store
      .records(h.partitionOf(G))
      .filter((r) => r.key !== null && JSON.parse(r.key.toString())[0] === SHARE_PARTITION_STATE_RECORD_TYPE);
  return { h, heartbeat, acquire, leases, worked, deleteGroup, stateRecords };
}

describe('DeleteGroups of a share group', () => {
  it("writes the group's tombstones and its share partitions' state tombstone in one write, answered once it commits", async () => {
    const { h, worked, deleteGroup, stateRecords } = await setup();
    await worked();
    const partition = h.partitionOf(G);
    h.store.autoCommit = false;
    const before = h.store.records(partition).length;
    const deleted = track(deleteGroup());
    await h.settle();
    const written = h.store.records(partition).slice(before);
    expect(written.length).toBeGreaterThan(1);
    expect(written.every((r) => r.value === null)).toBe(true);
    expect(stateRecords().at(-1)).toMatchObject({ value: null });
    expect(h.store.pendingCommits(partition)).toBe(1);
    expect(deleted.done).toBe(false);
    h.store.advanceHighWatermark(partition);
    await h.settle();
    expect(deleted.value).toBe(ErrorCode.NONE);
  });

  it('a group created again before the deletion commits starts fresh: every offset again, counted from one', async () => {
    const { h, heartbeat, acquire, leases, worked, deleteGroup } = await setup();
    await worked();
    h.store.autoCommit = false;
    const deleted = track(deleteGroup());
    await h.settle();
    const rejoined = track(heartbeat('m2', 0));
    await h.settle();
    const leased = track(acquire('m2'));
    await h.settle();
    h.store.advanceHighWatermark(h.partitionOf(G));
    await h.settle();
    expect(deleted.value).toBe(ErrorCode.NONE);
    expect(rejoined.value.errorCode).toBe(0);
    expect(leases(leased.value)).toEqual([[0, 5, 1]]);
    // The deletion's commit did not take the new group's state with it: a reload frees the lease (as a new
    // leader does) and keeps its count; the old group's state would lease 3-5 only.
    h.store.autoCommit = true;
    await h.restart();
    expect(leases(await acquire('m2'))).toEqual([[0, 5, 2]]);
  });

  it('a group created again after a reload starts fresh too', async () => {
    const { h, heartbeat, acquire, leases, worked, deleteGroup } = await setup();
    await worked();
    expect(await deleteGroup()).toBe(ErrorCode.NONE);
    await h.restart();
    await heartbeat('m2', 0);
    expect(leases(await acquire('m2'))).toEqual([[0, 5, 1]]);
  });

  it('a deletion whose write fails leaves the old group whole: what it acknowledged is not leased again', async () => {
    const { h, heartbeat, acquire, leases, worked, deleteGroup } = await setup();
    await worked();
    h.store.failNextAppend(h.partitionOf(G), KafkaError.of('NOT_ENOUGH_REPLICAS'));
    expect(await deleteGroup()).not.toBe(ErrorCode.NONE);
    await heartbeat('m2', 0);
    expect(leases(await acquire('m2'))).toEqual([[3, 5, 2]]);
  });
});

describe('loading share partition state whose group is gone', () => {
  it('deletes it, so a group created again under the id starts fresh (a log from before a deletion was one write)', async () => {
    const { h, heartbeat, acquire, leases, worked, deleteGroup, stateRecords } = await setup();
    await worked();
    const partition = h.partitionOf(G);
    const lastState = stateRecords().at(-1)!;
    expect(lastState.value).not.toBeNull();
    expect(await deleteGroup()).toBe(ErrorCode.NONE);
    // What a deletion split over two writes left behind: the group's tombstones, then its partition's state
    // written again (as if the second write, the state's tombstone, never happened).
    const { offset: _offset, leaderEpoch, ...record } = lastState;
    h.store.append(partition, leaderEpoch, [record]);
    await h.restart();
    expect(stateRecords().at(-1)).toMatchObject({ value: null });
    await heartbeat('m2', 0);
    expect(leases(await acquire('m2'))).toEqual([[0, 5, 1]]);
    // The tombstone was written: the next load finds no state of the old group either.
    await heartbeat('m2', -1);
    expect(await deleteGroup()).toBe(ErrorCode.NONE);
    await h.restart();
    await heartbeat('m3', 0);
    expect(leases(await acquire('m3'))).toEqual([[0, 5, 1]]);
  });

  it('keeps serving the state of a share group that exists', async () => {
    const { h, heartbeat, acquire, leases, worked } = await setup();
    await worked();
    await h.restart();
    await heartbeat('m2', 0);
    expect(leases(await acquire('m2'))).toEqual([[3, 5, 2]]);
  });
});
