import type { LogRecord } from '@cohort/replication';
import { RecordDecodeError } from '../records/record-codec';
import { ConsumerGroup } from './consumer-group';
import { newConsumerGroupMember, updatedMember } from './consumer-group-member';
import { consumerGroupRecords, consumerGroupTombstones, memberTombstones } from './consumer-group-records';
import { LEAVE_GROUP_MEMBER_EPOCH, MapConsumerGroupStore, replayConsumerRecord } from './consumer-group-replay';
import { currentAssignmentRecord, decodeConsumerRecordKey, memberSubscriptionTombstone } from './consumer-records';
import { MemberState } from './member-state';
import type { TopicPartitions } from './topic-partitions';

const NOW = 5_000;

function parts(byTopic: Record<string, number[]>): TopicPartitions {
  return new Map(Object.entries(byTopic).map(([topic, ps]) => [topic, new Set(ps)]));
}

/** Records through their bytes, as a load reads them back from the log. */
function replayAll(store: MapConsumerGroupStore, records: LogRecord[]): void {
  for (const record of records) {
    // Copies: the records' own buffers are known to the process that built them, and not decoded again.
    const key = decodeConsumerRecordKey(Buffer.from(record.key));
    if (!key) throw new Error(`not a consumer group record: ${record.key.toString()}`);
    replayConsumerRecord(store, key, record.value && Buffer.from(record.value));
  }
}

/** A group in the middle of a rebalance: a static member, a regex member, a revocation and an unreleased partition. */
function reconcilingGroup(): ConsumerGroup {
  const group = new ConsumerGroup('orders-app');
  group.metadataHash = 123456789;
  group.updateMember(
    newConsumerGroupMember('m1', {
      memberEpoch: 6,
      previousMemberEpoch: 5,
      state: MemberState.UNREVOKED_PARTITIONS,
      instanceId: 'pod-1',
      rackId: 'rack-a',
      rebalanceTimeoutMs: 30_000,
      clientId: 'app',
      clientHost: '/10.0.0.1',
      subscribedTopicNames: new Set(['orders', 'payments']),
      serverAssignorName: 'range',
      assignedPartitions: parts({ orders: [0, 1], payments: [0] }),
      partitionsPendingRevocation: parts({ orders: [2] }),
    }),
  );
  group.updateMember(
    newConsumerGroupMember('m2', {
      memberEpoch: 7,
      previousMemberEpoch: 6,
      state: MemberState.UNRELEASED_PARTITIONS,
      rebalanceTimeoutMs: 45_000,
      clientId: 'app',
      clientHost: '/10.0.0.2',
      subscribedTopicRegex: 'pay.*',
      assignedPartitions: parts({ payments: [1] }),
    }),
  );
  group.setGroupEpoch(7);
  group.updateTargetAssignment('m1', parts({ orders: [0, 1], payments: [0] }));
  group.updateTargetAssignment('m2', parts({ orders: [2], payments: [1] }));
  group.setTargetAssignmentEpoch(7);
  return group;
}

