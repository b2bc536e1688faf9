import { MemberState } from './member-state';
import { G, TOPICS, parts, member, join, setup, twoMemberGroup } from '../../testing/consumer-heartbeat-fixtures';
import { memberTombstones } from './consumer-group-records';
import {
  consumerGroupEpochRecord,
  currentAssignmentRecord,
  memberSubscriptionRecord,
  targetAssignmentEpochRecord,
  targetAssignmentRecord,
} from './consumer-records';
import { metadataHash } from './subscription-metadata';
import type { EpochBump, EpochBumpReason } from './epoch-history';

// Kafka's GroupMetadataManagerTest cases on how static members move the group epoch (or do not), on
// the virtual-clock harness. Topics are named; Kafka's subscription metadata record is the metadata
// hash of the epoch record here, and the epoch record also carries the group's epoch history.

const HASH_FOO_BAR = metadataHash(TOPICS);

const bump = (
  groupEpoch: number,
  reason: EpochBumpReason,
  memberId: string | null,
  members: number,
  at: number,
  completedAt: number | null = null,
): EpochBump => ({ groupEpoch, reason, memberId, startedAt: at, completedAt, members });

describe('ConsumerGroupHeartbeat: static members and the group epoch (Kafka GroupMetadataManagerTest)', () => {
  it('bumps the group epoch when a new static member joins and gives it nothing while its partitions are owned (testGroupEpochBumpWhenNewStaticMemberJoins)', () => {
    const { h, assignor, now } = setup();
    // zar, which does not exist, only in m2's subscription: the metadata must be recomputed from what exists.
    twoMemberGroup(h, {
      m1: { instanceId: 'm1' },
      m2: { instanceId: 'm2', subscribedTopicNames: new Set(['foo', 'bar', 'zar']) },
    });
    assignor.prepareGroupAssignment({
      m1: { foo: [0, 1], bar: [0] },
      m2: { foo: [2, 3], bar: [1] },
      m3: { foo: [4, 5], bar: [2] },
    });
    const { response, records } = h.heartbeat(join('m3', { instanceId: 'm3' }));
    expect(response).toEqual({
      errorCode: 0,
      memberId: 'm3',
      memberEpoch: 11,
      heartbeatIntervalMs: 5000,
      assignment: { topicPartitions: [] },
    });
    const m3 = member('m3', {
      state: MemberState.UNRELEASED_PARTITIONS,
      instanceId: 'm3',
      memberEpoch: 11,
      previousMemberEpoch: 0,
      rebalanceTimeoutMs: 5000,
    });
    expect(records.slice(0, 2)).toEqual([
      memberSubscriptionRecord(G, m3, now),
      consumerGroupEpochRecord(G, 11, HASH_FOO_BAR, now, [bump(11, 'member-joined', 'm3', 3, now)]),
    ]);
    expect(records.slice(2, 5)).toEqual(
      expect.arrayContaining([
        targetAssignmentRecord(G, 'm1', parts({ foo: [0, 1], bar: [0] }), now),
        targetAssignmentRecord(G, 'm2', parts({ foo: [2, 3], bar: [1] }), now),
        targetAssignmentRecord(G, 'm3', parts({ foo: [4, 5], bar: [2] }), now),
      ]),
    );
    expect(records.slice(5)).toEqual([targetAssignmentEpochRecord(G, 11, now), currentAssignmentRecord(G, m3, now)]);
    expect(h.manager.group(G)!.groupEpoch).toBe(11);
  });

  it('keeps the group epoch when a static member leaves temporarily, writing only its -2 epoch (testNoGroupEpochBumpWhenStaticMemberTemporarilyLeaves)', () => {
    const { h, assignor, now } = setup();
    const { m2 } = twoMemberGroup(h, { m1: { instanceId: 'm1' }, m2: { instanceId: 'm2' } });
    const { response, records } = h.heartbeat({
      groupId: G,
      memberId: 'm2',
      instanceId: 'm2',
      memberEpoch: -2,
      rebalanceTimeoutMs: 5000,
      subscribedTopicNames: ['foo', 'bar'],
      topicPartitions: [],
    });
    expect(response).toEqual({
      errorCode: 0,
      memberId: 'm2',
      memberEpoch: -2,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    expect(records).toEqual([currentAssignmentRecord(G, { ...m2, memberEpoch: -2 }, now)]);
    expect(h.manager.group(G)!.groupEpoch).toBe(10);
    // No new target was computed: the assignor was not asked.
    expect(assignor.calls).toEqual([]);
  });

  it('removes a static member that leaves with -1 and bumps the group epoch, the metadata recomputed without its topic (testLeavingStaticMemberBumpsGroupEpoch)', () => {
    const { h, now } = setup({ ...TOPICS, zar: 1 });
    twoMemberGroup(h, {
      m1: { instanceId: 'm1' },
      m2: { instanceId: 'm2', subscribedTopicNames: new Set(['foo', 'bar', 'zar']) },
    });
    const { response, records } = h.heartbeat({
      groupId: G,
      memberId: 'm2',
      instanceId: 'm2',
      memberEpoch: -1,
      rebalanceTimeoutMs: 5000,
      subscribedTopicNames: ['foo', 'bar'],
      topicPartitions: [],
    });
    expect(response).toEqual({
      errorCode: 0,
      memberId: 'm2',
      memberEpoch: -1,
      heartbeatIntervalMs: 0,
      assignment: null,
    });
    expect(records).toEqual([
      ...memberTombstones(G, 'm2', now),
      consumerGroupEpochRecord(G, 11, HASH_FOO_BAR, now, [bump(11, 'member-left', 'm2', 1, now)]),
    ]);
    expect(h.manager.group(G)!.staticMember('m2')).toBeUndefined();
  });

  it('gives a static member rejoining with a new subscription its old assignment first, then bumps the epoch for the new topic (testStaticMemberRejoinsWithNewSubscribedTopics)', () => {
    const { h, assignor, now } = setup();
    const m1 = member('m1', {
      instanceId: 'instance-id-1',
      memberEpoch: 10,
      previousMemberEpoch: 9,
      rebalanceTimeoutMs: 5000,
      subscribedTopicNames: new Set(['foo']),
      assignedPartitions: parts({ foo: [0, 1, 2] }),
    });
    const m2 = member('m2', {
      instanceId: 'instance-id-2',
      memberEpoch: 10,
      previousMemberEpoch: 9,
      rebalanceTimeoutMs: 5000,
      subscribedTopicNames: new Set(['foo']),
      assignedPartitions: parts({ foo: [3, 4, 5] }),
    });
    h.withGroup(G, 10, [m1, m2], { m1: m1.assignedPartitions, m2: m2.assignedPartitions }, 10);
    assignor.prepareGroupAssignment({
      m1: { foo: [0, 1, 2] },
      'm2-rejoin': { foo: [3, 4, 5], bar: [0, 1, 2] },
    });

    const away = h.heartbeat({ groupId: G, memberId: 'm2', instanceId: 'instance-id-2', memberEpoch: -2 });
    expect(away.response).toMatchObject({ errorCode: 0, memberId: 'm2', memberEpoch: -2 });
    expect(away.records).toEqual([currentAssignmentRecord(G, { ...m2, memberEpoch: -2 }, now)]);

    const rejoin = h.heartbeat(
      join('m2-rejoin', { instanceId: 'instance-id-2', subscribedTopicNames: ['foo', 'bar'] }),
    );
    expect(rejoin.response).toEqual({
      errorCode: 0,
      memberId: 'm2-rejoin',
      memberEpoch: 11,
      heartbeatIntervalMs: 5000,
      assignment: {
        topicPartitions: [
          { topic: 'bar', partitions: [0, 1, 2] },
          { topic: 'foo', partitions: [3, 4, 5] },
        ],
      },
    });
    const copied = { ...m2, memberId: 'm2-rejoin', memberEpoch: 0, previousMemberEpoch: 0 };
    const rejoined = {
      ...copied,
      memberEpoch: 11,
      subscribedTopicNames: new Set(['foo', 'bar']),
      assignedPartitions: parts({ foo: [3, 4, 5], bar: [0, 1, 2] }),
    };
    expect(rejoin.records).toEqual([
      // The previous member is deleted and the new one created as its copy, with its new id and epochs.
      ...memberTombstones(G, 'm2', now),
      memberSubscriptionRecord(G, copied, now),
      targetAssignmentRecord(G, 'm2-rejoin', parts({ foo: [3, 4, 5] }), now),
      currentAssignmentRecord(G, copied, now),
      // Its subscription differs, so the group rebalances.
      memberSubscriptionRecord(G, rejoined, now),
      consumerGroupEpochRecord(G, 11, HASH_FOO_BAR, now, [bump(11, 'subscription-changed', 'm2-rejoin', 2, now)]),
      targetAssignmentRecord(G, 'm2-rejoin', parts({ foo: [3, 4, 5], bar: [0, 1, 2] }), now),
      targetAssignmentEpochRecord(G, 11, now),
      currentAssignmentRecord(G, rejoined, now),
    ]);
    expect(h.hasSessionTimeout(G, 'm2')).toBe(false);
    expect(h.hasRebalanceTimeout(G, 'm2')).toBe(false);
  });

  it('fences a static member whose epoch is ahead or behind, but takes the previous epoch back with a subset of its partitions (testConsumerGroupMemberEpochValidationForStaticMember)', () => {
    const { h } = setup();
    const m = member('m1', {
      instanceId: 'm1',
      memberEpoch: 100,
      previousMemberEpoch: 99,
      rebalanceTimeoutMs: 5000,
      assignedPartitions: parts({ foo: [1, 2, 3] }),
    });
    h.withGroup(G, 100, [m], { m1: parts({ foo: [1, 2, 3] }) }, 100);
    const hb = (memberEpoch: number, topicPartitions?: { topic: string; partitions: number[] }[]) =>
      h.heartbeat({
        groupId: G,
        memberId: 'm1',
        instanceId: 'm1',
        memberEpoch,
        rebalanceTimeoutMs: 5000,
        subscribedTopicNames: ['foo', 'bar'],
        topicPartitions,
      }).response;
    expect(hb(200)).toMatchObject({ errorCode: 110, errorName: 'FENCED_MEMBER_EPOCH' });
    expect(hb(50)).toMatchObject({ errorCode: 110, errorName: 'FENCED_MEMBER_EPOCH' });
    expect(hb(99)).toMatchObject({ errorCode: 110, errorName: 'FENCED_MEMBER_EPOCH' });
    // The reply with the bumped epoch may have been lost: the member gets the right epoch back.
    expect(hb(99, [{ topic: 'foo', partitions: [1, 2] }])).toMatchObject({ errorCode: 0, memberEpoch: 100 });
  });
});
