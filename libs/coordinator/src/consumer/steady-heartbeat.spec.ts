import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { CoordinatorHarness } from '@cohort/coordinator/testing';
import type { RequestContext } from '../ports/group-coordinator.api';
import type { TopicAccessPort } from '../ports/topic-access.port';
import { steadyHeartbeat, steadyMember } from './steady-heartbeat';
import { metadataHash, subscriptionMetadata, topicsMetadataHash } from './subscription-metadata';

/**
 * Member `m` joins group `cg` with `subscription`, then acknowledges the partitions it was given (a
 * non-empty assignment): a stable member at its target. Resolves with its epoch.
 */
async function joinAndHold(
  h: CoordinatorHarness,
  subscription: Partial<P.ConsumerGroupHeartbeatRequest>,
  ctx: RequestContext,
): Promise<number> {
  const request = { groupId: 'cg', memberId: 'm' };
  const joined = await h.coordinator.consumerGroupHeartbeat(
    { ...request, memberEpoch: 0, rebalanceTimeoutMs: 1000, topicPartitions: [], ...subscription },
    ctx,
  );
  const held = await h.coordinator.consumerGroupHeartbeat(
    { ...request, memberEpoch: joined.memberEpoch, topicPartitions: joined.assignment!.topicPartitions },
    ctx,
  );
  expect(held.assignment?.topicPartitions ?? joined.assignment!.topicPartitions).not.toEqual([]);
  return held.memberEpoch;
}

describe('steadyMember: which heartbeats may skip the full path', () => {
  const ctx = { clientId: 'client', clientHost: '/127.0.0.1' };
  let h: CoordinatorHarness;
  let epoch: number;

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 2 }],
      consumerAssignors: [createUniformAssignor()],
    });
    await h.settle();
    epoch = await joinAndHold(h, { subscribedTopicNames: ['orders'] }, ctx);
  });

  const group = () => h.shardOf('cg').consumerGroup('cg');
  const steady = (fields: Partial<P.ConsumerGroupHeartbeatRequest> = {}, context = ctx) =>
    steadyMember(group(), { groupId: 'cg', memberId: 'm', memberEpoch: epoch, ...fields }, context)?.memberId;

  it('takes a bare heartbeat of a stable member at its epoch, and one whose rebalance timeout is left at -1', () => {
    expect(steady()).toBe('m');
    expect(steady({ rebalanceTimeoutMs: -1, rackId: null, topicPartitions: null })).toBe('m');
  });

  it('takes one that carries the partitions the member owns, whatever they are: a stable member at its epoch reads none of them', () => {
    const owned = [...group()!.member('m')!.assignedPartitions].map(([topic, partitions]) => ({
      topic,
      partitions: [...partitions],
    }));
    expect(steady({ topicPartitions: owned })).toBe('m');
    expect(steady({ topicPartitions: [] })).toBe('m');
  });

  it.each<[string, Partial<P.ConsumerGroupHeartbeatRequest>]>([
    ['rackId', { rackId: 'r1' }],
    ['rebalanceTimeoutMs', { rebalanceTimeoutMs: 1000 }],
    ['subscribedTopicNames', { subscribedTopicNames: ['orders'] }],
    ['subscribedTopicRegex', { subscribedTopicRegex: 'ord.*' }],
    ['serverAssignor', { serverAssignor: 'uniform' }],
  ])('leaves a heartbeat that carries %s to the full path, even unchanged', (_field, fields) => {
    expect(steady(fields)).toBeUndefined();
  });

  it('leaves joins, leaves, other epochs, other members, instances, clients and groups to the full path', () => {
    expect(steady({ memberEpoch: 0 })).toBeUndefined();
    expect(steady({ memberEpoch: -1 })).toBeUndefined();
    expect(steady({ memberEpoch: epoch + 1 })).toBeUndefined();
    expect(steady({ memberId: 'other' })).toBeUndefined();
    expect(steady({ instanceId: 'i-1' })).toBeUndefined();
    expect(steady({}, { ...ctx, clientHost: '/10.0.0.1' })).toBeUndefined();
    expect(steadyMember(undefined, { groupId: 'cg', memberId: 'm', memberEpoch: epoch }, ctx)).toBeUndefined();
  });

  it("leaves a member not yet at its group's target epoch to the full path", async () => {
    await h.coordinator.consumerGroupHeartbeat(
      {
        groupId: 'cg',
        memberId: 'n',
        memberEpoch: 0,
        subscribedTopicNames: ['orders'],
        rebalanceTimeoutMs: 1000,
        topicPartitions: [],
      },
      ctx,
    );
    // member m is now behind the group's new target epoch (it has to give a partition up).
    expect(group()!.member('m')!.memberEpoch).toBeLessThan(group()!.assignmentEpoch);
    expect(steady()).toBeUndefined();
  });
});