describe('consumer group records and their replay', () => {
  it('brings back a group written as records exactly as it was: epochs, members, targets and partition owners', () => {
    const original = reconcilingGroup();
    const store = new MapConsumerGroupStore();
    replayAll(store, consumerGroupRecords(original, NOW));

    const replayed = store.get('orders-app')!;
    expect(replayed).toEqual(original);
    expect(replayed.state).toBe('Reconciling');
    expect(replayed.groupEpoch).toBe(7);
    expect(replayed.assignmentEpoch).toBe(7);
    expect(replayed.member('m1')).toEqual(original.member('m1'));
    expect(replayed.currentPartitionEpoch('orders', 2)).toBe(6);
    expect(replayed.currentPartitionEpoch('payments', 1)).toBe(7);
    expect(replayed.staticMemberId('pod-1')).toBe('m1');
    expect(replayed.invertedTargetAssignment.get('orders')?.get(2)).toBe('m2');
    expect(replayed.waitingOnUnreleasedPartition(replayed.member('m2')!)).toBe(true);
    expect(replayed.preferredServerAssignor()).toBe('range');
  });

  it('ends with the later record of a key winning, as compaction keeps it', () => {
    const original = reconcilingGroup();
    const store = new MapConsumerGroupStore();
    replayAll(store, consumerGroupRecords(original, NOW));
    const stable = updatedMember(original.member('m1')!, {
      state: MemberState.STABLE,
      memberEpoch: 7,
      previousMemberEpoch: 6,
      partitionsPendingRevocation: new Map(),
    });
    replayAll(store, [currentAssignmentRecord('orders-app', stable, NOW + 1)]);
    expect(store.get('orders-app')!.member('m1')).toEqual(stable);
    expect(store.get('orders-app')!.currentPartitionEpoch('orders', 2)).toBe(-1);
  });

  it("removes a member whose tombstones come in Kafka's order, releasing its partitions", () => {
    const store = new MapConsumerGroupStore();
    replayAll(store, consumerGroupRecords(reconcilingGroup(), NOW));
    replayAll(store, memberTombstones('orders-app', 'm1', NOW));
    const group = store.get('orders-app')!;
    expect(group.member('m1')).toBeUndefined();
    expect(group.staticMemberId('pod-1')).toBeUndefined();
    expect(group.currentPartitionEpoch('orders', 0)).toBe(-1);
    expect(group.targetAssignment.has('m1')).toBe(false);
    expect(group.subscribedTopicNames.has('orders')).toBe(false);
  });

  it('refuses to remove a member whose current assignment was not deleted first (an illegal state in Kafka)', () => {
    const store = new MapConsumerGroupStore();
    replayAll(store, consumerGroupRecords(reconcilingGroup(), NOW));
    expect(() => replayAll(store, [memberSubscriptionTombstone('orders-app', 'm1', NOW)])).toThrow(
      /did not receive ConsumerGroupCurrentMemberAssignmentValue tombstone/,
    );
  });

  it('leaves a member at the leave epoch owning nothing after its current assignment tombstone', () => {
    const store = new MapConsumerGroupStore();
    replayAll(store, consumerGroupRecords(reconcilingGroup(), NOW));
    replayAll(store, memberTombstones('orders-app', 'm2', NOW).slice(0, 1));
    const m2 = store.get('orders-app')!.member('m2')!;
    expect(m2.memberEpoch).toBe(LEAVE_GROUP_MEMBER_EPOCH);
    expect(m2.previousMemberEpoch).toBe(LEAVE_GROUP_MEMBER_EPOCH);
    expect(m2.assignedPartitions.size).toBe(0);
  });

  it('deletes the whole group with its tombstones, and ignores tombstones of a group it does not hold', () => {
    const original = reconcilingGroup();
    const store = new MapConsumerGroupStore();
    replayAll(store, consumerGroupRecords(original, NOW));
    replayAll(store, consumerGroupTombstones(original, NOW));
    expect(store.get('orders-app')).toBeUndefined();

    replayAll(store, consumerGroupTombstones(original, NOW));
    expect(store.groups.size).toBe(0);
  });

  it('reads a member state a newer coordinator wrote as UNKNOWN', () => {
    const store = new MapConsumerGroupStore();
    const record = currentAssignmentRecord('g', newConsumerGroupMember('m'), NOW);
    const value = JSON.parse(record.value!.toString()) as Record<string, unknown>;
    value.state = 3;
    replayAll(store, [{ ...record, value: Buffer.from(JSON.stringify(value)) }]);
    expect(store.get('g')!.member('m')!.state).toBe(MemberState.UNKNOWN);
  });

  it('rejects a value that is not a consumer group record with a decode error, changing nothing', () => {
    const store = new MapConsumerGroupStore();
    const record = currentAssignmentRecord('g', newConsumerGroupMember('m'), NOW);
    expect(() => replayAll(store, [{ ...record, value: Buffer.from('{"v":0,"memberEpoch":"x"}') }])).toThrow(
      RecordDecodeError,
    );
    expect(store.get('g')).toBeUndefined();
  });

  it('tells consumer group keys apart from other record keys', () => {
    expect(decodeConsumerRecordKey(Buffer.from('[2,"g"]'))).toBeUndefined();
    expect(decodeConsumerRecordKey(Buffer.from('[1,"g","t",0]'))).toBeUndefined();
    expect(decodeConsumerRecordKey(Buffer.from('[8,"g","m"]'))).toEqual({
      type: 'consumer-group-current-member-assignment',
      groupId: 'g',
      memberId: 'm',
    });
  });
});
