import type { LogRecord } from '@cohort/replication';
import { ConsumerGroup } from '../consumer/consumer-group';
import { newConsumerGroupMember } from '../consumer/consumer-group-member';
import { consumerGroupRecords } from '../consumer/consumer-group-records';
import { MapConsumerGroupStore, replayConsumerRecord } from '../consumer/consumer-group-replay';
import {
  currentAssignmentRecord,
  decodeConsumerRecordKey,
  memberSubscriptionRecord,
} from '../consumer/consumer-records';
import { MemberState } from '../consumer/member-state';
import type { TopicPartitions } from '../consumer/topic-partitions';
import { PartitionReplay } from './partition-replay';

const NOW = 5_000;

function parts(byTopic: Record<string, number[]>): TopicPartitions {
  return new Map(Object.entries(byTopic).map(([topic, ps]) => [topic, new Set(ps)]));
}

function member(memberId: string, memberEpoch: number, assigned: Record<string, number[]>) {
  return newConsumerGroupMember(memberId, {
    memberEpoch,
    previousMemberEpoch: memberEpoch - 1,
    state: MemberState.STABLE,
    rebalanceTimeoutMs: 2_000,
    clientId: memberId,
    clientHost: 'host',
    subscribedTopicNames: new Set(['clicks', 'orders']),
    assignedPartitions: parts(assigned),
  });
}

/** The group as the leader holds it at epoch 7, after m6 was fenced, rejoined and partitions moved. */
function groupAtEpoch7(): ConsumerGroup {
  const group = new ConsumerGroup('cg');
  group.updateMember(member('m5', 7, { clicks: [0, 2, 3], orders: [2] }));
  group.updateMember(member('m6', 7, { clicks: [1, 4], orders: [3] }));
  group.setGroupEpoch(7);
  group.updateTargetAssignment('m5', parts({ clicks: [0, 2, 3], orders: [2] }));
  group.updateTargetAssignment('m6', parts({ clicks: [1, 4], orders: [3] }));
  group.setTargetAssignmentEpoch(7);
  return group;
}

/**
 * A follower's log after it fell behind and caught up from a compacted leader: its own old records of
 * epoch 4 (not cleaned here yet), then only what the leader's cleaner kept — each key's latest value.
 * The records in between (m6's fencing tombstones, the epochs 5 and 6) are gone.
 */
function followerLog(): LogRecord[] {
  const m5 = member('m5', 4, { clicks: [2], orders: [2, 3] });
  const m6 = member('m6', 4, { clicks: [3, 4] });
  return [
    memberSubscriptionRecord('cg', m5, NOW),
    memberSubscriptionRecord('cg', m6, NOW),
    currentAssignmentRecord('cg', m5, NOW),
    currentAssignmentRecord('cg', m6, NOW),
    ...consumerGroupRecords(groupAtEpoch7(), NOW + 1),
  ];
}

describe('loading consumer groups from a compacted log', () => {
  it('brings every member back at its latest assignment when older, stale assignments precede it', () => {
    const warnings: string[] = [];
    const replay = new PartitionReplay((message) => warnings.push(message));
    followerLog().forEach((record, offset) => replay.apply({ ...record, offset, leaderEpoch: 0 }));

    const [loaded] = replay.consumerGroups();
    expect(warnings).toEqual([]);
    expect(replay.skipped).toBe(0);
    expect(loaded.member('m5')!.memberEpoch).toBe(7);
    expect(loaded.member('m6')!.memberEpoch).toBe(7);
    // Exactly the group the leader had in memory: members, targets and who owns each partition.
    expect(loaded).toEqual(groupAtEpoch7());
    expect(loaded.currentPartitionEpoch('clicks', 3)).toBe(7);
    expect(loaded.currentPartitionEpoch('orders', 3)).toBe(7);
  });

  it('still refuses, on the live path, a record giving a partition its owner holds (an illegal state in Kafka)', () => {
    const store = new MapConsumerGroupStore();
    const apply = (record: LogRecord) =>
      replayConsumerRecord(store, decodeConsumerRecordKey(record.key)!, record.value);
    followerLog().slice(0, 4).forEach(apply);
    expect(() => apply(currentAssignmentRecord('cg', member('m5', 7, { clicks: [3] }), NOW))).toThrow(
      /clicks-3 to 7 because the partition is still owned at epoch 4/,
    );
  });
});
