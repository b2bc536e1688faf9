import { ConsumerGroupHarness, MockConsumerAssignor } from '@cohort/coordinator/testing';
import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';
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

// Kafka's GroupMetadataManagerTest consumer group heartbeat cases, on the virtual-clock harness. Topics
// are named; Kafka's subscription metadata record is the metadata hash of the epoch record here.

const HASH_FOO_BAR = metadataHash(TOPICS);

/** An entry of the epoch history the epoch records carry (Cohort's addition to Kafka's records). */
const bump = (
  groupEpoch: number,
  reason: EpochBumpReason,
  memberId: string | null,
  members: number,
  at: number,
  completedAt: number | null = null,
): EpochBump => ({ groupEpoch, reason, memberId, startedAt: at, completedAt, members });

describe('ConsumerGroupHeartbeat (Kafka GroupMetadataManagerTest)', () => {
  it.each<[string, Partial<ConsumerGroupHeartbeatRequest>, string]>([
    ['an empty member id', { memberId: '' }, "MemberId can't be empty."],
    ['an empty group id', { groupId: ' ' }, "GroupId can't be empty."],
    ['an empty instance id', { instanceId: '' }, "InstanceId can't be empty."],
    ['an empty rack id', { rackId: '' }, "RackId can't be empty."],
    ['a member id of whitespace only', { memberId: '\t \n' }, "MemberId can't be empty."],
    ['a group id of Unicode whitespace only', { groupId: '\u00a0\u3000\ufeff' }, "GroupId can't be empty."],
    [
      'a join without a rebalance timeout',
      { rebalanceTimeoutMs: undefined },
      'RebalanceTimeoutMs must be provided in first request.',
    ],
    [
      'a join without its owned partitions',
      { topicPartitions: undefined },
      'TopicPartitions must be empty when (re-)joining.',
    ],
    [
      'a join that owns partitions',
      { topicPartitions: [{ topic: 'foo', partitions: [0] }] },
      'TopicPartitions must be empty when (re-)joining.',
    ],
    [
      'a join without names or a regex',
      { subscribedTopicNames: undefined },
      'Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.',
    ],
    ['a static leave without an instance id', { memberEpoch: -2 }, "InstanceId can't be null."],
    ['an epoch below -2', { memberEpoch: -3 }, 'MemberEpoch is invalid.'],
  ])(
    'refuses %s with INVALID_REQUEST and writes nothing (testConsumerHeartbeatRequestValidation)',
    (_, change, message) => {
      const { h } = setup();
      const { response, records } = h.heartbeat(join('m1', change));
      expect(response).toMatchObject({ errorCode: 42, errorName: 'INVALID_REQUEST', errorMessage: message });
      expect(records).toEqual([]);
      expect(h.manager.group(G)).toBeUndefined();
    },
  );

  it('refuses an assignor the node does not have with UNSUPPORTED_ASSIGNOR, naming the ones it has', () => {
    const { h } = setup();
    const { response } = h.heartbeat(join('m1', { serverAssignor: 'sticky' }));
    expect(response).toMatchObject({
      errorCode: 112,
      errorMessage: 'ServerAssignor sticky is not supported. Supported assignors: range.',
    });
  });

  it('answers GROUP_ID_NOT_FOUND to a member heartbeating to a group that does not exist (testUnknownGroupId)', () => {
    const { h } = setup();
    expect(h.heartbeat(join('m1', { memberEpoch: 100 })).response.errorCode).toBe(69);
  });

  it('answers UNKNOWN_MEMBER_ID to an unknown member that does not join with epoch 0 (testUnknownMemberIdJoinsConsumerGroup)', () => {
    const { h } = setup();
    h.heartbeat(join('m1'));
    expect(h.heartbeat(join('m2', { memberEpoch: 1 })).response).toMatchObject({ errorCode: 25, memberId: null });
  });

  it('fences an epoch ahead or behind, but takes the previous epoch back from a member owning only what it holds (testConsumerGroupMemberEpochValidation)', () => {
    const { h } = setup();
    const m = member('m1', {
      memberEpoch: 100,
      previousMemberEpoch: 99,
      rebalanceTimeoutMs: 5000,
      assignedPartitions: parts({ foo: [1, 2, 3] }),
    });
    h.withGroup(G, 100, [m], { m1: parts({ foo: [1, 2, 3] }) }, 100);
    const hb = (memberEpoch: number, topicPartitions?: ConsumerGroupHeartbeatRequest['topicPartitions']) =>
      h.heartbeat({
        groupId: G,
        memberId: 'm1',
        memberEpoch,
        rebalanceTimeoutMs: 5000,
        subscribedTopicNames: ['foo', 'bar'],
        topicPartitions,
      }).response;
    expect(hb(200)).toMatchObject({ errorCode: 110, errorName: 'FENCED_MEMBER_EPOCH' });
    expect(hb(50).errorCode).toBe(110);
    // The previous epoch without its partitions is fenced too.
    expect(hb(99).errorCode).toBe(110);
    expect(hb(99, [{ topic: 'foo', partitions: [1, 2] }])).toMatchObject({ errorCode: 0, memberEpoch: 100 });
  });

  it('takes back a fenced member that rejoins with epoch 0 under its id, giving it its assignment at its epoch (KAFKA-19233)', () => {
    const { h } = setup();
    const m = member('m1', {
      memberEpoch: 100,
      previousMemberEpoch: 99,
      rebalanceTimeoutMs: 5000,
      assignedPartitions: parts({ foo: [1, 2, 3] }),
    });
    h.withGroup(G, 100, [m], { m1: parts({ foo: [1, 2, 3] }) }, 100);
    expect(h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 150 }).response.errorCode).toBe(110);
    const { response, records } = h.heartbeat(join('m1'));
    expect(response).toEqual({
      errorCode: 0,
      memberId: 'm1',
      memberEpoch: 100,
      heartbeatIntervalMs: 5000,
      assignment: { topicPartitions: [{ topic: 'foo', partitions: [1, 2, 3] }] },
    });
    expect(records).toEqual([]);
  });

  it("gives the first member of a new group the whole assignment at epoch 1 with Kafka's records in Kafka's order (testMemberJoinsEmptyConsumerGroup)", () => {
    const { h, assignor, now } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5], bar: [0, 1, 2] } });
    const { response, records } = h.heartbeat(join('m1'));
    expect(response).toEqual({
      errorCode: 0,
      memberId: 'm1',
      memberEpoch: 1,
      heartbeatIntervalMs: 5000,
      assignment: {
        topicPartitions: [
          { topic: 'bar', partitions: [0, 1, 2] },
          { topic: 'foo', partitions: [0, 1, 2, 3, 4, 5] },
        ],
      },
    });
    const expected = member('m1', {
      memberEpoch: 1,
      previousMemberEpoch: 0,
      rebalanceTimeoutMs: 5000,
      assignedPartitions: parts({ foo: [0, 1, 2, 3, 4, 5], bar: [0, 1, 2] }),
    });
    expect(records).toEqual([
      memberSubscriptionRecord(G, expected, now),
      consumerGroupEpochRecord(G, 1, HASH_FOO_BAR, now, [bump(1, 'member-joined', 'm1', 1, now)]),
      targetAssignmentRecord(G, 'm1', parts({ foo: [0, 1, 2, 3, 4, 5], bar: [0, 1, 2] }), now),
      targetAssignmentEpochRecord(G, 1, now),
      currentAssignmentRecord(G, expected, now),
      // Cohort: the member holds its target, so the group converged at once; the history says so.
      consumerGroupEpochRecord(G, 1, HASH_FOO_BAR, now, [bump(1, 'member-joined', 'm1', 1, now, now)]),
    ]);
    expect(h.manager.group(G)!.member('m1')).toEqual(expected);
    expect(h.manager.group(G)!.state).toBe('Stable');
  });

  it('computes a new target when a member changes its subscription, and gives it at once (testUpdatingSubscriptionTriggersNewTargetAssignment)', () => {
    const { h, assignor, now } = setup();
    const m = member('m1', {
      memberEpoch: 10,
      previousMemberEpoch: 9,
      subscribedTopicNames: new Set(['foo']),
      assignedPartitions: parts({ foo: [0, 1, 2, 3, 4, 5] }),
    });
    h.withGroup(G, 10, [m], { m1: parts({ foo: [0, 1, 2, 3, 4, 5] }) }, 10);
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1, 2, 3, 4, 5], bar: [0, 1, 2] } });
    const { response, records } = h.heartbeat({
      groupId: G,
      memberId: 'm1',
      memberEpoch: 10,
      subscribedTopicNames: ['foo', 'bar'],
    });
    expect(response).toMatchObject({
      memberEpoch: 11,
      assignment: {
        topicPartitions: [
          { topic: 'bar', partitions: [0, 1, 2] },
          { topic: 'foo', partitions: [0, 1, 2, 3, 4, 5] },
        ],
      },
    });
    const expected = member('m1', {
      memberEpoch: 11,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ foo: [0, 1, 2, 3, 4, 5], bar: [0, 1, 2] }),
    });
    expect(records).toEqual([
      memberSubscriptionRecord(G, expected, now),
      consumerGroupEpochRecord(G, 11, HASH_FOO_BAR, now, [bump(11, 'subscription-changed', 'm1', 1, now)]),
      targetAssignmentRecord(G, 'm1', parts({ foo: [0, 1, 2, 3, 4, 5], bar: [0, 1, 2] }), now),
      targetAssignmentEpochRecord(G, 11, now),
      currentAssignmentRecord(G, expected, now),
      consumerGroupEpochRecord(G, 11, HASH_FOO_BAR, now, [bump(11, 'subscription-changed', 'm1', 1, now, now)]),
    ]);
  });

  it('moves a joining member to the new epoch with nothing yet while its partitions are still owned (testNewJoiningMemberTriggersNewTargetAssignment)', () => {
    const { h, assignor, now } = setup();
    twoMemberGroup(h);
    assignor.prepareGroupAssignment({
      m1: { foo: [0, 1], bar: [0] },
      m2: { foo: [2, 3], bar: [1] },
      m3: { foo: [4, 5], bar: [2] },
    });
    const { response, records } = h.heartbeat(join('m3'));
    expect(response).toEqual({
      errorCode: 0,
      memberId: 'm3',
      memberEpoch: 11,
      heartbeatIntervalMs: 5000,
      assignment: { topicPartitions: [] },
    });
    const m3 = member('m3', {
      state: MemberState.UNRELEASED_PARTITIONS,
      memberEpoch: 11,
      previousMemberEpoch: 0,
      rebalanceTimeoutMs: 5000,
    });
    expect(records.slice(0, 2)).toEqual([
      memberSubscriptionRecord(G, { ...m3, state: MemberState.STABLE, memberEpoch: 0, previousMemberEpoch: -1 }, now),
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
    expect(h.manager.group(G)!.state).toBe('Reconciling');
  });

  it('removes a leaving member with its tombstones and bumps the group epoch (testLeavingMemberBumpsGroupEpoch)', () => {
    const { h, now } = setup({ ...TOPICS, zar: 1 });
    twoMemberGroup(h, { m2: { subscribedTopicNames: new Set(['foo', 'bar', 'zar']) } });
    const { response, records } = h.heartbeat({
      groupId: G,
      memberId: 'm2',
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
    // The metadata hash is recomputed without zar, which only m2 subscribed to.
    expect(records).toEqual([
      ...memberTombstones(G, 'm2', now),
      consumerGroupEpochRecord(G, 11, HASH_FOO_BAR, now, [bump(11, 'member-left', 'm2', 1, now)]),
    ]);
    expect(h.manager.group(G)!.history.entries).toEqual([bump(11, 'member-left', 'm2', 1, now)]);
    expect(h.manager.group(G)!.member('m2')).toBeUndefined();
    expect(h.manager.group(G)!.state).toBe('Assigning');
  });

  it('refuses a new member once the group is full, while its members keep heartbeating (testNewMemberIsRejectedWithMaximumMembersIsReached)', () => {
    const assignor = new MockConsumerAssignor('range');
    const h = new ConsumerGroupHarness({ assignors: [assignor], topics: TOPICS, config: { maxSize: 2 } });
    twoMemberGroup(h);
    expect(h.heartbeat(join('m3')).response).toMatchObject({
      errorCode: 81,
      errorMessage: 'The consumer group has reached its maximum capacity of 2 members.',
    });
    expect(h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 10 }).response.errorCode).toBe(0);
  });

  it('answers UNKNOWN_SERVER_ERROR and writes nothing when the assignor fails (testPartitionAssignorExceptionOnRegularHeartbeat)', () => {
    const failing = {
      name: 'range',
      assign: () => {
        throw new Error('Assignment failed.');
      },
    };
    const h = new ConsumerGroupHarness({ assignors: [failing], topics: TOPICS });
    const { response, records } = h.heartbeat(join('m1'));
    expect(response).toMatchObject({
      errorCode: -1,
      errorMessage: 'Failed to compute a new target assignment for epoch 1: Assignment failed.',
    });
    expect(records).toEqual([]);
    expect(h.manager.group(G)).toBeUndefined();
  });

  it('answers a full request with the whole assignment even when it did not change (testConsumerGroupHeartbeatFullResponse)', () => {
    const { h, assignor } = setup();
    assignor.prepareGroupAssignment({ m1: { foo: [0, 1] } });
    h.heartbeat(join('m1'));
    const partial = h.heartbeat({ groupId: G, memberId: 'm1', memberEpoch: 1 });
    expect(partial.response.assignment).toBeNull();
    const full = h.heartbeat({
      groupId: G,
      memberId: 'm1',
      memberEpoch: 1,
      rebalanceTimeoutMs: 5000,
      subscribedTopicNames: ['foo', 'bar'],
      topicPartitions: [{ topic: 'foo', partitions: [0, 1] }],
    });
    expect(full.response.assignment).toEqual({ topicPartitions: [{ topic: 'foo', partitions: [0, 1] }] });
    expect(full.records).toEqual([]);
  });
});
