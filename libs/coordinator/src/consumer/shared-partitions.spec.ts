import { createUniformAssignor } from '@cohort/assignors';
import { ConsumerGroupHarness } from '@cohort/coordinator/testing';
import { ConsumerGroup } from './consumer-group';
import { MapConsumerGroupStore, replayConsumerRecord } from './consumer-group-replay';
import { newConsumerGroupMember, updatedMember } from './consumer-group-member';
import type { ConsumerGroupHeartbeatRequest } from './consumer-heartbeat.types';
import {
  consumerGroupEpochRecord,
  currentAssignmentRecord,
  decodeConsumerGroupMetadataValue,
  decodeConsumerRecordKey,
  decodeTargetAssignmentMemberValue,
  targetAssignmentRecord,
} from './consumer-records';
import { persistBumps } from './epoch-history';
import { CurrentAssignmentBuilder } from './current-assignment-builder';
import { BatchTells } from './heartbeat-batch-tells';
import { MemberState } from './member-state';
import {
  fromTopicPartitionList,
  NO_PARTITIONS,
  toTopicPartitionList,
  topicPartitionListJson,
  type TopicPartitions,
} from './topic-partitions';
import { valueToReplay } from './written-bytes';

// A member's partitions are built once and shared (nothing mutates them): a record applied as it is
// written, a target the assignor left unchanged and a reconciliation that keeps what the member holds
// reuse the maps already held instead of copies, and what reads them (the partition epochs, the pushes
// a batch owes) sees a member that only changed epoch. What a replay of the bytes gives is unchanged.

function parts(byTopic: Record<string, number[]>): TopicPartitions {
  return new Map(Object.entries(byTopic).map(([topic, ps]) => [topic, new Set(ps)]));
}

describe('partitions shared instead of copied', () => {
  it('a list made from partitions reads back as those very partitions, and lists and encodes as any list', () => {
    const held = parts({ b: [3, 1], a: [2] });
    const list = toTopicPartitionList(held);
    expect(fromTopicPartitionList(list)).toBe(held);
    expect(list).toEqual([
      { topic: 'a', partitions: [2] },
      { topic: 'b', partitions: [1, 3] },
    ]);
    expect(JSON.stringify(list)).toBe('[{"topic":"a","partitions":[2]},{"topic":"b","partitions":[1,3]}]');
    expect(Object.keys(list)).toEqual(['0', '1']);
    expect(fromTopicPartitionList(toTopicPartitionList(NO_PARTITIONS))).toBe(NO_PARTITIONS);
  });

  it('a list from elsewhere (the wire, a log) reads as new partitions, and one with an empty topic reads without it', () => {
    const read = fromTopicPartitionList([{ topic: 'a', partitions: [2] }]);
    expect(read).toEqual(parts({ a: [2] }));
    const withEmpty = new Map([
      ['a', new Set([1])],
      ['b', new Set<number>()],
    ]);
    const back = fromTopicPartitionList(toTopicPartitionList(withEmpty));
    expect(back).not.toBe(withEmpty);
    expect(back).toEqual(parts({ a: [1] }));
  });

  it('a member moving to another epoch with the same partitions moves their epochs, all or nothing', () => {
    const group = new ConsumerGroup('g');
    const held = parts({ t: [0, 1] });
    const member = newConsumerGroupMember('m', { memberEpoch: 3, assignedPartitions: held });
    group.updateMember(member);
    group.updateMember(updatedMember(member, { memberEpoch: 4, previousMemberEpoch: 3 }));
    expect([group.currentPartitionEpoch('t', 0), group.currentPartitionEpoch('t', 1)]).toEqual([4, 4]);

    // The index disagrees with the member (another member's record took partition 1 meanwhile): refused whole.
    const other = newConsumerGroupMember('o', { memberEpoch: 9, assignedPartitions: parts({ u: [0] }) });
    group.updateMember(other);
    group.removePartitionEpochs(parts({ t: [1] }), 4);
    group.addPartitionEpochs(parts({ t: [1] }), 9);
    expect(() => group.updateMember(updatedMember(group.member('m')!, { memberEpoch: 5 }))).toThrow(
      /Cannot remove the epoch 4 from t-1 because the partition is still owned at a different epoch 9/,
    );
    expect([group.currentPartitionEpoch('t', 0), group.currentPartitionEpoch('t', 1)]).toEqual([4, 9]);
    expect(group.member('m')!.memberEpoch).toBe(4);
  });

  it('a member holding exactly its target keeps its own partitions at the new epoch; one given its whole target holds the target', () => {
    const assigned = parts({ t: [0, 1] });
    const steady = newConsumerGroupMember('m', {
      memberEpoch: 3,
      previousMemberEpoch: 2,
      subscribedTopicNames: new Set(['t']),
      assignedPartitions: assigned,
    });
    const moved = new CurrentAssignmentBuilder(steady).withTargetAssignment(4, parts({ t: [1, 0] })).build();
    expect(moved).toEqual({ ...steady, memberEpoch: 4, previousMemberEpoch: 3, state: MemberState.STABLE });
    expect(moved.assignedPartitions).toBe(assigned);

    const target = parts({ t: [0, 1, 2] });
    const grown = new CurrentAssignmentBuilder(steady)
      .withTargetAssignment(4, target)
      .withCurrentPartitionEpoch(() => -1)
      .build();
    expect(grown.assignedPartitions).toEqual(target);
    expect(grown.assignedPartitions).toBe(target);

    // A topic the member no longer subscribes to is not kept, whatever the target says.
    const unsubscribed = new CurrentAssignmentBuilder({ ...steady, subscribedTopicNames: new Set(['x']) })
      .withTargetAssignment(4, parts({ t: [0, 1] }))
      .withOwnedTopicPartitions([{ topic: 't', partitions: [0, 1] }])
      .build();
    expect(unsubscribed.state).toBe(MemberState.UNREVOKED_PARTITIONS);
    expect(unsubscribed.partitionsPendingRevocation).toEqual(parts({ t: [0, 1] }));
  });

  it('a member that only changed epoch releases nothing a waiting member could be pushed for', () => {
    const group = new ConsumerGroup('g');
    const held = parts({ t: [0] });
    const before = newConsumerGroupMember('m', { memberEpoch: 3, assignedPartitions: held });
    group.updateMember(before);
    group.updateTargetAssignment('w', parts({ t: [0] }));
    group.updateMember(newConsumerGroupMember('w', { memberEpoch: 4, state: MemberState.UNRELEASED_PARTITIONS }));
    const tells = new BatchTells();
    tells.released(group, before, updatedMember(before, { memberEpoch: 4 }));
    expect(tells.due.size).toBe(0);
    tells.released(group, before, updatedMember(before, { memberEpoch: 4, assignedPartitions: NO_PARTITIONS }));
    expect([...(tells.due.get('g') ?? [])]).toEqual(['w']);
  });

  it('a group formed by heartbeats holds each stable member partitions as its target, and its log replays to the same group', () => {
    const h = new ConsumerGroupHarness({ assignors: [createUniformAssignor()], topics: { t: 12 } });
    const join = (memberId: string): ConsumerGroupHeartbeatRequest => ({
      groupId: 'g',
      memberId,
      memberEpoch: 0,
      rebalanceTimeoutMs: 60_000,
      subscribedTopicNames: ['t'],
      topicPartitions: [],
    });
    h.heartbeatBatch(['a', 'b', 'c'].map(join));
    const live = h.groups.get('g')!;
    expect(live.state).toBe('Stable');
    for (const member of live.members.values())
      expect(member.assignedPartitions).toBe(live.targetAssignmentOf(member.memberId));

    const loaded = h.reloaded().get('g')!;
    expect(loaded.groupEpoch).toBe(live.groupEpoch);
    expect(loaded.assignmentEpoch).toBe(live.assignmentEpoch);
    for (const member of live.members.values()) {
      const replayed = loaded.member(member.memberId)!;
      expect(replayed).toEqual(member);
      for (const [topic, set] of member.assignedPartitions)
        for (const p of set) expect(loaded.currentPartitionEpoch(topic, p)).toBe(member.memberEpoch);
    }
  });
});

