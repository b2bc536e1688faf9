// Server assignors in the registry: the built-ins uniform and range, §5 plugins serving consumer groups
// through the safe runner, and the REST dry run with groupType 'consumer'.
import { KafkaError } from '@cohort/protocol';
import { thrown } from '@cohort/assignors/testing';
import type { MemberSubscription, PartitionAssignor } from '../api/partition-assignor';
import { AssignorRegistry } from '../registry/assignor-registry';
import { AssignorError } from '../runner/assignor-error';
import { dryRunAssign } from '../runner/dry-run';
import { createUniformAssignor } from './uniform-assignor';

/** Keeps every owned partition it may and deals the rest round robin: a sticky plugin in a few lines. */
function keepOwnedPlugin(seen: MemberSubscription[][]): PartitionAssignor {
  return {
    name: 'keep-owned',
    assign(cluster, members) {
      seen.push(members);
      const result = Object.fromEntries(
        members.map((m) => [m.memberId, { partitions: [] as { topic: string; partitions: number[] }[] }]),
      );
      const taken = new Set<string>();
      for (const m of members)
        for (const { topic, partitions } of m.subscription.ownedPartitions ?? []) {
          if (!m.subscription.topics.includes(topic)) continue;
          const mine = partitions.filter((p) => p < (cluster.partitionsPerTopic[topic] ?? 0));
          mine.forEach((p) => taken.add(`${topic}-${p}`));
          if (mine.length > 0) result[m.memberId].partitions.push({ topic, partitions: mine });
        }
      let next = 0;
      for (const [topic, count] of Object.entries(cluster.partitionsPerTopic))
        for (let p = 0; p < count; p++) {
          if (taken.has(`${topic}-${p}`)) continue;
          const subscribers = members.filter((m) => m.subscription.topics.includes(topic));
          if (subscribers.length === 0) continue;
          const owner = subscribers[next++ % subscribers.length];
          result[owner.memberId].partitions.push({ topic, partitions: [p] });
        }
      return result;
    },
  };
}

describe('server assignors in the registry', () => {
  it('gives uniform and range to consumer groups and refuses a classic-only name there with UNSUPPORTED_ASSIGNOR', () => {
    const registry = new AssignorRegistry();
    expect(registry.consumerGroupAssignorNames()).toEqual(['uniform', 'range']);
    expect(registry.requireConsumerGroupAssignor('uniform').name).toBe('uniform');
    const error = thrown(KafkaError, () => registry.requireConsumerGroupAssignor('roundrobin'));
    expect(error.errorName).toBe('UNSUPPORTED_ASSIGNOR');
  });

  it('refuses a plugin named like a built-in server assignor', () => {
    const registry = new AssignorRegistry();
    expect(() => registry.register({ ...keepOwnedPlugin([]), name: 'uniform' }, { source: "plugin './u.js'" })).toThrow(
      "cannot register assignor 'uniform' from plugin './u.js': the name clashes with a built-in assignor",
    );
  });

  it("runs a plugin for a consumer group with each member's current target as its owned partitions", () => {
    const seen: MemberSubscription[][] = [];
    const registry = new AssignorRegistry();
    registry.register(keepOwnedPlugin(seen), { source: "plugin './keep.js'" });
    const result = registry.requireConsumerGroupAssignor('keep-owned').assign(
      {
        members: [
          {
            memberId: 'a',
            subscribedTopics: ['orders'],
            assignment: [{ topic: 'orders', partitions: [2, 3] }],
            rackId: 'r1',
          },
          { memberId: 'b', subscribedTopics: ['orders'], assignment: [] },
        ],
      },
      { partitionsPerTopic: { orders: 4 } },
    );
    expect(seen[0][0].subscription).toEqual({
      topics: ['orders'],
      ownedPartitions: [{ topic: 'orders', partitions: [2, 3] }],
      rackId: 'r1',
    });
    // It keeps a's current target and deals the rest in turn.
    expect(result).toEqual({
      a: [
        { topic: 'orders', partitions: [2, 3] },
        { topic: 'orders', partitions: [0] },
      ],
      b: [{ topic: 'orders', partitions: [1] }],
    });
  });

  it('fails a consumer group assignment with an AssignorError when a plugin gives a partition to two members', () => {
    const registry = new AssignorRegistry();
    registry.register(
      {
        name: 'greedy',
        assign: (_c, members) =>
          Object.fromEntries(members.map((m) => [m.memberId, { partitions: [{ topic: 'orders', partitions: [0] }] }])),
      },
      { source: "plugin './greedy.js'" },
    );
    const group = {
      members: ['a', 'b'].map((memberId) => ({ memberId, subscribedTopics: ['orders'], assignment: [] })),
    };
    const error = thrown(AssignorError, () =>
      registry.requireConsumerGroupAssignor('greedy').assign(group, { partitionsPerTopic: { orders: 1 } }),
    );
    expect(error.failure).toBe('invalid-assignment');
  });
});

