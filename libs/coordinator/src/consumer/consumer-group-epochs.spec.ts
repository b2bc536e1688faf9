import { MemberState } from './member-state';
import { G, parts, member, setup } from '../../testing/consumer-heartbeat-fixtures';
import { consumerGroupTombstones } from './consumer-group-records';
import {
  consumerGroupEpochRecord,
  consumerGroupEpochTombstone,
  currentAssignmentRecord,
  memberSubscriptionRecord,
  targetAssignmentEpochRecord,
  targetAssignmentEpochTombstone,
  targetAssignmentRecord,
} from './consumer-records';
import { metadataHash } from './subscription-metadata';
import type { EpochBump, EpochBumpReason } from './epoch-history';

// Kafka's GroupMetadataManagerTest cases on the group's state and epochs as records replay and as a
// loaded group's metadata is refreshed, on the virtual-clock harness. Topics are named; Kafka's
// subscription metadata record is the metadata hash of the epoch record here.

const bump = (
  groupEpoch: number,
  reason: EpochBumpReason,
  memberId: string | null,
  members: number,
  at: number,
  completedAt: number | null = null,
): EpochBump => ({ groupEpoch, reason, memberId, startedAt: at, completedAt, members });

/**
 * A group loaded with one member at epoch 10 owning foo 0-2 while foo had 3 partitions; foo has 6 now
 * (Kafka's fixture of the metadata refresh cases: the stored subscription metadata is stale).
 */
function loadedWithStaleMetadata() {
  const ctx = setup({ foo: 3 });
  const m = member('m1', {
    memberEpoch: 10,
    previousMemberEpoch: 10,
    rebalanceTimeoutMs: 5000,
    assignedPartitions: parts({ foo: [0, 1, 2] }),
  });
  ctx.h.withGroup(G, 10, [m], { m1: parts({ foo: [0, 1, 2] }) }, 10);
  ctx.h.topics.foo = 6;
  ctx.assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5] } });
  return { ...ctx, m };
}