describe('steadyMember of a static member', () => {
  it("takes its instance's member at its epoch, and leaves another member id for the instance to the full path", async () => {
    const ctx = { clientId: 'client', clientHost: '/127.0.0.1' };
    const h = new CoordinatorHarness({ consumerAssignors: [createUniformAssignor()] });
    await h.settle();
    const request = { groupId: 'cg', memberId: 's', instanceId: 'i-1' };
    const joined = await h.coordinator.consumerGroupHeartbeat(
      { ...request, memberEpoch: 0, subscribedTopicNames: ['orders'], rebalanceTimeoutMs: 1000, topicPartitions: [] },
      ctx,
    );
    const held = await h.coordinator.consumerGroupHeartbeat(
      { ...request, memberEpoch: joined.memberEpoch, topicPartitions: joined.assignment!.topicPartitions },
      ctx,
    );
    const group = h.shardOf('cg').consumerGroup('cg');
    expect(steadyMember(group, { ...request, memberEpoch: held.memberEpoch }, ctx)?.memberId).toBe('s');
    expect(steadyMember(group, { ...request, memberId: 't', memberEpoch: held.memberEpoch }, ctx)).toBeUndefined();
  });
});

describe('steadyHeartbeat of a regex member', () => {
  const allowAll: TopicAccessPort = {
    canDescribeTopic: () => true,
    version: () => 0,
    onChanged: () => () => undefined,
  };

  async function stableRegexMember(topicAccess?: TopicAccessPort): Promise<{ h: CoordinatorHarness; epoch: number }> {
    const h = new CoordinatorHarness({ consumerAssignors: [createUniformAssignor()], topicAccess });
    await h.settle();
    const ctx = {
      clientId: 'client',
      clientHost: '/127.0.0.1',
      aclCaller: { principal: 'User:a', host: '/127.0.0.1' },
    };
    return { h, epoch: await joinAndHold(h, { subscribedTopicRegex: 'ord.*' }, ctx) };
  }

  it('answers it at once while ACLs are off, and leaves it to the full path (which checks its access) while they are on', async () => {
    const ctx = {
      clientId: 'client',
      clientHost: '/127.0.0.1',
      aclCaller: { principal: 'User:a', host: '/127.0.0.1' },
    };
    const off = await stableRegexMember();
    const request = { groupId: 'cg', memberId: 'm', memberEpoch: off.epoch };
    expect(steadyHeartbeat(off.h.shardOf('cg').consumer, request, ctx)).toMatchObject({
      errorCode: 0,
      assignment: null,
    });
    const on = await stableRegexMember(allowAll);
    expect(steadyHeartbeat(on.h.shardOf('cg').consumer, { ...request, memberEpoch: on.epoch }, ctx)).toBeNull();
  });
});

describe('topicsMetadataHash', () => {
  const counts = new Map([
    ['orders', 4],
    ['audit', 12],
    ['payments', 1],
  ]);
  const partitionsOf = (topic: string) => counts.get(topic);

  it.each([[[]], [['orders']], [['missing']], [['orders', 'missing']], [['payments', 'orders', 'audit']]])(
    'is the metadata hash of the topics that exist, %j',
    (topics: string[]) => {
      expect(topicsMetadataHash(topics, partitionsOf)).toBe(metadataHash(subscriptionMetadata(topics, partitionsOf)));
    },
  );

  it('changes when a subscribed topic grows, appears or is deleted', () => {
    const before = topicsMetadataHash(['orders', 'later'], partitionsOf);
    counts.set('orders', 5);
    const grown = topicsMetadataHash(['orders', 'later'], partitionsOf);
    counts.set('later', 3);
    const appeared = topicsMetadataHash(['orders', 'later'], partitionsOf);
    counts.delete('orders');
    counts.delete('later');
    expect(new Set([before, grown, appeared]).size).toBe(3);
    expect(topicsMetadataHash(['orders', 'later'], partitionsOf)).toBe(0);
  });

  it("hashes each topic's name and partition count as the text `${topic}\\0${partitions}\\0`, FNV-1a, in name order", () => {
    const fnv = (text: string) => {
      let hash = 0x811c9dc5;
      for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
      return hash;
    };
    for (const partitions of [1, 9, 10, 99, 100, 1000, 4096, 65_536, 2_147_483_647]) {
      const sizes = new Map([
        ['orders', partitions],
        ['audit', 7],
      ]);
      expect(topicsMetadataHash(['orders'], (topic) => sizes.get(topic))).toBe(fnv(`orders\u0000${partitions}\u0000`));
      expect(metadataHash({ orders: partitions, audit: 7 })).toBe(
        fnv(`audit\u00007\u0000orders\u0000${partitions}\u0000`),
      );
      expect(topicsMetadataHash(['orders', 'audit'], (topic) => sizes.get(topic))).toBe(
        fnv(`audit\u00007\u0000orders\u0000${partitions}\u0000`),
      );
    }
  });
});
