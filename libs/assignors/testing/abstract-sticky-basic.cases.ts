/**
 * AbstractStickyAssignorTest, first part: small groups, quotas, conflicting claims and generations.
 */
import { RACK_CONFIGS, SubscriptionMap, type RackConfig } from './kafka-fixtures';
import { DEFAULT_GENERATION, StickyHarness, isFullyBalanced, ps, type StickyKind } from './sticky-harness';
import {
  consumer1,
  consumer2,
  consumer3,
  consumer4,
  consumerId,
  topic,
  topic1,
  topic2,
  topic3,
  tp,
} from './abstract-sticky.shared';

export function defineBasicStickyTests(kind: StickyKind): void {
  let a: StickyHarness;
  let subscriptions: SubscriptionMap;
  beforeEach(() => {
    a = new StickyHarness(kind);
    subscriptions = new SubscriptionMap();
  });
  const setup = (config: RackConfig): void => a.initializeRacks(config);

  describe.each([false, true])('with consumer rack = %s', (hasConsumerRack) => {
    it('one consumer, no topic', () => {
      setup(hasConsumerRack ? 'BROKER_AND_CONSUMER_RACK' : 'NO_CONSUMER_RACK');
      const cluster = a.cluster();
      subscriptions.set(consumerId, a.subscription([], 0));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(Object.keys(assignment)).toEqual([consumerId]);
      expect(assignment[consumerId]).toEqual([]);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(isFullyBalanced(assignment)).toBe(true);
    });

    it('one consumer, nonexistent topic', () => {
      setup(hasConsumerRack ? 'BROKER_AND_CONSUMER_RACK' : 'NO_CONSUMER_RACK');
      const cluster = a.put(a.cluster(), topic, 0);
      subscriptions.set(consumerId, a.subscription([topic], 0));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment).toEqual({ [consumerId]: [] });
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });
  });

  describe.each(RACK_CONFIGS)('rack config %s', (config) => {
    beforeEach(() => setup(config));

    it('one consumer, one topic', () => {
      const cluster = a.put(a.cluster(), topic, 3);
      subscriptions.set(consumerId, a.subscription([topic], 0));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumerId]).toEqual(ps(tp(topic, 0), tp(topic, 1), tp(topic, 2)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(isFullyBalanced(assignment)).toBe(true);
    });

    it('only assigns partitions from subscribed topics', () => {
      const cluster = a.put(a.cluster(), topic, 2);
      subscriptions.set(
        consumerId,
        a.buildSubscriptionV2Above(
          [topic],
          [tp(topic, 0), tp(topic, 1), tp('other', 0), tp('other', 1)],
          a.generationId,
          0,
        ),
      );
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumerId]).toEqual(ps(tp(topic, 0), tp(topic, 1)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('one consumer, multiple topics', () => {
      const cluster = a.put(a.put(a.cluster(), topic1, 1), topic2, 2);
      subscriptions.set(consumerId, a.subscription([topic1, topic2], 0));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumerId]).toEqual(ps(tp(topic1, 0), tp(topic2, 0), tp(topic2, 1)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('two consumers, one topic, one partition', () => {
      const cluster = a.put(a.cluster(), topic, 1);
      subscriptions.set(consumer1, a.subscription([topic], 0));
      subscriptions.set(consumer2, a.subscription([topic], 1));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(isFullyBalanced(assignment)).toBe(true);
    });

    it('two consumers, one topic, two partitions', () => {
      const cluster = a.put(a.cluster(), topic, 2);
      subscriptions.set(consumer1, a.subscription([topic], 0));
      subscriptions.set(consumer2, a.subscription([topic], 1));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual([tp(topic, 0)]);
      expect(assignment[consumer2]).toEqual([tp(topic, 1)]);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('multiple consumers with mixed topic subscriptions', () => {
      const cluster = a.put(a.put(a.cluster(), topic1, 3), topic2, 2);
      subscriptions.set(consumer1, a.subscription([topic1], 0));
      subscriptions.set(consumer2, a.subscription([topic1, topic2], 1));
      subscriptions.set(consumer3, a.subscription([topic1], 2));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual(ps(tp(topic1, 0), tp(topic1, 2)));
      expect(assignment[consumer2]).toEqual(ps(tp(topic2, 0), tp(topic2, 1)));
      expect(assignment[consumer3]).toEqual([tp(topic1, 1)]);
      expect(a.partitionsTransferringOwnership).toBeNull();
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(isFullyBalanced(assignment)).toBe(true);
    });

    it('two consumers, two topics, six partitions', () => {
      const cluster = a.put(a.put(a.cluster(), topic1, 3), topic2, 3);
      subscriptions.set(consumer1, a.subscription([topic1, topic2], 0));
      subscriptions.set(consumer2, a.subscription([topic1, topic2], 1));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual(ps(tp(topic1, 0), tp(topic1, 2), tp(topic2, 1)));
      expect(assignment[consumer2]).toEqual(ps(tp(topic1, 1), tp(topic2, 0), tp(topic2, 2)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('consumer owning minQuota, expected to get maxQuota', () => {
      const cluster = a.put(a.put(a.cluster(), topic1, 2), topic2, 3);
      const topics = [topic1, topic2];
      subscriptions.set(
        consumer1,
        a.buildSubscriptionV2Above(topics, [tp(topic1, 0), tp(topic2, 1)], a.generationId, 0),
      );
      subscriptions.set(
        consumer2,
        a.buildSubscriptionV2Above(topics, [tp(topic1, 1), tp(topic2, 2)], a.generationId, 1),
      );
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual(ps(tp(topic1, 0), tp(topic2, 1), tp(topic2, 0)));
      expect(assignment[consumer2]).toEqual(ps(tp(topic1, 1), tp(topic2, 2)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(isFullyBalanced(assignment)).toBe(true);
    });

    it('more consumers owning maxQuota than expected (Java HashMap order decides who keeps it)', () => {
      const cluster = a.put(a.put(a.cluster(), topic1, 2), topic2, 2);
      const topics = [topic1, topic2];
      subscriptions.set(
        consumer1,
        a.buildSubscriptionV2Above(topics, [tp(topic1, 0), tp(topic2, 0)], a.generationId, 0),
      );
      subscriptions.set(
        consumer2,
        a.buildSubscriptionV2Above(topics, [tp(topic1, 1), tp(topic2, 1)], a.generationId, 1),
      );
      subscriptions.set(consumer3, a.buildSubscriptionV2Above(topics, [], a.generationId, 2));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({ [tp(topic2, 0)]: consumer3 });
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(assignment[consumer1]).toEqual([tp(topic1, 0)]);
      expect(assignment[consumer2]).toEqual(ps(tp(topic1, 1), tp(topic2, 1)));
      expect(assignment[consumer3]).toEqual([tp(topic2, 0)]);
      expect(isFullyBalanced(assignment)).toBe(true);
    });

    it('all consumers under minQuota', () => {
      const cluster = a.put(a.put(a.cluster(), topic1, 2), topic2, 3);
      const topics = [topic1, topic2];
      subscriptions.set(consumer1, a.buildSubscriptionV2Above(topics, [tp(topic1, 0)], a.generationId, 0));
      subscriptions.set(consumer2, a.buildSubscriptionV2Above(topics, [tp(topic1, 1)], a.generationId, 1));
      subscriptions.set(consumer3, a.buildSubscriptionV2Above(topics, [], a.generationId, 2));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(assignment[consumer1]).toEqual(ps(tp(topic1, 0), tp(topic2, 1)));
      expect(assignment[consumer2]).toEqual(ps(tp(topic1, 1), tp(topic2, 2)));
      expect(assignment[consumer3]).toEqual([tp(topic2, 0)]);
    });

    it('all consumers reach the expected quota and are considered filled', () => {
      const cluster = a.put(a.cluster(), topic, 4);
      subscriptions.set(
        consumer1,
        a.buildSubscriptionV2Above([topic], [tp(topic, 0), tp(topic, 1)], a.generationId, 0),
      );
      subscriptions.set(consumer2, a.buildSubscriptionV2Above([topic], [tp(topic, 2)], a.generationId, 1));
      subscriptions.set(consumer3, a.buildSubscriptionV2Above([topic], [], a.generationId, 2));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual(ps(tp(topic, 0), tp(topic, 1)));
      expect(assignment[consumer2]).toEqual([tp(topic, 2)]);
      expect(assignment[consumer3]).toEqual([tp(topic, 3)]);
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it.each([
      ['a stale generation', 9],
      ['no generation', DEFAULT_GENERATION],
    ])('owned partitions are invalidated for a consumer with %s', (_label, staleGeneration) => {
      const cluster = a.put(a.put(a.cluster(), topic, 3), topic2, 3);
      const owned = [tp(topic, 0), tp(topic, 2), tp(topic2, 1)];
      subscriptions.set(consumer1, a.buildSubscriptionV2Above([topic, topic2], owned, 10, 0));
      subscriptions.set(consumer2, a.buildSubscriptionV2Above([topic, topic2], owned, staleGeneration, 1));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual(ps(...owned));
      expect(assignment[consumer2]).toEqual(ps(tp(topic, 1), tp(topic2, 0), tp(topic2, 2)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('a partition claimed by several consumers of one generation is transferring', () => {
      const cluster = a.put(a.cluster(), topic, 3);
      subscriptions.set(
        consumer1,
        a.buildSubscriptionV2Above([topic], [tp(topic, 0), tp(topic, 1)], a.generationId, 0),
      );
      subscriptions.set(
        consumer2,
        a.buildSubscriptionV2Above([topic], [tp(topic, 0), tp(topic, 2)], a.generationId, 1),
      );
      subscriptions.set(consumer3, a.buildSubscriptionV2Above([topic], [], a.generationId, 2));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(a.partitionsTransferringOwnership).toEqual({ [tp(topic, 0)]: consumer3 });
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(assignment[consumer1]).toEqual([tp(topic, 1)]);
      expect(assignment[consumer2]).toEqual([tp(topic, 2)]);
      expect(assignment[consumer3]).toEqual([tp(topic, 0)]);
    });

    it('partitions go to the member with the highest generation', () => {
      const cluster = a.put(a.put(a.put(a.cluster(), topic, 3), topic2, 3), topic3, 3);
      const all = [topic, topic2, topic3];
      subscriptions.set(
        consumer1,
        a.buildSubscriptionV2Above(all, [tp(topic, 0), tp(topic2, 0), tp(topic3, 0)], 10, 0),
      );
      subscriptions.set(consumer2, a.buildSubscriptionV2Above(all, [tp(topic, 1), tp(topic2, 1), tp(topic3, 1)], 9, 1));
      subscriptions.set(
        consumer3,
        a.buildSubscriptionV2Above(all, [tp(topic2, 1), tp(topic3, 0), tp(topic3, 2)], 8, 1),
      );
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual(ps(tp(topic, 0), tp(topic2, 0), tp(topic3, 0)));
      expect(assignment[consumer2]).toEqual(ps(tp(topic, 1), tp(topic2, 1), tp(topic3, 1)));
      expect(assignment[consumer3]).toEqual(ps(tp(topic, 2), tp(topic2, 2), tp(topic3, 2)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('no reassignment on current members', () => {
      const cluster = a.put(a.put(a.put(a.put(a.cluster(), topic, 3), topic1, 3), topic2, 3), topic3, 3);
      const all = [topic, topic2, topic3, topic1];
      subscriptions.set(consumer1, a.buildSubscriptionV2Above(all, [], DEFAULT_GENERATION, 0));
      subscriptions.set(consumer2, a.buildSubscriptionV2Above(all, [tp(topic, 0), tp(topic2, 0), tp(topic1, 0)], 9, 1));
      subscriptions.set(
        consumer3,
        a.buildSubscriptionV2Above(all, [tp(topic3, 2), tp(topic2, 2), tp(topic1, 1)], 8, 2),
      );
      subscriptions.set(consumer4, a.buildSubscriptionV2Above(all, [tp(topic3, 1), tp(topic, 1), tp(topic, 2)], 7, 3));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual(ps(tp(topic1, 2), tp(topic2, 1), tp(topic3, 0)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    it('owned partitions are invalidated for a consumer with multiple generations', () => {
      const cluster = a.put(a.put(a.cluster(), topic, 3), topic2, 3);
      subscriptions.set(
        consumer1,
        a.buildSubscriptionV2Above([topic, topic2], [tp(topic, 0), tp(topic2, 1), tp(topic, 1)], 10, 0),
      );
      subscriptions.set(
        consumer2,
        a.buildSubscriptionV2Above([topic, topic2], [tp(topic, 0), tp(topic2, 1), tp(topic2, 2)], 8, 1),
      );
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment[consumer1]).toEqual(ps(tp(topic, 0), tp(topic2, 1), tp(topic, 1)));
      expect(assignment[consumer2]).toEqual(ps(tp(topic, 2), tp(topic2, 2), tp(topic2, 0)));
      expect(a.partitionsTransferringOwnership).toEqual({});
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });
  });
}
