// Port of Kafka's RangeAssignorTest (clients/src/test/java/org/apache/kafka/clients/consumer), with
// Kafka's expected assignments. Each rack-config variant builds the same racks Kafka's fixtures do.
import type { MemberSubscription } from '../api/partition-assignor';
import {
  ALL_RACKS,
  ClusterBuilder,
  RACK_CONFIGS,
  flat,
  nullRacks,
  racks,
  replicaRacksWithRackCount,
  verifyRackAssignment,
  type AssignFn,
  type RackConfig,
} from '@cohort/assignors/testing';
import { createRangeAssignor } from './range-assignor';

const topic1 = 'topic1';
const topic2 = 'topic2';

interface Racks {
  replicationFactor: number;
  numBrokerRacks: number;
  hasConsumerRack: boolean;
}

function initializeRacks(config: RackConfig, maxConsumers = 3): Racks {
  return {
    replicationFactor: maxConsumers,
    numBrokerRacks: config !== 'NO_BROKER_RACK' ? maxConsumers : 0,
    hasConsumerRack: config !== 'NO_CONSUMER_RACK',
  };
}

function member(
  r: Racks,
  memberId: string,
  topics: string[],
  consumerIndex: number,
  groupInstanceId?: string,
): MemberSubscription {
  const numRacks = r.numBrokerRacks > 0 ? r.numBrokerRacks : ALL_RACKS.length;
  const rackId = r.hasConsumerRack ? ALL_RACKS[consumerIndex % numRacks] : null;
  return {
    memberId,
    groupInstanceId: groupInstanceId ?? null,
    subscription: { topics, ownedPartitions: [], generationId: -1, rackId },
  };
}

function cluster(r: Racks, topics: Record<string, number>): ClusterBuilder {
  const builder = new ClusterBuilder();
  for (const [topic, count] of Object.entries(topics))
    builder.put(topic, count, replicaRacksWithRackCount(count, r.replicationFactor, r.numBrokerRacks, 0));
  return builder;
}

// Kafka's tests always turn preferRackAwareLogic on in initializeRacks.
const assignor = createRangeAssignor({ preferRackAwareLogic: true });