describe('records written without building what is never written', () => {
  it('an epoch record with a history is encoded only when its bytes are read, to the bytes of the plain JSON, and replays before', () => {
    const bump = {
      groupEpoch: 3,
      reason: 'member-joined' as const,
      memberId: 'm',
      startedAt: 10,
      completedAt: null,
      members: 1,
    };
    const stringify = jest.spyOn(JSON, 'stringify');
    // The bump's JSON (`[epoch, reason, ...]`); a key's JSON is an array too, but never of six.
    const historyEncoded = () => stringify.mock.calls.some(([value]) => Array.isArray(value) && value.length === 6);
    const record = consumerGroupEpochRecord('g', 3, 42, 10, [bump]);
    try {
      // Replayed as written (the live path) and checked for a later record (a burst's step): no bytes made.
      const store = new MapConsumerGroupStore();
      replayConsumerRecord(store, decodeConsumerRecordKey(record.key)!, valueToReplay(record));
      expect(store.get('g')!.groupEpoch).toBe(3);
      expect(store.get('g')!.history.entries).toEqual([bump]);
      expect(decodeConsumerGroupMetadataValue(valueToReplay(record)!).history).toEqual([bump]);
      expect(historyEncoded()).toBe(false);
      expect(record.value).toBe(record.value);
      expect(historyEncoded()).toBe(true);
    } finally {
      stringify.mockRestore();
    }
    const plain = JSON.stringify({ v: 0, epoch: 3, metadataHash: 42, history: persistBumps([bump]) });
    expect(record.value!.toString('utf8')).toBe(plain);
    expect({ ...record }.value!.toString('utf8')).toBe(plain);
  });

  it('assignment records write the bytes of the plain JSON value, each partition list made once per map', () => {
    const target = parts({ 'quoted"topic': [4, 1], other: [0] });
    const member = newConsumerGroupMember('m', {
      memberEpoch: 7,
      previousMemberEpoch: 6,
      state: MemberState.UNRELEASED_PARTITIONS,
      assignedPartitions: target,
      partitionsPendingRevocation: parts({ gone: [2] }),
    });
    const current = currentAssignmentRecord('g', member, 5);
    expect(current.value!.toString('utf8')).toBe(
      JSON.stringify({
        v: 0,
        memberEpoch: 7,
        previousMemberEpoch: 6,
        state: MemberState.UNRELEASED_PARTITIONS,
        assignedPartitions: toTopicPartitionList(target),
        partitionsPendingRevocation: [{ topic: 'gone', partitions: [2] }],
      }),
    );
    const targetRecord = targetAssignmentRecord('g', 'm', target, 5);
    expect(targetRecord.value!.toString('utf8')).toBe(
      JSON.stringify({ v: 0, topicPartitions: toTopicPartitionList(target) }),
    );
    expect(decodeTargetAssignmentMemberValue(Buffer.from(targetRecord.value!))).toEqual({
      topicPartitions: [
        { topic: 'other', partitions: [0] },
        { topic: 'quoted"topic', partitions: [1, 4] },
      ],
    });
    expect(topicPartitionListJson(target)).toBe(topicPartitionListJson(target));
  });
});
