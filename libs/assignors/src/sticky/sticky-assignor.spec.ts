// Kafka's StickyAssignorTest: the shared AbstractStickyAssignorTest cases plus the sticky-only ones.
import type { Subscription } from '@cohort/protocol';
import {
  RACK_CONFIGS,
  SubscriptionMap,
  topicPartitions,
  StickyHarness,
  isFullyBalanced,
  ps,
  defineAbstractStickyAssignorTests,
} from '@cohort/assignors/testing';
import { createCooperativeStickyAssignor } from './cooperative-sticky-assignor';
import { stickyMemberData } from './member-data';
import { createStickyAssignor } from './sticky-assignor';

describe('sticky assignor (Kafka StickyAssignorTest)', () => {
  defineAbstractStickyAssignorTests('sticky');

  let a: StickyHarness;
  let subscriptions: SubscriptionMap;
  beforeEach(() => {
    a = new StickyHarness('sticky');
    subscriptions = new SubscriptionMap();
  });
  const tp = (t: string, p: number): string => `${t}-${p}`;

  // Kafka's ConstrainedAssignmentBuilder deals a group that owns nothing round-robin: partitions in
  // (topic, partition) order, members in member-id order, the remainder one each to the first ones.
  it('deals a group that owns nothing round-robin in member-id order, whatever order members join in', () => {
    const members = (ids: string[], topics: string[]) =>
      ids.map((memberId) => ({ memberId, subscription: { topics } }));
    for (const assignor of [createStickyAssignor(), createCooperativeStickyAssignor()]) {
      // 7 partitions over 3 members: minQuota 2, and one member (the first by id) takes a third.
      expect(assignor.assign({ partitionsPerTopic: { t0: 4, t1: 3 } }, members(['c', 'a', 'b'], ['t1', 't0']))).toEqual(
        {
          a: {
            partitions: [
              { topic: 't0', partitions: [0, 3] },
              { topic: 't1', partitions: [2] },
            ],
          },
          b: {
            partitions: [
              { topic: 't0', partitions: [1] },
              { topic: 't1', partitions: [0] },
            ],
          },
          c: {
            partitions: [
              { topic: 't0', partitions: [2] },
              { topic: 't1', partitions: [1] },
            ],
          },
        },
      );
      // Fewer partitions than members: one each to the first members by id.
      expect(assignor.assign({ partitionsPerTopic: { t0: 2 } }, members(['z', 'y', 'x'], ['t0']))).toEqual({
        x: { partitions: [{ topic: 't0', partitions: [0] }] },
        y: { partitions: [{ topic: 't0', partitions: [1] }] },
        z: { partitions: [] },
      });
    }
  });

  it('reads member data from every subscription version', () => {
    const owned = [tp('topic1', 0), tp('topic2', 1)];
    for (const subscription of [
      a.buildSubscriptionV0(['topic'], owned, 1, 0),
      a.buildSubscriptionV1(['topic'], owned, 1),
      a.buildSubscriptionV2Above(['topic'], owned, 1, 2),
    ]) {
      const data = stickyMemberData(subscription);
      expect(data.partitions).toEqual(topicPartitions(owned));
      expect(data.generation).toBe(1);
    }
  });

  it('honours the user data over inconsistent ownedPartitions', () => {
    const assignor = createStickyAssignor();
    assignor.onAssignment({ partitions: topicPartitions(['topic-1']) }, 1);
    const subscription: Subscription = {
      topics: ['topic'],
      userData: assignor.subscriptionUserData(['topic']),
      ownedPartitions: topicPartitions(['topic-0']),
    };
    expect(stickyMemberData(subscription)).toEqual({ partitions: topicPartitions(['topic-1']), generation: 1 });
  });

  it('always honours the user data, even with a different generationId field', () => {
    const owned = ['topic1-0', 'topic2-1'];
    const subscription: Subscription = {
      topics: ['topic'],
      userData: { previousAssignment: topicPartitions(owned), generation: 0 },
      ownedPartitions: [],
      generationId: 1,
    };
    expect(stickyMemberData(subscription)).toEqual({ partitions: topicPartitions(owned), generation: 0 });
  });

  it('sends no user data before its first assignment, then its last assignment and generation', () => {
    const assignor = createStickyAssignor();
    expect(assignor.subscriptionUserData(['t'])).toBeNull();
    assignor.onAssignment({ partitions: [{ topic: 't', partitions: [0, 2] }] }, 7);
    expect(assignor.subscriptionUserData(['t'])).toEqual({
      previousAssignment: [{ topic: 't', partitions: [0, 2] }],
      generation: 7,
    });
  });

  it('treats unreadable user data as no partitions and generation -1, and no user data as nothing owned', () => {
    expect(stickyMemberData({ topics: ['t'], userData: 'garbage' })).toEqual({ partitions: [], generation: -1 });
    expect(
      stickyMemberData({ topics: ['t'], ownedPartitions: [{ topic: 't', partitions: [0] }], generationId: 3 }),
    ).toEqual({ partitions: [], generation: undefined });
  });

  it('assigns with old subscription versions', () => {
    const cluster = a.put(a.cluster(), 'topic1', 3);
    subscriptions.set('consumer1', a.buildSubscriptionV0(['topic1'], ['topic1-0'], a.generationId, 0));
    subscriptions.set('consumer2', a.buildSubscriptionV1(['topic1'], ['topic1-1'], a.generationId));
    subscriptions.set('consumer3', a.buildSubscriptionV2Above(['topic1'], [], a.generationId, 2));
    const assignment = a.assignPartitions(cluster, subscriptions);
    expect(assignment).toEqual({ consumer1: ['topic1-0'], consumer2: ['topic1-1'], consumer3: ['topic1-2'] });
    a.verifyValidityAndBalance(subscriptions, assignment, cluster);
  });

  describe.each(RACK_CONFIGS)('rack config %s', (config) => {
    beforeEach(() => a.initializeRacks(config));

    it.each([
      [3, { consumer1: ['topic-1'], consumer2: ['topic-2'], consumer3: ['topic-0'] }],
      [4, { consumer1: ['topic-1', 'topic-3'], consumer2: ['topic-2'], consumer3: ['topic-0'] }],
    ])('invalidates a partition claimed by two members of one generation (%i partitions)', (partitions, expected) => {
      const cluster = a.put(a.cluster(), 'topic', partitions);
      subscriptions.set('consumer1', a.buildSubscriptionV2Above(['topic'], ['topic-0', 'topic-1'], a.generationId, 0));
      subscriptions.set('consumer2', a.buildSubscriptionV2Above(['topic'], ['topic-0', 'topic-2'], a.generationId, 1));
      subscriptions.set('consumer3', a.buildSubscriptionV2Above(['topic'], [], a.generationId, 2));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(assignment).toEqual(expected);
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      expect(isFullyBalanced(assignment)).toBe(true);
    });

    it('schema backward compatibility (V0 user data without generation)', () => {
      const cluster = a.put(a.cluster(), 'topic', 3);
      subscriptions.set('consumer1', a.subscription(['topic'], 0));
      subscriptions.set('consumer2', a.subscription(['topic'], 1));
      subscriptions.set('consumer3', a.subscription(['topic'], 2));
      const c1 = [tp('topic', 0), tp('topic', 2)];
      const c2 = [tp('topic', 1)];
      subscriptions.set('consumer1', a.buildSubscriptionV2Above(['topic'], c1, 1, 0));
      subscriptions.set('consumer2', a.buildSubscriptionWithOldSchema(['topic'], c2, 1));
      const assignment = a.assignPartitions(cluster, subscriptions);
      expect(Object.values(assignment).map((list) => list.length)).toEqual([1, 1, 1]);
      expect(c1).toEqual(expect.arrayContaining(assignment.consumer1));
      expect(c2).toEqual(expect.arrayContaining(assignment.consumer2));
      a.verifyValidityAndBalance(subscriptions, assignment, cluster);
    });

    describe.each([true, false])('all subscriptions equal: %s', (allEqual) => {
      it('multiple generations (1)', () => {
        const all = ['topic', 'topic2'];
        const c2Topics = allEqual ? all : ['topic'];
        const cluster = a.put(a.put(a.cluster(), 'topic', 6), 'topic2', 6);
        subscriptions.set('consumer1', a.subscription(all, 0));
        subscriptions.set('consumer2', a.subscription(c2Topics, 1));
        subscriptions.set('consumer3', a.subscription(all, 2));
        let assignment = a.assignPartitions(cluster, subscriptions);
        const r1 = { ...assignment };
        expect(Object.values(r1).map((l) => l.length)).toEqual([4, 4, 4]);
        a.verifyValidityAndBalance(subscriptions, assignment, cluster);

        subscriptions.set('consumer1', a.buildSubscriptionV2Above(all, r1.consumer1, a.generationId, 0));
        subscriptions.set('consumer2', a.buildSubscriptionV2Above(c2Topics, r1.consumer2, a.generationId, 1));
        subscriptions.delete('consumer3');
        assignment = a.assignPartitions(cluster, subscriptions);
        const r2 = { ...assignment };
        expect([r2.consumer1.length, r2.consumer2.length]).toEqual([6, 6]);
        if (allEqual) expect(r2.consumer1).toEqual(expect.arrayContaining(r1.consumer1));
        expect(r2.consumer2).toEqual(expect.arrayContaining(r1.consumer2));
        a.verifyValidityAndBalance(subscriptions, assignment, cluster);
        expect(r2.consumer2.some((p) => r1.consumer3.includes(p))).toBe(true);

        subscriptions.delete('consumer1');
        subscriptions.set('consumer2', a.buildSubscriptionV2Above(c2Topics, r2.consumer2, 2, 1));
        subscriptions.set('consumer3', a.buildSubscriptionV2Above(all, r1.consumer3, 1, 2));
        assignment = a.assignPartitions(cluster, subscriptions);
        expect([assignment.consumer2.length, assignment.consumer3.length]).toEqual([6, 6]);
        expect(assignment.consumer2.some((p) => assignment.consumer3.includes(p))).toBe(false);
        a.verifyValidityAndBalance(subscriptions, assignment, cluster);
      });

      it('multiple generations (2)', () => {
        const all = ['topic', 'topic2', 'topic3'];
        const c1Topics = allEqual ? all : ['topic'];
        const c3Topics = allEqual ? all : ['topic', 'topic2'];
        const cluster = a.put(a.put(a.put(a.cluster(), 'topic', 4), 'topic2', 4), 'topic3', 4);
        subscriptions.set('consumer1', a.subscription(c1Topics, 0));
        subscriptions.set('consumer2', a.subscription(all, 1));
        subscriptions.set('consumer3', a.subscription(c3Topics, 2));
        let assignment = a.assignPartitions(cluster, subscriptions);
        const r1 = { ...assignment };
        expect(Object.values(r1).map((l) => l.length)).toEqual([4, 4, 4]);
        a.verifyValidityAndBalance(subscriptions, assignment, cluster);

        subscriptions.delete('consumer1');
        subscriptions.set('consumer2', a.buildSubscriptionV2Above(all, r1.consumer2, 1, 1));
        subscriptions.delete('consumer3');
        assignment = a.assignPartitions(cluster, subscriptions);
        const r2 = { ...assignment };
        expect(r2.consumer2.length).toBe(12);
        expect(r2.consumer2).toEqual(expect.arrayContaining(r1.consumer2));
        a.verifyValidityAndBalance(subscriptions, assignment, cluster);

        subscriptions.set('consumer1', a.buildSubscriptionV2Above(c1Topics, r1.consumer1, 1, 0));
        subscriptions.set('consumer2', a.buildSubscriptionV2Above(all, r2.consumer2, 2, 1));
        subscriptions.set('consumer3', a.buildSubscriptionV2Above(c3Topics, r1.consumer3, 1, 2));
        assignment = a.assignPartitions(cluster, subscriptions);
        expect(Object.values(assignment).map((l) => l.length)).toEqual([4, 4, 4]);
        a.verifyValidityAndBalance(subscriptions, assignment, cluster);
        expect(isFullyBalanced(assignment)).toBe(true);
      });

      it('conflicting previous generations', () => {
        const all = ['topic', 'topic2', 'topic3'];
        const c1Topics = allEqual ? all : ['topic'];
        const c2Topics = allEqual ? all : ['topic', 'topic2'];
        const cluster = a.put(a.put(a.put(a.cluster(), 'topic', 4), 'topic2', 4), 'topic3', 4);
        subscriptions.set('consumer1', a.subscription(c1Topics, 0));
        subscriptions.set('consumer2', a.subscription(c2Topics, 1));
        subscriptions.set('consumer3', a.subscription(all, 2));
        const c1p0 = allEqual
          ? ['topic-0', 'topic-1', 'topic-2', 'topic2-2', 'topic2-3', 'topic3-0']
          : ['topic-0', 'topic-1', 'topic-2', 'topic-3'];
        const c2p0 = ['topic-0', 'topic-1', 'topic2-0', 'topic2-1', 'topic2-2', 'topic2-3'];
        const c3p0 = ['topic-2', 'topic-3', 'topic3-0', 'topic3-1', 'topic3-2', 'topic3-3'];
        subscriptions.set('consumer1', a.buildSubscriptionV2Above(c1Topics, c1p0, 1, 0));
        subscriptions.set('consumer2', a.buildSubscriptionV2Above(c2Topics, c2p0, 2, 1));
        subscriptions.set('consumer3', a.buildSubscriptionV2Above(all, c3p0, 2, 2));
        const assignment = a.assignPartitions(cluster, subscriptions);
        expect(Object.values(assignment).map((l) => l.length)).toEqual([4, 4, 4]);
        expect(c2p0).toEqual(expect.arrayContaining(assignment.consumer2));
        expect(c3p0).toEqual(expect.arrayContaining(assignment.consumer3));
        a.verifyValidityAndBalance(subscriptions, assignment, cluster);
        expect(isFullyBalanced(assignment)).toBe(true);
        expect(ps(...assignment.consumer1, ...assignment.consumer2, ...assignment.consumer3)).toHaveLength(12);
      });
    });
  });
});
