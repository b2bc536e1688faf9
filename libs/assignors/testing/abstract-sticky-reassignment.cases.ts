/**
 * AbstractStickyAssignorTest, second part: members and topics coming and going, stickiness across
 * rebalances, and the randomized tests (seeded here; Kafka's use an unseeded java.util.Random).
 */
import { RACK_CONFIGS, SubscriptionMap, type RackConfig } from './kafka-fixtures';
import { StickyHarness, isFullyBalanced, ps, seededRandom, type StickyKind } from './sticky-harness';
import {
  consumer1,
  consumer2,
  consumer3,
  consumer4,
  consumerId,
  consumerName,
  countOf,
  topic,
  topic1,
  topic2,
  topic3,
  topicName,
  tp,
} from './abstract-sticky.shared';

export function defineReassignmentStickyTests(kind: StickyKind): void {
  let a: StickyHarness;
  let subscriptions: SubscriptionMap;
  beforeEach(() => {
    a = new StickyHarness(kind);
    subscriptions = new SubscriptionMap();
  });
  const setup = (config: RackConfig): void => a.initializeRacks(config);

  describe.each(RACK_CONFIGS)('rack config %s', (config) => {
    beforeEach(() => setup(config));

    it('adds and removes a consumer on one topic', () => {
      const cluster = a.put(a.cluster(), topic, 3);
      subscriptions.set(consumer1, a.subscription([topic], 0));
      let assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual(ps(tp(topic, 0), tp(topic, 1), tp(topic, 2)));
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);

      subscriptions.set(consumer1, a.buildSubscriptionV2Above([topic], assignment[consumer1], a.generationId, 0));
      subscriptions.set(consumer2, a.buildSubscriptionV2Above([topic], [], a.generationId, 1));
      assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({ [tp(topic, 2)]: consumer2 });
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(assignment[consumer1]).toEqual(ps(tp(topic, 0), tp(topic, 1)));
      expect(assignment[consumer2]).toEqual([tp(topic, 2)]);

      subscriptions.delete(consumer1);
      subscriptions.set(consumer2, a.buildSubscriptionV2Above([topic], assignment[consumer2], a.generationId, 1));
      assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer2]).toEqual(ps(tp(topic, 2), tp(topic, 1), tp(topic, 0)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('keeps topics balanced per member after reassignment (KAFKA-16277)', () => {
      const allTopics = [topic1, topic2];
      const cluster = a.put(a.put(a.cluster(), topic1, 12), topic2, 12);
      subscriptions.set(consumer1, a.subscription(allTopics, 0));
      let assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      const perTopic = (n: number): void => {
        for (const list of Object.values(assignment)) {
          expect(countOf(list, topic1)).toBe(n);
          expect(countOf(list, topic2)).toBe(n);
        }
      };
      perTopic(12);

      subscriptions.set(consumer1, a.buildSubscriptionV2Above(allTopics, assignment[consumer1], a.generationId, 0));
      subscriptions.set(consumer2, a.buildSubscriptionV2Above(allTopics, [], a.generationId, 1));
      assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      perTopic(6);

      subscriptions.set(consumer1, a.buildSubscriptionV2Above(allTopics, assignment[consumer1], a.generationId, 0));
      subscriptions.set(consumer2, a.buildSubscriptionV2Above(allTopics, assignment[consumer2], a.generationId, 1));
      subscriptions.set(consumer3, a.buildSubscriptionV2Above(allTopics, [], a.generationId, 2));
      subscriptions.set(consumer4, a.buildSubscriptionV2Above(allTopics, [], a.generationId, 3));
      assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      perTopic(3);

      subscriptions.delete(consumer1);
      subscriptions.delete(consumer2);
      subscriptions.set(consumer3, a.buildSubscriptionV2Above(allTopics, assignment[consumer3], a.generationId, 2));
      subscriptions.set(consumer4, a.buildSubscriptionV2Above(allTopics, assignment[consumer4], a.generationId, 3));
      assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      perTopic(6);
      expect(a.partitionsTransferringOwnership).toEqual({});
    });

    it('adds and removes two consumers on two topics', () => {
      const allTopics = [topic1, topic2];
      const cluster = a.put(a.put(a.cluster(), topic1, 3), topic2, 4);
      subscriptions.set(consumer1, a.subscription(allTopics, 0));
      subscriptions.set(consumer2, a.subscription(allTopics, 1));
      let assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual(ps(tp(topic1, 0), tp(topic1, 2), tp(topic2, 1), tp(topic2, 3)));
      expect(assignment[consumer2]).toEqual(ps(tp(topic1, 1), tp(topic2, 0), tp(topic2, 2)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);

      subscriptions.set(consumer1, a.buildSubscriptionV2Above(allTopics, assignment[consumer1], a.generationId, 0));
      subscriptions.set(consumer2, a.buildSubscriptionV2Above(allTopics, assignment[consumer2], a.generationId, 1));
      subscriptions.set(consumer3, a.buildSubscriptionV2Above(allTopics, [], a.generationId, 2));
      subscriptions.set(consumer4, a.buildSubscriptionV2Above(allTopics, [], a.generationId, 3));
      assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({
        [tp(topic1, 2)]: consumer3,
        [tp(topic2, 3)]: consumer3,
        [tp(topic2, 2)]: consumer4,
      });
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(assignment[consumer1]).toEqual(ps(tp(topic1, 0), tp(topic2, 1)));
      expect(assignment[consumer2]).toEqual(ps(tp(topic2, 0), tp(topic1, 1)));
      expect(assignment[consumer3]).toEqual(ps(tp(topic1, 2), tp(topic2, 3)));
      expect(assignment[consumer4]).toEqual([tp(topic2, 2)]);
      expect(isFullyBalanced(assignment)).toBe(true);

      subscriptions.delete(consumer1);
      subscriptions.delete(consumer2);
      subscriptions.set(consumer3, a.buildSubscriptionV2Above(allTopics, assignment[consumer3], a.generationId, 2));
      subscriptions.set(consumer4, a.buildSubscriptionV2Above(allTopics, assignment[consumer4], a.generationId, 3));
      assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer3]).toEqual(ps(tp(topic1, 2), tp(topic2, 3), tp(topic1, 0), tp(topic2, 1)));
      expect(assignment[consumer4]).toEqual(ps(tp(topic2, 2), tp(topic1, 1), tp(topic2, 0)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('handles the scenario round robin handles poorly', () => {
      let cluster = a.cluster();
      for (let i = 1; i <= 5; i++) cluster = a.put(cluster, `topic${i}`, (i % 2) + 1);
      subscriptions.set('consumer1', a.subscription(['topic1', 'topic2', 'topic3', 'topic4', 'topic5'], 0));
      subscriptions.set('consumer2', a.subscription(['topic1', 'topic3', 'topic5'], 1));
      subscriptions.set('consumer3', a.subscription(['topic1', 'topic3', 'topic5'], 2));
      subscriptions.set('consumer4', a.subscription(['topic1', 'topic2', 'topic3', 'topic4', 'topic5'], 3));
      const assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('adds and removes a topic with two consumers, staying sticky', () => {
      let cluster = a.put(a.cluster(), topic, 3);
      subscriptions.set(consumer1, a.subscription([topic], 0));
      subscriptions.set(consumer2, a.subscription([topic], 1));
      let assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      expect(isFullyBalanced(assignment)).toBe(true);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      const first1 = assignment[consumer1];
      const first2 = assignment[consumer2];
      expect([first1.length, first2.length].sort()).toEqual([1, 2]);

      cluster = a.put(cluster, topic2, 3);
      subscriptions.set(
        consumer1,
        a.buildSubscriptionV2Above([topic, topic2], assignment[consumer1], a.generationId, 0),
      );
      subscriptions.set(
        consumer2,
        a.buildSubscriptionV2Above([topic, topic2], assignment[consumer2], a.generationId, 1),
      );
      assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(isFullyBalanced(assignment)).toBe(true);
      const second1 = assignment[consumer1];
      const second2 = assignment[consumer2];
      expect([second1.length, second2.length]).toEqual([3, 3]);
      expect(second1).toEqual(expect.arrayContaining(first1));
      expect(second2).toEqual(expect.arrayContaining(first2));

      cluster = cluster.remove(topic);
      subscriptions.set(consumer1, a.buildSubscriptionV2Above([topic2], assignment[consumer1], a.generationId, 0));
      subscriptions.set(consumer2, a.buildSubscriptionV2Above([topic2], assignment[consumer2], a.generationId, 1));
      assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(isFullyBalanced(assignment)).toBe(true);
      expect([assignment[consumer1].length, assignment[consumer2].length].sort()).toEqual([1, 2]);
      expect(second1).toEqual(expect.arrayContaining(assignment[consumer1]));
      expect(second2).toEqual(expect.arrayContaining(assignment[consumer2]));
    });

    it('reassigns after one consumer leaves, without movements back and forth', () => {
      let cluster = a.cluster();
      for (let i = 1; i < 20; i++) cluster = a.put(cluster, topicName(i, 20), i);
      for (let i = 1; i < 20; i++) {
        const topics: string[] = [];
        for (let j = 1; j <= i; j++) topics.push(topicName(j, 20));
        subscriptions.set(consumerName(i, 20), a.subscription(topics, i));
      }
      let assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      for (let i = 1; i < 20; i++) {
        const consumer = consumerName(i, 20);
        subscriptions.set(
          consumer,
          a.buildSubscriptionV2Above(subscriptions.get(consumer)!.topics, assignment[consumer], a.generationId, i),
        );
      }
      subscriptions.delete('c10');
      assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(a.isSticky()).toBe(true);
    });

    it('reassigns after one consumer is added', () => {
      const cluster = a.put(a.cluster(), 'topic', 20);
      for (let i = 1; i < 10; i++) subscriptions.set(consumerName(i, 10), a.subscription(['topic'], i));
      let assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      subscriptions.set(consumerName(10, 10), a.subscription(['topic'], 10));
      assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('same subscriptions, one consumer leaves', () => {
      let cluster = a.cluster();
      for (let i = 1; i < 15; i++) cluster = a.put(cluster, topicName(i, 15), i);
      const allTopics = Array.from({ length: 14 }, (_, j) => topicName(j + 1, 15));
      for (let i = 1; i < 9; i++) subscriptions.set(consumerName(i, 9), a.subscription(allTopics, i));
      let assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      for (let i = 1; i < 9; i++) {
        const consumer = consumerName(i, 9);
        subscriptions.set(consumer, a.buildSubscriptionV2Above(allTopics, assignment[consumer], a.generationId, i));
      }
      subscriptions.delete(consumerName(5, 9));
      assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('leaves of many consumers with random subscriptions stay sticky (seeded)', () => {
      const random = seededRandom(20240511);
      const topicCount = 40;
      const consumerCount = 200;
      let cluster = a.cluster();
      for (let i = 0; i < topicCount; i++) cluster = a.put(cluster, topicName(i, topicCount), random(10) + 1);
      for (let i = 0; i < consumerCount; i++) {
        const topics: string[] = [];
        for (let j = 0; j < random(20); j++) topics.push(topicName(random(topicCount), topicCount));
        subscriptions.set(consumerName(i, consumerCount), a.subscription(topics, i));
      }
      let assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      for (let i = 1; i < consumerCount; i++) {
        const consumer = consumerName(i, consumerCount);
        subscriptions.set(
          consumer,
          a.buildSubscriptionV2Above(subscriptions.get(consumer)!.topics, assignment[consumer], a.generationId, i),
        );
      }
      for (let i = 0; i < 50; i++) subscriptions.delete(consumerName(random(consumerCount), consumerCount));
      assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(a.isSticky()).toBe(true);
    });

    it('new subscription of an existing consumer', () => {
      let cluster = a.cluster();
      for (let i = 1; i < 5; i++) cluster = a.put(cluster, topicName(i, 5), 1);
      for (let i = 0; i < 3; i++) {
        const topics: string[] = [];
        for (let j = i; j <= 3 * i - 2; j++) topics.push(topicName(j, 5));
        subscriptions.set(consumerName(i, 3), a.subscription(topics, i));
      }
      let assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      subscriptions.get(consumerName(0, 3))!.topics.push(topicName(1, 5));
      assignment = a.assignPartitions(cluster, subscriptions);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(a.isSticky()).toBe(true);
    });

    it('moves existing assignments (general path)', () => {
      let cluster = a.cluster();
      for (let i = 1; i <= 6; i++) cluster = a.put(cluster, `topic${i}`, 1);
      subscriptions.set(consumer1, a.buildSubscriptionV2Above([topic1, topic2], [tp(topic1, 0)], a.generationId, 0));
      subscriptions.set(
        consumer2,
        a.buildSubscriptionV2Above(
          [topic1, topic2, topic3, 'topic4'],
          [tp(topic2, 0), tp(topic3, 0)],
          a.generationId,
          1,
        ),
      );
      subscriptions.set(
        consumer3,
        a.buildSubscriptionV2Above(
          [topic2, topic3, 'topic4', 'topic5', 'topic6'],
          [tp('topic4', 0), tp('topic5', 0), tp('topic6', 0)],
          a.generationId,
          2,
        ),
      );
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toBeNull();
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('stickiness: removing the group leader moves only its partition', () => {
      const cluster = a.put(a.cluster(), topic1, 3);
      [consumer1, consumer2, consumer3, consumer4].forEach((c, i) => subscriptions.set(c, a.subscription([topic1], i)));
      let assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      const previous = new Map<string, string>();
      for (const [consumer, partitions] of Object.entries(assignment)) {
        expect(partitions.length).toBeLessThanOrEqual(1);
        if (partitions.length === 1) previous.set(consumer, partitions[0]);
      }
      subscriptions.delete(consumer1);
      [consumer2, consumer3, consumer4].forEach((c, i) =>
        subscriptions.set(c, a.buildSubscriptionV2Above([topic1], assignment[c], a.generationId, i + 1)),
      );
      assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      for (const [consumer, partitions] of Object.entries(assignment)) {
        expect(partitions.length).toBe(1);
        if (previous.has(consumer)) expect(partitions).toContain(previous.get(consumer));
      }
    });

    it('assignment updated for a deleted topic', () => {
      const cluster = a.put(a.put(a.cluster(), topic1, 1), topic3, 100);
      subscriptions.set(consumerId, a.subscription([topic1, topic2, topic3], 0));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      expect(Object.values(assignment).reduce((n, list) => n + list.length, 0)).toBe(101);
      expect(Object.keys(assignment)).toEqual([consumerId]);
    });

    it('no error when the only subscribed topic is deleted', () => {
      const cluster = a.put(a.cluster(), topic, 3);
      subscriptions.set(consumerId, a.subscription([topic], 0));
      let assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      subscriptions.set(consumerId, a.buildSubscriptionV2Above([topic], assignment[consumerId], a.generationId, 0));
      assignment = a.assignPartitions({ partitionsPerTopic: {} }, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      expect(assignment).toEqual({ [consumerId]: [] });
    });

    it('random subscriptions and changes, 100 rounds (seeded)', () => {
      const random = seededRandom(config.length * 7919);
      const randomSublist = (list: string[]): string[] => {
        const selected = [...list];
        const remove = random(list.length);
        for (let i = 1; i <= remove; i++) selected.splice(random(selected.length), 1);
        return selected;
      };
      for (let round = 1; round <= 100; round++) {
        const numTopics = 10 + random(10);
        const topics: string[] = [];
        let cluster = a.cluster();
        for (let i = 0; i < numTopics; i++) {
          topics.push(topicName(i, 20));
          cluster = a.put(cluster, topicName(i, 20), i + 1);
        }
        const numConsumers = 20 + random(20);
        subscriptions = new SubscriptionMap();
        for (let i = 0; i < numConsumers; i++)
          subscriptions.set(consumerName(i, 40), a.subscription(randomSublist(topics).sort(), i));
        a.reset();
        let assignment = a.assignPartitions(cluster, subscriptions);
        a.verifyValidityAndBalance(subscriptions, assignment, cluster);
        subscriptions = new SubscriptionMap();
        for (let i = 0; i < numConsumers; i++) {
          const consumer = consumerName(i, 40);
          subscriptions.set(
            consumer,
            a.buildSubscriptionV2Above(randomSublist(topics).sort(), assignment[consumer], a.generationId, i),
          );
        }
        assignment = a.assignPartitions(cluster, subscriptions);
        a.verifyValidityAndBalance(subscriptions, assignment, cluster);
        expect(a.isSticky()).toBe(true);
      }
    }, 60_000); // seconds of CPU on a shared machine: an explicit bound, not Jest's 5 s default
  });
}
