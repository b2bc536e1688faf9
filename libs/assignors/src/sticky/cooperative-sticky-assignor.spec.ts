// Kafka's CooperativeStickyAssignorTest: the shared AbstractStickyAssignorTest cases (checked after
// Kafka's follow-up rebalances) plus the cooperative-only ones.
import type { Subscription } from '@cohort/protocol';
import {
  RACK_CONFIGS,
  SubscriptionMap,
  topicPartitions,
  StickyHarness,
  isFullyBalanced,
  defineAbstractStickyAssignorTests,
} from '@cohort/assignors/testing';
import { createCooperativeStickyAssignor } from './cooperative-sticky-assignor';
import { cooperativeMemberData } from './member-data';

describe('cooperative-sticky assignor (Kafka CooperativeStickyAssignorTest)', () => {
  defineAbstractStickyAssignorTests('cooperative-sticky');

  let a: StickyHarness;
  let subscriptions: SubscriptionMap;
  beforeEach(() => {
    a = new StickyHarness('cooperative-sticky');
    subscriptions = new SubscriptionMap();
  });

  it('encodes and decodes its generation', () => {
    const assignor = createCooperativeStickyAssignor();
    expect(
      cooperativeMemberData({ topics: ['topic'], userData: assignor.subscriptionUserData(['topic']) }).generation,
    ).toBe(-1);
    assignor.onAssignment({ partitions: [] }, 10);
    expect(
      cooperativeMemberData({ topics: ['topic'], userData: assignor.subscriptionUserData(['topic']) }).generation,
    ).toBe(10);
  });

  it('has no generation without user data', () => {
    expect(cooperativeMemberData({ topics: ['topic'] }).generation).toBeUndefined();
  });

  it('takes owned partitions from the subscription and the generation from user data when the field is absent', () => {
    const assignor = createCooperativeStickyAssignor();
    assignor.onAssignment({ partitions: topicPartitions(['topic-1']) }, 1);
    const subscription: Subscription = {
      topics: ['topic'],
      userData: assignor.subscriptionUserData(['topic']),
      ownedPartitions: topicPartitions(['topic-0']),
    };
    expect(cooperativeMemberData(subscription)).toEqual({ partitions: topicPartitions(['topic-0']), generation: 1 });
  });

  it.each([
    ['an equal', 1],
    ['a higher', 0],
  ])('prefers the subscription over user data with %s generation field', (_label, userDataGeneration) => {
    const subscription: Subscription = {
      topics: ['topic'],
      userData: { generation: userDataGeneration },
      ownedPartitions: [],
      generationId: 1,
    };
    expect(cooperativeMemberData(subscription)).toEqual({ partitions: [], generation: 1 });
  });

  it('assigns with old subscription versions', () => {
    const cluster = a.put(a.cluster(), 'topic1', 3);
    subscriptions.set('consumer1', a.buildSubscriptionV1(['topic1'], ['topic1-0'], a.generationId));
    subscriptions.set('consumer2', a.buildSubscriptionV1(['topic1'], ['topic1-1'], a.generationId));
    subscriptions.set('consumer3', a.buildSubscriptionV2Above(['topic1'], [], a.generationId, 2));
    const assignment = a.assignPartitions(cluster, subscriptions);
    expect(assignment).toEqual({ consumer1: ['topic1-0'], consumer2: ['topic1-1'], consumer3: ['topic1-2'] });
    a.verifyValidityAndBalance(subscriptions, assignment, cluster);
  });

  it('lists both partitions that change rack in partitionsTransferringOwnership (KAFKA-15170)', () => {
    a.replicationFactor = 1;
    a.numBrokerRacks = 2;
    a.hasConsumerRack = true;
    const cluster = a.put(a.cluster(), 'topic1', 4);
    subscriptions.set('c0', a.buildSubscriptionV2Above(['topic1'], ['topic1-0', 'topic1-1'], a.generationId, 0));
    subscriptions.set('c1', a.buildSubscriptionV2Above(['topic1'], ['topic1-2', 'topic1-3'], a.generationId, 1));
    a.assignPartitions(cluster, subscriptions);
    expect(Object.keys(a.partitionsTransferringOwnership ?? {})).toHaveLength(2);
  });

  describe.each(RACK_CONFIGS)('rack config %s', (config) => {
    beforeEach(() => a.initializeRacks(config));

    it.each([
      [3, { consumer1: ['topic-1'], consumer2: ['topic-2'], consumer3: [] }],
      [4, { consumer1: ['topic-1', 'topic-3'], consumer2: ['topic-2'], consumer3: [] }],
    ])(
      'holds back a partition claimed by two members of one generation until both revoke it (%i partitions)',
      (partitions, expected) => {
        const cluster = a.put(a.cluster(), 'topic', partitions);
        subscriptions.set(
          'consumer1',
          a.buildSubscriptionV2Above(['topic'], ['topic-0', 'topic-1'], a.generationId, 0),
        );
        subscriptions.set(
          'consumer2',
          a.buildSubscriptionV2Above(['topic'], ['topic-0', 'topic-2'], a.generationId, 1),
        );
        subscriptions.set('consumer3', a.buildSubscriptionV2Above(['topic'], [], a.generationId, 2));
        const assignment = a.assignPartitions(cluster, subscriptions);
        expect(assignment).toEqual(expected);
        a.verifyValidityAndBalance(subscriptions, assignment, cluster);
        expect(isFullyBalanced(assignment)).toBe(true);
      },
    );
  });
});
