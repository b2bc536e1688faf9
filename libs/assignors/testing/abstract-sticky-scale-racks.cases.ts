/**
 * AbstractStickyAssignorTest, third part: the scale tests (reduced to unit-test size; the full million
 * partitions are in bench/assignors.bench.ts), claims across three generations, and rack awareness.
 */
import { SubscriptionMap, nullRacks, racks, verifyRackAssignment, type RackConfig } from './kafka-fixtures';
import { StickyHarness, type Assignment, type StickyKind } from './sticky-harness';
import {
  consumer1,
  consumer2,
  consumer3,
  consumer4,
  consumerName,
  topic,
  topic1,
  topicName,
  tp,
} from './abstract-sticky.shared';

export function defineScaleAndRackStickyTests(kind: StickyKind): void {
  let a: StickyHarness;
  let subscriptions: SubscriptionMap;
  beforeEach(() => {
    a = new StickyHarness(kind);
    subscriptions = new SubscriptionMap();
  });
  const setup = (config: RackConfig): void => a.initializeRacks(config);

  describe('at scale (Kafka scale tests, reduced to unit-test size)', () => {
    // Seconds of CPU each on a shared machine: an explicit bound rather than Jest's 5 s default.
    const SCALE_TIMEOUT_MS = 60_000;
    it.each([false, true])(
      'uniform subscription, then reassignment (consumer rack: %s)',
      (hasConsumerRack) => {
        setup(hasConsumerRack ? 'BROKER_AND_CONSUMER_RACK' : 'NO_CONSUMER_RACK');
        const topics: string[] = [];
        let cluster = a.cluster();
        for (let i = 0; i < 20; i++) {
          topics.push(topicName(i, 20));
          cluster = a.put(cluster, topicName(i, 20), 200);
        }
        for (let i = 0; i < 200; i++) subscriptions.set(consumerName(i, 200), a.subscription(topics, i));
        const assignment = a.assignPartitions(cluster, subscriptions);
        for (let i = 1; i < 200; i++)
          subscriptions.set(
            consumerName(i, 200),
            a.buildSubscriptionV2Above(topics, assignment[consumerName(i, 200)], a.generationId, i),
          );
        const second = a.assignPartitions(cluster, subscriptions);
        a.verifyValidityAndBalance(subscriptions, second, cluster);
      },
      SCALE_TIMEOUT_MS,
    );

    it.each([false, true])(
      'one consumer subscribing differently, then reassignment (consumer rack: %s)',
      (hasConsumerRack) => {
        setup(hasConsumerRack ? 'BROKER_AND_CONSUMER_RACK' : 'NO_CONSUMER_RACK');
        const topics: string[] = [];
        let cluster = a.cluster();
        for (let i = 0; i < 20; i++) {
          topics.push(topicName(i, 20));
          cluster = a.put(cluster, topicName(i, 20), 200);
        }
        const topicsOf = (i: number): string[] => (i === 199 ? topics.slice(0, 1) : topics);
        for (let i = 0; i < 200; i++) subscriptions.set(consumerName(i, 200), a.subscription(topicsOf(i), i));
        const assignment = a.assignPartitions(cluster, subscriptions);
        for (let i = 1; i < 200; i++)
          subscriptions.set(
            consumerName(i, 200),
            a.buildSubscriptionV2Above(topicsOf(i), assignment[consumerName(i, 200)], a.generationId, i),
          );
        const second = a.assignPartitions(cluster, subscriptions);
        a.verifyValidityAndBalance(subscriptions, second, cluster);
      },
      SCALE_TIMEOUT_MS,
    );

    it(
      'non-equal subscriptions do not time out (KAFKA-15106: 20,000 partitions, 500 consumers)',
      () => {
        setup('NO_CONSUMER_RACK');
        const topics: string[] = [];
        let cluster = a.cluster();
        for (let i = 0; i < 100; i++) {
          topics.push(topicName(i, 100));
          cluster = a.put(cluster, topicName(i, 100), 200);
        }
        const topicsOf = (i: number): string[] => (i % 4 === 0 ? topics.slice(0, 50) : topics.slice(50));
        for (let i = 0; i < 500; i++) subscriptions.set(consumerName(i, 500), a.subscription(topicsOf(i), i));
        const assignment = a.assignPartitions(cluster, subscriptions);
        for (let i = 1; i < 500; i++)
          subscriptions.set(
            consumerName(i, 500),
            a.buildSubscriptionV2Above(topicsOf(i), assignment[consumerName(i, 500)], a.generationId, i),
          );
        const second = a.assignPartitions(cluster, subscriptions);
        a.verifyValidityAndBalance(subscriptions, second, cluster);
      },
      SCALE_TIMEOUT_MS,
    );
  });

  it('subscriptions not equal and the same partition claimed in three generations', () => {
    const cluster = a.put(a.put(a.cluster(), topic, 6), topic1, 1);
    for (const [g1, g2, g3] of [
      [1, 2, 3],
      [1, 3, 2],
      [2, 1, 3],
      [2, 3, 1],
      [3, 1, 2],
      [3, 2, 1],
    ]) {
      subscriptions.set(consumer1, a.buildSubscriptionV2Above([topic], [tp(topic, 0), tp(topic, 2)], g1, 0));
      subscriptions.set(
        consumer2,
        a.buildSubscriptionV2Above([topic], [tp(topic, 1), tp(topic, 2), tp(topic, 3)], g2, 1),
      );
      subscriptions.set(
        consumer3,
        a.buildSubscriptionV2Above([topic], [tp(topic, 2), tp(topic, 4), tp(topic, 5)], g3, 2),
      );
      subscriptions.set(consumer4, a.buildSubscriptionV2Above([topic1], [tp(topic1, 0)], 2, 3));
      const assignment: Assignment = a.assignPartitions(cluster, subscriptions);
      const all = Object.values(assignment).flat();
      expect(new Set(all).size).toBe(all.length);
      for (const list of Object.values(assignment)) {
        expect(list.length).toBeGreaterThanOrEqual(1);
        expect(list.length).toBeLessThanOrEqual(2);
      }
    }
  });

  describe('rack-aware assignment (KIP-881)', () => {
    const t123: [string, number][] = [
      ['t1', 6],
      ['t2', 7],
      ['t3', 2],
    ];
    const all = ['t1', 't2', 't3'];
    const verify = (
      rf: number,
      brokerRacks: (string | null)[],
      consumerRacks: (string | null)[],
      consumerTopics: string[][],
      owned: string[] | null,
      expected: string[],
      mismatches: number,
    ): void => {
      verifyRackAssignment(
        (view, members) => a.assign(view, members),
        t123,
        rf,
        brokerRacks,
        consumerRacks,
        consumerTopics,
        owned,
        expected,
        mismatches,
      );
    };
    const both = (
      rf: number,
      brokerRacks: (string | null)[],
      consumerRacks: (string | null)[],
      consumerTopics: string[][],
      expected: string[],
      mismatches: number,
    ): void => {
      verify(rf, brokerRacks, consumerRacks, consumerTopics, null, expected, mismatches);
      verify(rf, brokerRacks, consumerRacks, consumerTopics, expected, expected, mismatches);
    };

    it('uniform subscription', () => {
      const consumerTopics = [all, all, all];
      const nonRackAware = [
        't1-0, t1-3, t2-0, t2-3, t2-6',
        't1-1, t1-4, t2-1, t2-4, t3-0',
        't1-2, t1-5, t2-2, t2-5, t3-1',
      ];
      both(3, nullRacks(3), racks(3), consumerTopics, nonRackAware, -1);
      both(3, racks(3), nullRacks(3), consumerTopics, nonRackAware, -1);
      a.preferRackAwareLogic = true;
      both(3, racks(3), racks(3), consumerTopics, nonRackAware, 0);
      both(4, racks(4), racks(3), consumerTopics, nonRackAware, 0);
      a.preferRackAwareLogic = false;
      both(3, racks(3), racks(3), consumerTopics, nonRackAware, 0);
      both(3, racks(3), ['d', 'e', 'f'], consumerTopics, nonRackAware, -1);
      both(3, racks(3), [null, 'e', 'f'], consumerTopics, nonRackAware, -1);
      const aligned = ['t1-0, t1-3, t2-0, t2-3, t2-6', 't1-1, t1-4, t2-1, t2-4, t3-0', 't1-2, t1-5, t2-2, t2-5, t3-1'];
      both(1, racks(3), racks(3), consumerTopics, aligned, 0);
      both(2, racks(3), racks(3), consumerTopics, aligned, 0);
      both(3, racks(2), racks(3), consumerTopics, aligned, 5);
      const owned = ['t1-0, t1-1, t1-2, t1-3, t1-4', 't1-5, t2-0, t2-1, t2-2, t2-3', 't2-4, t2-5, t2-6, t3-0, t3-1'];
      if (kind === 'sticky') {
        verify(1, racks(3), racks(3), consumerTopics, owned, aligned, 0);
      } else {
        // Since KAFKA-15170 (2024) owned partitions on the wrong rack are revoked before they move, so the
        // cooperative assignor reaches the aligned assignment in two rounds (the older test expected one).
        const intermediate = ['t1-0, t1-3', 't2-1', 't2-5, t3-1'];
        verify(1, racks(3), racks(3), consumerTopics, owned, intermediate, 0);
        verify(1, racks(3), racks(3), consumerTopics, intermediate, aligned, 0);
      }
      a.preferRackAwareLogic = true;
      verify(3, racks(3), racks(3), consumerTopics, aligned, aligned, 0);
    });

    it('non-equal subscription', () => {
      const consumerTopics = [all, all, ['t1', 't3']];
      const nonRackAware = [
        't1-5, t2-0, t2-2, t2-4, t2-6',
        't1-3, t2-1, t2-3, t2-5, t3-0',
        't1-0, t1-1, t1-2, t1-4, t3-1',
      ];
      both(3, nullRacks(3), racks(3), consumerTopics, nonRackAware, -1);
      both(3, racks(3), nullRacks(3), consumerTopics, nonRackAware, -1);
      a.preferRackAwareLogic = true;
      both(3, racks(3), racks(3), consumerTopics, nonRackAware, 0);
      both(4, racks(4), racks(3), consumerTopics, nonRackAware, 0);
      a.preferRackAwareLogic = false;
      both(3, racks(3), racks(3), consumerTopics, nonRackAware, 0);
      both(3, racks(3), ['d', 'e', 'f'], consumerTopics, nonRackAware, -1);
      both(3, racks(3), [null, 'e', 'f'], consumerTopics, nonRackAware, -1);
      both(
        1,
        racks(3),
        racks(3),
        consumerTopics,
        ['t1-3, t2-0, t2-2, t2-3, t2-6', 't1-4, t2-1, t2-4, t2-5, t3-0', 't1-0, t1-1, t1-2, t1-5, t3-1'],
        4,
      );
      both(
        2,
        racks(3),
        racks(3),
        consumerTopics,
        ['t1-3, t2-0, t2-2, t2-5, t2-6', 't1-0, t2-1, t2-3, t2-4, t3-0', 't1-1, t1-2, t1-4, t1-5, t3-1'],
        0,
      );
      both(
        3,
        racks(2),
        racks(3),
        consumerTopics,
        ['t1-5, t2-0, t2-2, t2-4, t2-6', 't1-3, t2-1, t2-3, t2-5, t3-0', 't1-0, t1-1, t1-2, t1-4, t3-1'],
        5,
      );
      const owned = ['t1-0, t1-1, t1-2, t1-3, t1-4', 't1-5, t2-0, t2-1, t2-2, t2-3', 't2-4, t2-5, t2-6, t3-0, t3-1'];
      const aligned = ['t1-3, t2-0, t2-2, t2-3, t2-6', 't1-4, t2-1, t2-4, t2-5, t3-0', 't1-0, t1-1, t1-2, t1-5, t3-1'];
      if (kind === 'sticky') {
        verify(1, racks(3), racks(3), consumerTopics, owned, aligned, 4);
        a.preferRackAwareLogic = false;
        verify(3, racks(3), racks(3), consumerTopics, owned, nonRackAware, 0);
        a.preferRackAwareLogic = true;
        verify(3, racks(3), racks(3), consumerTopics, owned, nonRackAware, 0);
      } else {
        const intermediate = ['t1-3', 't2-1', 't3-1'];
        verify(1, racks(3), racks(3), consumerTopics, owned, intermediate, 0);
        verify(1, racks(3), racks(3), consumerTopics, intermediate, aligned, 4);
        const converged = [
          't1-2, t1-3, t1-4, t2-4, t2-5',
          't2-0, t2-1, t2-2, t2-3, t2-6',
          't1-0, t1-1, t1-5, t3-0, t3-1',
        ];
        const intermediate2 = ['t1-2, t1-3, t1-4', 't2-0, t2-1, t2-2, t2-3', 't3-0, t3-1'];
        a.preferRackAwareLogic = false;
        verify(3, racks(3), racks(3), consumerTopics, owned, intermediate2, 0);
        verify(3, racks(3), racks(3), consumerTopics, intermediate2, converged, 0);
        a.preferRackAwareLogic = true;
        verify(3, racks(3), racks(3), consumerTopics, owned, intermediate2, 0);
        verify(3, racks(3), racks(3), consumerTopics, intermediate2, converged, 0);
      }
    });
  });
}