describe('consumer group state and epochs (Kafka GroupMetadataManagerTest)', () => {
  it('derives Empty, Assigning, Reconciling and Stable from the replayed records (testConsumerGroupStates)', () => {
    const { h, now } = setup();
    h.replay([consumerGroupEpochRecord(G, 10, 0, now)]);
    const state = () => h.groups.get(G)!.state;
    expect(state()).toBe('Empty');

    h.replay([
      memberSubscriptionRecord(G, member('m1', { subscribedTopicNames: new Set(['foo']) }), now),
      consumerGroupEpochRecord(G, 11, 0, now),
    ]);
    expect(state()).toBe('Assigning');

    h.replay([
      targetAssignmentRecord(G, 'm1', parts({ foo: [1, 2, 3] }), now),
      targetAssignmentEpochRecord(G, 11, now),
    ]);
    expect(state()).toBe('Reconciling');

    const at11 = { memberEpoch: 11, previousMemberEpoch: 10, assignedPartitions: parts({ foo: [1, 2, 3] }) };
    h.replay([currentAssignmentRecord(G, member('m1', { ...at11, state: MemberState.UNREVOKED_PARTITIONS }), now)]);
    expect(state()).toBe('Reconciling');

    h.replay([currentAssignmentRecord(G, member('m1', { ...at11, state: MemberState.STABLE }), now)]);
    expect(state()).toBe('Stable');
  });

  it("bumps a loaded group's epoch at the next heartbeat when a subscribed topic grew while it was away (testSubscriptionMetadataRefreshedAfterGroupIsLoaded)", () => {
    const { h, m, now } = loadedWithStaleMetadata();
    const { response, records } = h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 10 });
    expect(response).toEqual({
      errorCode: 0,
      memberId: 'm1',
      memberEpoch: 11,
      heartbeatIntervalMs: 5000,
      assignment: { topicPartitions: [{ topic: 'foo', partitions: [0, 1, 2, 3, 4, 5] }] },
    });
    const expected = { ...m, memberEpoch: 11, assignedPartitions: parts({ foo: [0, 1, 2, 3, 4, 5] }) };
    const hash = metadataHash({ foo: 6 });
    expect(records).toEqual([
      consumerGroupEpochRecord(G, 11, hash, now, [bump(11, 'topic-metadata-changed', 'm1', 1, now)]),
      targetAssignmentRecord(G, 'm1', parts({ foo: [0, 1, 2, 3, 4, 5] }), now),
      targetAssignmentEpochRecord(G, 11, now),
      currentAssignmentRecord(G, expected, now),
      // Cohort: the member holds its target, so the group converged at once; the history says so.
      consumerGroupEpochRecord(G, 11, hash, now, [bump(11, 'topic-metadata-changed', 'm1', 1, now, now)]),
    ]);
    expect(h.manager.group(G)!.metadataHash).toBe(hash);
  });

  it('refreshes the metadata again at the next heartbeat when the write of the first refresh failed (testSubscriptionMetadataRefreshedAgainAfterWriteFailure)', () => {
    const { h, m, now } = loadedWithStaleMetadata();
    h.failNextWrite = true;
    h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 10 });
    // The failed write is taken back: the group is as it was loaded.
    expect(h.manager.group(G)!.groupEpoch).toBe(10);

    const { response, records } = h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 10 });
    expect(response).toEqual({
      errorCode: 0,
      memberId: 'm1',
      memberEpoch: 11,
      heartbeatIntervalMs: 5000,
      assignment: { topicPartitions: [{ topic: 'foo', partitions: [0, 1, 2, 3, 4, 5] }] },
    });
    const expected = { ...m, memberEpoch: 11, assignedPartitions: parts({ foo: [0, 1, 2, 3, 4, 5] }) };
    const hash = metadataHash({ foo: 6 });
    expect(records).toEqual([
      consumerGroupEpochRecord(G, 11, hash, now, [bump(11, 'topic-metadata-changed', 'm1', 1, now)]),
      targetAssignmentRecord(G, 'm1', parts({ foo: [0, 1, 2, 3, 4, 5] }), now),
      targetAssignmentEpochRecord(G, 11, now),
      currentAssignmentRecord(G, expected, now),
      consumerGroupEpochRecord(G, 11, hash, now, [bump(11, 'topic-metadata-changed', 'm1', 1, now, now)]),
    ]);
    expect(h.reloaded().get(G)!.groupEpoch).toBe(11);
  });

  it('refuses an invalid regex at join and on update, and bumps the epoch when a member moves from a regex to names (testConsumerHeartbeatRegexValidation)', () => {
    const { h } = setup();
    const regex = (
      memberEpoch: number,
      subscription: { subscribedTopicRegex?: string; subscribedTopicNames?: string[] },
    ) =>
      h.heartbeat({
        groupId: G,
        memberId: 'm1',
        memberEpoch,
        rebalanceTimeoutMs: 5000,
        topicPartitions: [],
        ...subscription,
      });
    const message = 'SubscribedTopicRegex `[` is not a valid regular expression';
    const refused = regex(0, { subscribedTopicRegex: '[' });
    expect(refused.response).toMatchObject({ errorCode: 128, errorName: 'INVALID_REGULAR_EXPRESSION' });
    // Cohort compiles with RE2, so the reason after the colon is RE2's rather than Java's.
    expect(refused.response.errorMessage).toContain(message);
    expect(regex(0, { subscribedTopicRegex: '.*' }).response).toMatchObject({ errorCode: 0, memberEpoch: 1 });
    const update = regex(1, { subscribedTopicRegex: '[' }).response;
    expect(update).toMatchObject({ errorCode: 128 });
    expect(update.errorMessage).toContain(message);
    // Topic names without a regex (a regex left out is unchanged, as in Kafka): a new subscription, a new epoch.
    expect(regex(1, { subscribedTopicNames: ['foo'] }).response).toMatchObject({ errorCode: 0, memberEpoch: 2 });
    expect([...h.manager.group(G)!.member('m1')!.subscribedTopicNames]).toEqual(['foo']);
  });

  it('deletes an empty group with the tombstones of its assignment epoch and group epoch (testConsumerGroupDelete)', () => {
    const { h, now } = setup();
    const group = h.withGroup(G, 10, [], {}, 10);
    // Cohort has no subscription metadata record: its hash lives in the epoch record Kafka also deletes.
    expect(consumerGroupTombstones(group, now)).toEqual([
      targetAssignmentEpochTombstone(G, now),
      consumerGroupEpochTombstone(G, now),
    ]);
    const gone = h.manager.deleteEmpty(group);
    expect(gone.records).toEqual(consumerGroupTombstones(group, now));
    h.log.push(...gone.records);
    gone.appendFuture?.({ ok: true, baseOffset: 0, lastOffset: h.log.length - 1 });
    expect(h.manager.group(G)).toBeUndefined();
    expect(h.reloaded().get(G)).toBeUndefined();
  });
});
