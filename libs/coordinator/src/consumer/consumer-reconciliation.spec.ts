import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';
import { MemberState } from './member-state';
import { G, parts, member, join, setup, twoMemberGroup } from '../../testing/consumer-heartbeat-fixtures';
import type { ConsumerGroupHarness } from '../../testing/consumer-group-harness';
import { consumerGroupEpochRecord, currentAssignmentRecord } from './consumer-records';
import { metadataHash } from './subscription-metadata';
import type { EpochBump, EpochBumpReason } from './epoch-history';

// Kafka's GroupMetadataManagerTest reconciliation cases, heartbeat by heartbeat, with the response and
// the current assignment record each heartbeat writes, on the virtual-clock harness.

const bump = (
  groupEpoch: number,
  reason: EpochBumpReason,
  memberId: string | null,
  members: number,
  at: number,
  completedAt: number | null = null,
): EpochBump => ({ groupEpoch, reason, memberId, startedAt: at, completedAt, members });

type Owned = ConsumerGroupHeartbeatRequest['topicPartitions'];

/** A heartbeat of a member already in the group, with the partitions it owns when given. */
function beat(h: ConsumerGroupHarness, memberId: string, memberEpoch: number, topicPartitions?: Owned) {
  return h.heartbeat({ groupId: G, memberId, memberEpoch, ...(topicPartitions ? { topicPartitions } : {}) });
}

const ok = (memberId: string, memberEpoch: number, topicPartitions: Owned | null = null) => ({
  errorCode: 0,
  memberId,
  memberEpoch,
  heartbeatIntervalMs: 5000,
  assignment: topicPartitions === null ? null : { topicPartitions },
});