describe('the uniform assignor on ids given twice', () => {
  it('answers INVALID_REQUEST naming the id, however far apart the two are', () => {
    const members = Array.from({ length: 3000 }, (_, i) => ({
      memberId: `member-${i}`,
      subscribedTopics: ['orders'],
      assignment: [],
    }));
    members.push({ memberId: 'member-1777', subscribedTopics: ['orders'], assignment: [] });
    const error = thrown(KafkaError, () =>
      createUniformAssignor().assign({ members }, { partitionsPerTopic: { orders: 4 } }),
    );
    expect(error.errorName).toBe('INVALID_REQUEST');
    expect(error.message).toContain("'member-1777'");
  });
});

describe("the dry run with groupType 'consumer'", () => {
  const registry = new AssignorRegistry();

  it('runs the uniform assignor, keeping current targets where balance allows, and lists unknown topics', () => {
    const response = dryRunAssign(registry, 'uniform', {
      groupType: 'consumer',
      partitionsPerTopic: { orders: 4 },
      members: [
        { memberId: 'a', topics: ['orders', 'later'], ownedPartitions: [{ topic: 'orders', partitions: [1, 2, 3] }] },
        { memberId: 'b', topics: ['orders'] },
      ],
    });
    expect(response.unknownTopics).toEqual(['later']);
    const a = response.assignments.a.flatMap((entry) => entry.partitions).sort();
    const b = response.assignments.b.flatMap((entry) => entry.partitions).sort();
    expect(a).toHaveLength(2);
    expect([1, 2, 3]).toEqual(expect.arrayContaining(a));
    expect([...a, ...b].sort()).toEqual([0, 1, 2, 3]);
  });

  it('runs the server range assignor, which differs from the classic one only in name', () => {
    const body = {
      partitionsPerTopic: { orders: 3 },
      members: [
        { memberId: 'b', topics: ['orders'] },
        { memberId: 'a', topics: ['orders'] },
      ],
    };
    const consumer = dryRunAssign(registry, 'range', { ...body, groupType: 'consumer' });
    expect(consumer.assignments).toEqual({
      a: [{ topic: 'orders', partitions: [0, 1] }],
      b: [{ topic: 'orders', partitions: [2] }],
    });
    expect(dryRunAssign(registry, 'range', body).assignments).toEqual(consumer.assignments);
  });

  it('answers UNSUPPORTED_ASSIGNOR for a name no consumer group assignor has, and INVALID_REQUEST for a bad groupType', () => {
    const body = { groupType: 'consumer', partitionsPerTopic: {}, members: [] };
    expect(thrown(KafkaError, () => dryRunAssign(registry, 'sticky', body)).errorName).toBe('UNSUPPORTED_ASSIGNOR');
    const bad = thrown(KafkaError, () => dryRunAssign(registry, 'uniform', { ...body, groupType: 'share' }));
    expect(bad.errorName).toBe('INVALID_REQUEST');
    expect(bad.message).toContain('groupType');
  });

  it('refuses current targets that give one partition to two members, naming them', () => {
    const error = thrown(KafkaError, () =>
      dryRunAssign(registry, 'uniform', {
        groupType: 'consumer',
        partitionsPerTopic: { orders: 2 },
        members: [
          { memberId: 'a', topics: ['orders'], ownedPartitions: [{ topic: 'orders', partitions: [0] }] },
          { memberId: 'b', topics: ['orders'], ownedPartitions: [{ topic: 'orders', partitions: [0] }] },
        ],
      }),
    );
    expect(error.errorName).toBe('INVALID_REQUEST');
    expect(error.message).toContain('orders-0');
  });
});