describe('range assignor (Kafka RangeAssignorTest)', () => {
  it.each([true, false])('assigns nothing to one consumer with no topic (consumer rack: %s)', (hasRack) => {
    const r = initializeRacks(hasRack ? 'BROKER_AND_CONSUMER_RACK' : 'NO_CONSUMER_RACK');
    const result = assignor.assign(cluster(r, {}).view(), [member(r, 'consumer1', [], 0)]);
    expect(Object.keys(result)).toEqual(['consumer1']);
    expect(flat(result.consumer1)).toEqual([]);
  });

  it.each([true, false])('assigns nothing for a nonexistent topic (consumer rack: %s)', (hasRack) => {
    const r = initializeRacks(hasRack ? 'BROKER_AND_CONSUMER_RACK' : 'NO_CONSUMER_RACK');
    const result = assignor.assign(cluster(r, {}).view(), [member(r, 'consumer1', [topic1], 0)]);
    expect(Object.keys(result)).toEqual(['consumer1']);
    expect(flat(result.consumer1)).toEqual([]);
  });

  describe.each(RACK_CONFIGS)('rack config %s', (config) => {
    const r = initializeRacks(config);

    it('gives one consumer all partitions of its topic', () => {
      const result = assignor.assign(cluster(r, { topic1: 3 }).view(), [member(r, 'consumer1', [topic1], 0)]);
      expect(flat(result.consumer1)).toEqual(['topic1-0', 'topic1-1', 'topic1-2']);
    });

    it('only assigns partitions from subscribed topics', () => {
      const result = assignor.assign(cluster(r, { topic1: 3, other: 3 }).view(), [member(r, 'consumer1', [topic1], 0)]);
      expect(Object.keys(result)).toEqual(['consumer1']);
      expect(flat(result.consumer1)).toEqual(['topic1-0', 'topic1-1', 'topic1-2']);
    });

    it('gives one consumer all partitions of several topics', () => {
      const result = assignor.assign(cluster(r, { topic1: 1, topic2: 2 }).view(), [
        member(r, 'consumer1', [topic1, topic2], 0),
      ]);
      expect(flat(result.consumer1)).toEqual(['topic1-0', 'topic2-0', 'topic2-1']);
    });

    it('two consumers, one topic, one partition', () => {
      const result = assignor.assign(cluster(r, { topic1: 1 }).view(), [
        member(r, 'consumer1', [topic1], 0),
        member(r, 'consumer2', [topic1], 1),
      ]);
      expect(flat(result.consumer1)).toEqual(['topic1-0']);
      expect(flat(result.consumer2)).toEqual([]);
    });

    it('two consumers, one topic, two partitions', () => {
      const result = assignor.assign(cluster(r, { topic1: 2 }).view(), [
        member(r, 'consumer1', [topic1], 0),
        member(r, 'consumer2', [topic1], 1),
      ]);
      expect(flat(result.consumer1)).toEqual(['topic1-0']);
      expect(flat(result.consumer2)).toEqual(['topic1-1']);
    });

    it('multiple consumers with mixed topics', () => {
      const result = assignor.assign(cluster(r, { topic1: 3, topic2: 2 }).view(), [
        member(r, 'consumer1', [topic1], 0),
        member(r, 'consumer2', [topic1, topic2], 1),
        member(r, 'consumer3', [topic1], 2),
      ]);
      expect(flat(result.consumer1)).toEqual(['topic1-0']);
      expect(flat(result.consumer2)).toEqual(['topic1-1', 'topic2-0', 'topic2-1']);
      expect(flat(result.consumer3)).toEqual(['topic1-2']);
    });

    it('two consumers, two topics, six partitions', () => {
      const result = assignor.assign(cluster(r, { topic1: 3, topic2: 3 }).view(), [
        member(r, 'consumer1', [topic1, topic2], 0),
        member(r, 'consumer2', [topic1, topic2], 1),
      ]);
      expect(flat(result.consumer1)).toEqual(['topic1-0', 'topic1-1', 'topic2-0', 'topic2-1']);
      expect(flat(result.consumer2)).toEqual(['topic1-2', 'topic2-2']);
    });

    it('orders two static consumers by instance id, not member id', () => {
      const result = assignor.assign(cluster(r, { topic1: 3, topic2: 3 }).view(), [
        member(r, 'consumer-b', [topic1, topic2], 0, 'instance1'),
        member(r, 'consumer-a', [topic1, topic2], 1, 'instance2'),
      ]);
      expect(flat(result['consumer-b'])).toEqual(['topic1-0', 'topic1-1', 'topic2-0', 'topic2-1']);
      expect(flat(result['consumer-a'])).toEqual(['topic1-2', 'topic2-2']);
    });

    it('puts a static consumer before a dynamic one', () => {
      const result = assignor.assign(cluster(r, { topic1: 3, topic2: 3 }).view(), [
        member(r, 'consumer-b', [topic1, topic2], 0, 'instance1'),
        member(r, 'consumer-a', [topic1, topic2], 1),
      ]);
      expect(flat(result['consumer-b'])).toEqual(['topic1-0', 'topic1-1', 'topic2-0', 'topic2-1']);
      expect(flat(result['consumer-a'])).toEqual(['topic1-2', 'topic2-2']);
    });

    it('keeps static members persistent when a dynamic member is replaced', () => {
      const r5 = initializeRacks(config, 5);
      const view = cluster(r5, { topic1: 5, topic2: 4 }).view();
      const statics = [
        member(r5, 'consumer1', [topic1, topic2], 0, 'instance1'),
        member(r5, 'consumer2', [topic1, topic2], 1, 'instance2'),
        member(r5, 'consumer3', [topic1, topic2], 2, 'instance3'),
      ];
      const first = assignor.assign(view, [...statics, member(r5, 'consumer4', [topic1, topic2], 3)]);
      const expected = {
        consumer1: ['topic1-0', 'topic1-1', 'topic2-0'],
        consumer2: ['topic1-2', 'topic2-1'],
        consumer3: ['topic1-3', 'topic2-2'],
      };
      expect(Object.fromEntries(Object.entries(first).map(([id, a]) => [id, flat(a)]))).toEqual({
        ...expected,
        consumer4: ['topic1-4', 'topic2-3'],
      });
      const second = assignor.assign(view, [...statics, member(r5, 'consumer5', [topic1, topic2], 4)]);
      expect(Object.fromEntries(Object.entries(second).map(([id, a]) => [id, flat(a)]))).toEqual({
        ...expected,
        consumer5: ['topic1-4', 'topic2-3'],
      });
    });

    it('keeps static members persistent after their member ids change', () => {
      const view = cluster(r, { topic1: 5, topic2: 5 }).view();
      const byInstance = (members: MemberSubscription[]): Record<string, string[]> => {
        const result = assignor.assign(view, members);
        return Object.fromEntries(members.map((m) => [m.groupInstanceId as string, flat(result[m.memberId])]));
      };
      const before = byInstance([
        member(r, 'consumer1', [topic1, topic2], 0, 'instance1'),
        member(r, 'consumer2', [topic1, topic2], 1, 'instance2'),
        member(r, 'consumer3', [topic1, topic2], 2, 'instance3'),
      ]);
      expect(before).toEqual({
        instance1: ['topic1-0', 'topic1-1', 'topic2-0', 'topic2-1'],
        instance2: ['topic1-2', 'topic1-3', 'topic2-2', 'topic2-3'],
        instance3: ['topic1-4', 'topic2-4'],
      });
      const after = byInstance([
        member(r, 'consumer1', [topic1, topic2], 0, 'instance1'),
        member(r, 'consumer4', [topic1, topic2], 2, 'instance3'),
        member(r, 'consumer5', [topic1, topic2], 1, 'instance2'),
      ]);
      expect(after).toEqual(before);
    });
  });

  describe('rack-aware assignment (KIP-881)', () => {
    // Kafka's assignor field preferRackAwareLogic is toggled between calls; we pass it per call.
    let prefer = false;
    const assign: AssignFn = (view, members) =>
      createRangeAssignor({ preferRackAwareLogic: prefer }).assign(view, members);
    beforeEach(() => {
      prefer = false;
    });

    function verifyNonRackAware(topics: [string, number][], consumerTopics: string[][], expected: string[]): void {
      verifyRackAssignment(assign, topics, 3, nullRacks(3), racks(3), consumerTopics, null, expected, -1);
      verifyRackAssignment(assign, topics, 3, racks(3), nullRacks(3), consumerTopics, null, expected, -1);
      verifyRackAssignment(assign, topics, 3, racks(3), racks(3), consumerTopics, null, expected, 0);
      verifyRackAssignment(assign, topics, 4, racks(4), racks(3), consumerTopics, null, expected, 0);
      verifyRackAssignment(assign, topics, 3, racks(3), ['d', 'e', 'f'], consumerTopics, null, expected, -1);
      verifyRackAssignment(assign, topics, 3, racks(3), [null, 'e', 'f'], consumerTopics, null, expected, -1);
      prefer = true;
      verifyRackAssignment(assign, topics, 3, racks(3), racks(3), consumerTopics, null, expected, 0);
      prefer = false;
    }

    const t123: [string, number][] = [
      ['t1', 6],
      ['t2', 7],
      ['t3', 2],
    ];
    const all = ['t1', 't2', 't3'];

    it('keeps static members on their rack-aligned ranges after member id changes', () => {
      const view = new ClusterBuilder()
        .put(topic1, 5, replicaRacksWithRackCount(5, 2, 3, 0))
        .put(topic2, 5, replicaRacksWithRackCount(5, 2, 3, 0))
        .view();
      const sub = (rack: string) => ({ topics: [topic1, topic2], ownedPartitions: [], generationId: -1, rackId: rack });
      const byInstance = (members: MemberSubscription[]): Record<string, string[]> => {
        const result = createRangeAssignor({ preferRackAwareLogic: true }).assign(view, members);
        return Object.fromEntries(members.map((m) => [m.groupInstanceId as string, flat(result[m.memberId])]));
      };
      const before = byInstance([
        { memberId: 'consumer1', groupInstanceId: 'instance1', subscription: sub('a') },
        { memberId: 'consumer2', groupInstanceId: 'instance2', subscription: sub('b') },
        { memberId: 'consumer3', groupInstanceId: 'instance3', subscription: sub('c') },
      ]);
      expect(before).toEqual({
        instance1: ['topic1-0', 'topic1-2', 'topic2-0', 'topic2-2'],
        instance2: ['topic1-1', 'topic1-3', 'topic2-1', 'topic2-3'],
        instance3: ['topic1-4', 'topic2-4'],
      });
      const after = byInstance([
        { memberId: 'consumer1', groupInstanceId: 'instance1', subscription: sub('a') },
        { memberId: 'consumer4', groupInstanceId: 'instance3', subscription: sub('c') },
        { memberId: 'consumer5', groupInstanceId: 'instance2', subscription: sub('b') },
      ]);
      expect(after).toEqual(before);
    });

    it('uniform subscription', () => {
      const consumerTopics = [all, all, all];
      verifyNonRackAware(t123, consumerTopics, [
        't1-0, t1-1, t2-0, t2-1, t2-2, t3-0',
        't1-2, t1-3, t2-3, t2-4, t3-1',
        't1-4, t1-5, t2-5, t2-6',
      ]);
      verifyRackAssignment(
        assign,
        t123,
        1,
        racks(3),
        racks(3),
        consumerTopics,
        null,
        ['t1-0, t1-3, t2-0, t2-3, t2-6', 't1-1, t1-4, t2-1, t2-4, t3-0', 't1-2, t1-5, t2-2, t2-5, t3-1'],
        0,
      );
      verifyRackAssignment(
        assign,
        t123,
        2,
        racks(3),
        racks(3),
        consumerTopics,
        null,
        ['t1-0, t1-2, t2-0, t2-2, t2-3, t3-1', 't1-1, t1-3, t2-1, t2-4, t3-0', 't1-4, t1-5, t2-5, t2-6'],
        1,
      );
      verifyRackAssignment(
        assign,
        t123,
        3,
        racks(2),
        racks(3),
        consumerTopics,
        null,
        ['t1-0, t1-1, t2-0, t2-1, t2-2, t3-0', 't1-2, t1-3, t2-3, t2-4, t3-1', 't1-4, t1-5, t2-5, t2-6'],
        4,
      );
    });

    it('non-equal subscription', () => {
      const consumerTopics = [all, all, ['t1', 't3']];
      verifyNonRackAware(t123, consumerTopics, [
        't1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0',
        't1-2, t1-3, t2-4, t2-5, t2-6, t3-1',
        't1-4, t1-5',
      ]);
      verifyRackAssignment(
        assign,
        t123,
        1,
        racks(3),
        racks(3),
        consumerTopics,
        null,
        ['t1-0, t1-3, t2-0, t2-2, t2-3, t2-6', 't1-1, t1-4, t2-1, t2-4, t2-5, t3-0', 't1-2, t1-5, t3-1'],
        2,
      );
      verifyRackAssignment(
        assign,
        t123,
        2,
        racks(3),
        racks(3),
        consumerTopics,
        null,
        ['t1-0, t1-2, t2-0, t2-2, t2-3, t2-5, t3-1', 't1-1, t1-3, t2-1, t2-4, t2-6, t3-0', 't1-4, t1-5'],
        0,
      );
      verifyRackAssignment(
        assign,
        t123,
        3,
        racks(2),
        racks(3),
        consumerTopics,
        null,
        ['t1-0, t1-1, t2-0, t2-1, t2-2, t2-3, t3-0', 't1-2, t1-3, t2-4, t2-5, t2-6, t3-1', 't1-4, t1-5'],
        2,
      );
    });

    const uniform5: [string, number][] = [
      ['t1', 5],
      ['t2', 5],
      ['t3', 5],
    ];

    it('prioritizes co-partitioning over rack alignment (uniform partitions)', () => {
      const consumerTopics = [all, all, all];
      const expected = ['t1-0, t1-1, t2-0, t2-1, t3-0, t3-1', 't1-2, t1-3, t2-2, t2-3, t3-2, t3-3', 't1-4, t2-4, t3-4'];
      verifyNonRackAware(uniform5, consumerTopics, expected);
      verifyRackAssignment(assign, uniform5, 1, racks(3), racks(3), consumerTopics, null, expected, 10);
      verifyRackAssignment(assign, uniform5, 2, racks(3), racks(3), consumerTopics, null, expected, 5);
      verifyRackAssignment(assign, uniform5, 3, racks(2), racks(3), consumerTopics, null, expected, 3);
    });

    it('co-partitions topics with equal subscriptions (uniform partitions, non-equal subscription)', () => {
      const consumerTopics = [all, all, ['t1', 't3']];
      verifyNonRackAware(uniform5, consumerTopics, [
        't1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1',
        't1-2, t1-3, t2-3, t2-4, t3-2, t3-3',
        't1-4, t3-4',
      ]);
      verifyRackAssignment(
        assign,
        uniform5,
        1,
        racks(3),
        racks(3),
        consumerTopics,
        null,
        ['t1-0, t1-1, t2-0, t2-1, t2-4, t3-0, t3-1', 't1-2, t1-3, t2-2, t2-3, t3-2, t3-3', 't1-4, t3-4'],
        9,
      );
      verifyRackAssignment(
        assign,
        uniform5,
        2,
        racks(3),
        racks(3),
        consumerTopics,
        null,
        ['t1-2, t2-0, t2-1, t2-3, t3-2', 't1-0, t1-3, t2-2, t2-4, t3-0, t3-3', 't1-1, t1-4, t3-1, t3-4'],
        0,
      );
      verifyRackAssignment(
        assign,
        uniform5,
        3,
        racks(2),
        racks(3),
        consumerTopics,
        null,
        ['t1-0, t1-1, t2-0, t2-1, t2-2, t3-0, t3-1', 't1-2, t1-3, t2-3, t2-4, t3-2, t3-3', 't1-4, t3-4'],
        2,
      );
    });

    it('co-partitioning', () => {
      const topics: [string, number][] = [
        ['t1', 6],
        ['t2', 6],
        ['t3', 2],
        ['t4', 2],
      ];
      const consumerRacks = ['a', 'b', 'b', 'a'];
      let consumerTopics = [
        ['t1', 't2'],
        ['t1', 't2'],
        ['t3', 't4'],
        ['t3', 't4'],
      ];
      let nonRackAware = [
        't1-0, t1-1, t1-2, t2-0, t2-1, t2-2',
        't1-3, t1-4, t1-5, t2-3, t2-4, t2-5',
        't3-0, t4-0',
        't3-1, t4-1',
      ];
      verifyRackAssignment(assign, topics, 3, racks(2), consumerRacks, consumerTopics, null, nonRackAware, -1);
      verifyRackAssignment(assign, topics, 2, racks(2), consumerRacks, consumerTopics, null, nonRackAware, 0);
      verifyRackAssignment(
        assign,
        topics,
        1,
        racks(2),
        consumerRacks,
        consumerTopics,
        null,
        ['t1-0, t1-2, t1-4, t2-0, t2-2, t2-4', 't1-1, t1-3, t1-5, t2-1, t2-3, t2-5', 't3-1, t4-1', 't3-0, t4-0'],
        0,
      );
      const allFour = ['t1', 't2', 't3', 't4'];
      consumerTopics = [allFour, allFour, allFour, allFour];
      nonRackAware = [
        't1-0, t1-1, t2-0, t2-1, t3-0, t4-0',
        't1-2, t1-3, t2-2, t2-3, t3-1, t4-1',
        't1-4, t2-4',
        't1-5, t2-5',
      ];
      verifyRackAssignment(assign, topics, 3, racks(2), consumerRacks, consumerTopics, null, nonRackAware, -1);
      verifyRackAssignment(assign, topics, 2, racks(2), consumerRacks, consumerTopics, null, nonRackAware, 0);
      verifyRackAssignment(
        assign,
        topics,
        1,
        racks(2),
        consumerRacks,
        consumerTopics,
        null,
        ['t1-0, t1-2, t2-0, t2-2, t3-0, t4-0', 't1-1, t1-3, t2-1, t2-3, t3-1, t4-1', 't1-5, t2-5', 't1-4, t2-4'],
        0,
      );
      verifyRackAssignment(
        assign,
        topics,
        1,
        racks(3),
        consumerRacks,
        consumerTopics,
        null,
        ['t1-0, t1-3, t2-0, t2-3, t3-0, t4-0', 't1-1, t1-4, t2-1, t2-4, t3-1, t4-1', 't1-2, t2-2', 't1-5, t2-5'],
        6,
      );
    });

    it('co-partitioned assignment with the same subscription', () => {
      const topics: [string, number][] = [
        ['t1', 6],
        ['t2', 6],
        ['t3', 2],
        ['t4', 2],
        ['t5', 4],
        ['t6', 4],
      ];
      const topicList = ['t1', 't2', 't3', 't4', 't5', 't6', 't7', 't8', 't9'];
      const consumerTopics = [topicList, topicList, topicList];
      const consumerRacks = ['a', 'b', 'c'];
      const nonRackAware = [
        't1-0, t1-1, t2-0, t2-1, t3-0, t4-0, t5-0, t5-1, t6-0, t6-1',
        't1-2, t1-3, t2-2, t2-3, t3-1, t4-1, t5-2, t6-2',
        't1-4, t1-5, t2-4, t2-5, t5-3, t6-3',
      ];
      verifyRackAssignment(assign, topics, 3, nullRacks(3), consumerRacks, consumerTopics, null, nonRackAware, -1);
      prefer = true;
      verifyRackAssignment(assign, topics, 3, racks(3), consumerRacks, consumerTopics, null, nonRackAware, 0);
      verifyRackAssignment(
        assign,
        topics,
        2,
        racks(3),
        consumerRacks,
        consumerTopics,
        null,
        [
          't1-0, t1-2, t2-0, t2-2, t3-0, t4-0, t5-1, t6-1',
          't1-1, t1-3, t2-1, t2-3, t3-1, t4-1, t5-2, t6-2',
          't1-4, t1-5, t2-4, t2-5, t5-0, t5-3, t6-0, t6-3',
        ],
        0,
      );
    });
  });
});