describe('consumer group reconciliation (Kafka GroupMetadataManagerTest)', () => {
  it('revokes before it assigns, writing each member state on the way, until all are stable at epoch 11 (testReconciliationProcess)', () => {
    const { h, assignor, now } = setup();
    twoMemberGroup(h);
    assignor.prepareGroupAssignment({
      m1: { foo: [0, 1], bar: [0] },
      m2: { foo: [2, 3], bar: [2] },
      m3: { foo: [4, 5], bar: [1] },
    });
    const group = h.manager.group(G)!;
    const stateOf = (memberId: string) => group.member(memberId)!.state;
    expect(group.state).toBe('Stable');
    const base = { rebalanceTimeoutMs: 5000 };

    // m3 joins: a new target at epoch 11; m3 moves to it but gets nothing, all is still owned.
    let r = h.heartbeat(join('m3'));
    expect(r.response).toEqual(ok('m3', 11, []));
    expect(r.records.at(-1)).toEqual(
      currentAssignmentRecord(
        G,
        member('m3', { ...base, state: MemberState.UNRELEASED_PARTITIONS, memberEpoch: 11, previousMemberEpoch: 0 }),
        now,
      ),
    );
    expect(group.state).toBe('Reconciling');

    // m1 stays at 10 until it revokes foo-2 and bar-1; it is told what it keeps.
    r = beat(h, 'm1', 10);
    expect(r.response).toEqual(
      ok('m1', 10, [
        { topic: 'bar', partitions: [0] },
        { topic: 'foo', partitions: [0, 1] },
      ]),
    );
    const m1Revoking = member('m1', {
      ...base,
      state: MemberState.UNREVOKED_PARTITIONS,
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ foo: [0, 1], bar: [0] }),
      partitionsPendingRevocation: parts({ foo: [2], bar: [1] }),
    });
    expect(r.records).toEqual([currentAssignmentRecord(G, m1Revoking, now)]);
    expect(stateOf('m1')).toBe(MemberState.UNREVOKED_PARTITIONS);

    // m2 likewise must revoke foo-4 and foo-5.
    r = beat(h, 'm2', 10);
    expect(r.response).toEqual(
      ok('m2', 10, [
        { topic: 'bar', partitions: [2] },
        { topic: 'foo', partitions: [3] },
      ]),
    );
    const m2Revoking = member('m2', {
      ...base,
      state: MemberState.UNREVOKED_PARTITIONS,
      memberEpoch: 10,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ foo: [3], bar: [2] }),
      partitionsPendingRevocation: parts({ foo: [4, 5] }),
    });
    expect(r.records).toEqual([currentAssignmentRecord(G, m2Revoking, now)]);

    // m3 still waits: no assignment; only its previous epoch catches up.
    r = beat(h, 'm3', 11);
    expect(r.response).toEqual(ok('m3', 11));
    const m3Waiting = member('m3', {
      ...base,
      state: MemberState.UNRELEASED_PARTITIONS,
      memberEpoch: 11,
      previousMemberEpoch: 11,
    });
    expect(r.records).toEqual([currentAssignmentRecord(G, m3Waiting, now)]);

    // m1 acknowledges by reporting only what it keeps: it reaches epoch 11, stable.
    r = beat(h, 'm1', 10, [
      { topic: 'foo', partitions: [0, 1] },
      { topic: 'bar', partitions: [0] },
    ]);
    expect(r.response).toEqual(ok('m1', 11));
    const m1Stable = { ...m1Revoking, state: MemberState.STABLE, memberEpoch: 11, previousMemberEpoch: 10 };
    expect(r.records).toEqual([
      currentAssignmentRecord(G, { ...m1Stable, partitionsPendingRevocation: new Map() }, now),
    ]);
    expect(stateOf('m1')).toBe(MemberState.STABLE);
    expect(group.state).toBe('Reconciling');

    // m2 heartbeats without acknowledging: nothing changes.
    r = beat(h, 'm2', 10);
    expect(r.response).toEqual(ok('m2', 10));
    expect(r.records).toEqual([]);
    expect(stateOf('m2')).toBe(MemberState.UNREVOKED_PARTITIONS);

    // m3 gets bar-1, which m1 released, and keeps waiting for foo-4 and foo-5.
    r = beat(h, 'm3', 11);
    expect(r.response).toEqual(ok('m3', 11, [{ topic: 'bar', partitions: [1] }]));
    const m3Partly = { ...m3Waiting, assignedPartitions: parts({ bar: [1] }) };
    expect(r.records).toEqual([currentAssignmentRecord(G, m3Partly, now)]);

    // Again: m2 has not revoked, so m3 stays as it is and nothing is written.
    r = beat(h, 'm3', 11);
    expect(r.response).toEqual(ok('m3', 11));
    expect(r.records).toEqual([]);
    expect(stateOf('m3')).toBe(MemberState.UNRELEASED_PARTITIONS);

    // m2 acknowledges: epoch 11, and foo-2 (released by m1) is its at once.
    r = beat(h, 'm2', 10, [
      { topic: 'foo', partitions: [3] },
      { topic: 'bar', partitions: [2] },
    ]);
    expect(r.response).toEqual(
      ok('m2', 11, [
        { topic: 'bar', partitions: [2] },
        { topic: 'foo', partitions: [2, 3] },
      ]),
    );
    const m2Stable = member('m2', {
      ...base,
      state: MemberState.STABLE,
      memberEpoch: 11,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ foo: [2, 3], bar: [2] }),
    });
    expect(r.records).toEqual([currentAssignmentRecord(G, m2Stable, now)]);
    expect(group.state).toBe('Reconciling');

    // m3 acknowledges what it has and gets the rest: every member is stable, and so is the group.
    r = beat(h, 'm3', 11, [{ topic: 'bar', partitions: [1] }]);
    expect(r.response).toEqual(
      ok('m3', 11, [
        { topic: 'bar', partitions: [1] },
        { topic: 'foo', partitions: [4, 5] },
      ]),
    );
    const m3Stable = { ...m3Waiting, state: MemberState.STABLE, assignedPartitions: parts({ foo: [4, 5], bar: [1] }) };
    expect(r.records).toEqual([
      currentAssignmentRecord(G, m3Stable, now),
      // Cohort: the group converged; the epoch history records when.
      consumerGroupEpochRecord(G, 11, metadataHash({ foo: 6, bar: 3 }), now, [
        bump(11, 'member-joined', 'm3', 3, now, now),
      ]),
    ]);
    expect(stateOf('m3')).toBe(MemberState.STABLE);
    expect(group.state).toBe('Stable');
  });

  it('reconciles a revoking member towards a target installed meanwhile once it has revoked (testReconciliationRestartsWhenNewTargetAssignmentIsInstalled)', () => {
    // Kafka's case predates its Unreleased Partitions state: a revoking member then moved to a newer
    // target at its next heartbeat. Today a member must revoke first (Kafka's CurrentAssignmentBuilder
    // keeps an Unrevoked Partitions member as it is until it does), and then goes straight on to revoke
    // towards the newer target; this pins that.
    const { h, assignor, now } = setup({ foo: 6 });
    const m1 = member('m1', {
      memberEpoch: 10,
      previousMemberEpoch: 9,
      rebalanceTimeoutMs: 5000,
      assignedPartitions: parts({ foo: [0, 1, 2] }),
    });
    h.withGroup(G, 10, [m1], { m1: parts({ foo: [0, 1, 2] }) }, 10);
    const group = h.manager.group(G)!;

    assignor.prepareGroupAssignment({ m1: { foo: [0, 1] }, m2: { foo: [2] } });
    let r = h.heartbeat(join('m2'));
    expect(r.response).toEqual(ok('m2', 11, []));
    const m2 = member('m2', { rebalanceTimeoutMs: 5000, state: MemberState.UNRELEASED_PARTITIONS });
    expect(r.records.at(-1)).toEqual(
      currentAssignmentRecord(G, { ...m2, memberEpoch: 11, previousMemberEpoch: 0 }, now),
    );

    r = beat(h, 'm1', 10);
    expect(r.response).toEqual(ok('m1', 10, [{ topic: 'foo', partitions: [0, 1] }]));
    const revoking = {
      ...m1,
      state: MemberState.UNREVOKED_PARTITIONS,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ foo: [0, 1] }),
      partitionsPendingRevocation: parts({ foo: [2] }),
    };
    expect(r.records).toEqual([currentAssignmentRecord(G, revoking, now)]);

    // m3 joins: a newer target at epoch 12 takes foo-1 from m1 as well.
    assignor.prepareGroupAssignment({ m1: { foo: [0] }, m2: { foo: [2] }, m3: { foo: [1] } });
    r = h.heartbeat(join('m3'));
    expect(r.response).toEqual(ok('m3', 12, []));
    const m3 = member('m3', { rebalanceTimeoutMs: 5000, state: MemberState.UNRELEASED_PARTITIONS });
    expect(r.records.at(-1)).toEqual(
      currentAssignmentRecord(G, { ...m3, memberEpoch: 12, previousMemberEpoch: 0 }, now),
    );

    // m1 has not said it revoked foo-2: it stays as it is.
    r = beat(h, 'm1', 10);
    expect(r.response).toEqual(ok('m1', 10));
    expect(r.records).toEqual([]);

    // Once it has, it moves to epoch 11 and at once starts revoking foo-1 for epoch 12.
    r = beat(h, 'm1', 10, [{ topic: 'foo', partitions: [0, 1] }]);
    expect(r.response).toEqual(ok('m1', 11, [{ topic: 'foo', partitions: [0] }]));
    const revokingAgain = {
      ...revoking,
      memberEpoch: 11,
      previousMemberEpoch: 10,
      assignedPartitions: parts({ foo: [0] }),
      partitionsPendingRevocation: parts({ foo: [1] }),
    };
    expect(r.records).toEqual([currentAssignmentRecord(G, revokingAgain, now)]);
    expect(group.member('m1')!.state).toBe(MemberState.UNREVOKED_PARTITIONS);

    // foo-2 is free now: m2 reaches epoch 12 with it.
    r = beat(h, 'm2', 11);
    expect(r.response).toEqual(ok('m2', 12, [{ topic: 'foo', partitions: [2] }]));
    const m2Stable = {
      ...m2,
      state: MemberState.STABLE,
      memberEpoch: 12,
      previousMemberEpoch: 11,
      assignedPartitions: parts({ foo: [2] }),
    };
    expect(r.records).toEqual([currentAssignmentRecord(G, m2Stable, now)]);

    // m3 waits for foo-1 until m1 gives it up.
    expect(beat(h, 'm3', 12).response).toEqual(ok('m3', 12));
    expect(group.member('m3')!.state).toBe(MemberState.UNRELEASED_PARTITIONS);
    expect(beat(h, 'm1', 11, [{ topic: 'foo', partitions: [0] }]).response).toEqual(ok('m1', 12));
    expect(beat(h, 'm3', 12).response).toEqual(ok('m3', 12, [{ topic: 'foo', partitions: [1] }]));
    expect(group.state).toBe('Stable');
  });
});
