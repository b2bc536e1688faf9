import { createServerRangeAssignor, createUniformAssignor } from '@cohort/assignors';
import type { TopicPartitions as TopicPartitionList } from '@cohort/protocol';
import type { ConsumerAssignorGroupSpec, ConsumerGroupAssignorPort } from '../ports/consumer-assignor.port';
import { type ConsumerGroupMember, newConsumerGroupMember, updatedMember } from './consumer-group-member';
import { targetAssignmentEpochRecord, targetAssignmentRecord } from './consumer-records';
import { TargetAssignmentBuilder } from './target-assignment-builder';
import type { TopicPartitions } from './topic-partitions';

// Kafka's TargetAssignmentBuilderTest, case by case: the assignor is a double that answers the
// prepared assignment and records the group spec it was given, which each case checks as Kafka's
// `verify(assignor).assign(expectedSpec, ...)` does.

const NOW = 1_000;

function parts(byTopic: Record<string, number[]>): TopicPartitions {
  return new Map(Object.entries(byTopic).map(([topic, ps]) => [topic, new Set(ps)]));
}

function list(byTopic: Record<string, number[]>): TopicPartitionList[] {
  return Object.keys(byTopic)
    .sort()
    .map((topic) => ({ topic, partitions: byTopic[topic] }));
}

class Context {
  readonly members = new Map<string, ConsumerGroupMember>();
  readonly staticMembers = new Map<string, string>();
  readonly targets = new Map<string, TopicPartitions>();
  readonly topics: Record<string, number> = {};
  readonly updates = new Map<string, ConsumerGroupMember | null>();
  readonly prepared: Record<string, TopicPartitionList[]> = {};
  readonly calls: ConsumerAssignorGroupSpec[] = [];

  constructor(
    readonly groupId: string,
    readonly groupEpoch: number,
  ) {}

  addTopicMetadata(name: string, partitions: number): void {
    this.topics[name] = partitions;
  }

  addGroupMember(memberId: string, subscriptions: string[], target: TopicPartitions, instanceId: string | null = null) {
    this.members.set(
      memberId,
      newConsumerGroupMember(memberId, { subscribedTopicNames: new Set(subscriptions), instanceId }),
    );
    if (instanceId !== null) this.staticMembers.set(instanceId, memberId);
    this.targets.set(memberId, target);
  }

  updateMemberSubscription(memberId: string, subscriptions: string[], instanceId?: string, rackId?: string) {
    const existing = this.members.get(memberId) ?? newConsumerGroupMember(memberId);
    this.updates.set(
      memberId,
      updatedMember(existing, {
        subscribedTopicNames: new Set(subscriptions),
        instanceId: instanceId ?? existing.instanceId,
        rackId: rackId ?? existing.rackId,
      }),
    );
  }

  removeMemberSubscription(memberId: string): void {
    this.updates.set(memberId, null);
  }

  prepareMemberAssignment(memberId: string, assignment: Record<string, number[]>): void {
    this.prepared[memberId] = list(assignment);
  }

  build() {
    const assignor: ConsumerGroupAssignorPort = {
      name: 'double',
      assign: (group, cluster) => {
        this.calls.push(group);
        expect(cluster.partitionsPerTopic).toEqual(this.topics);
        return this.prepared;
      },
    };
    const builder = new TargetAssignmentBuilder(this.groupId, this.groupEpoch, assignor)
      .withMembers(this.members)
      .withStaticMembers(this.staticMembers)
      .withSubscriptionMetadata(this.topics)
      .withTargetAssignment(this.targets);
    for (const [memberId, member] of this.updates) {
      if (member) builder.addOrUpdateMember(memberId, member);
      else builder.removeMember(memberId);
    }
    const result = builder.build(NOW);
    expect(this.calls).toHaveLength(1);
    return result;
  }

  /** The members the assignor saw: id, instance, rack, subscription, current target. */
  specSeen(): Record<string, { instanceId: unknown; rackId: unknown; topics: string[]; assignment: unknown }> {
    const seen: Record<string, { instanceId: unknown; rackId: unknown; topics: string[]; assignment: unknown }> = {};
    for (const m of this.calls[0].members)
      seen[m.memberId] = {
        instanceId: m.instanceId,
        rackId: m.rackId,
        topics: [...m.subscribedTopics].sort(),
        assignment: m.assignment,
      };
    return seen;
  }
}

const epochRecord = targetAssignmentEpochRecord('my-group', 20, NOW);
const targetRecord = (memberId: string, byTopic: Record<string, number[]>) =>
  targetAssignmentRecord('my-group', memberId, parts(byTopic), NOW);

describe('TargetAssignmentBuilder (Kafka TargetAssignmentBuilderTest)', () => {
  it('writes only the new assignment epoch for a group without members (testEmpty)', () => {
    const context = new Context('my-group', 20);
    const result = context.build();
    expect(result.records).toEqual([epochRecord]);
    expect(result.targetAssignment).toEqual(new Map());
  });

  it('writes no member record when the assignor returns every member its current target (testAssignmentHasNotChanged)', () => {
    const context = new Context('my-group', 20);
    context.addTopicMetadata('foo', 6);
    context.addTopicMetadata('bar', 6);
    context.addGroupMember('member-1', ['foo', 'bar', 'zar'], parts({ foo: [1, 2, 3], bar: [1, 2, 3] }));
    context.addGroupMember('member-2', ['foo', 'bar', 'zar'], parts({ foo: [4, 5, 6], bar: [4, 5, 6] }));
    context.prepareMemberAssignment('member-1', { foo: [1, 2, 3], bar: [1, 2, 3] });
    context.prepareMemberAssignment('member-2', { foo: [4, 5, 6], bar: [4, 5, 6] });

    const result = context.build();
    expect(result.records).toEqual([epochRecord]);
    expect(result.targetAssignment).toEqual(
      new Map([
        ['member-1', parts({ foo: [1, 2, 3], bar: [1, 2, 3] })],
        ['member-2', parts({ foo: [4, 5, 6], bar: [4, 5, 6] })],
      ]),
    );
    expect(context.specSeen()).toEqual({
      'member-1': {
        instanceId: null,
        rackId: null,
        topics: ['bar', 'foo', 'zar'],
        assignment: list({ foo: [1, 2, 3], bar: [1, 2, 3] }),
      },
      'member-2': {
        instanceId: null,
        rackId: null,
        topics: ['bar', 'foo', 'zar'],
        assignment: list({ foo: [4, 5, 6], bar: [4, 5, 6] }),
      },
    });
  });

  it('keeps the very target a member holds when the assignor hands it back in another order', () => {
    const context = new Context('my-group', 20);
    context.addTopicMetadata('foo', 6);
    context.addTopicMetadata('bar', 6);
    const held = parts({ foo: [1, 2, 3], bar: [4, 5] });
    context.addGroupMember('member-1', ['foo', 'bar'], held);
    // As the uniform assignor answers an unchanged target: Java's order, frozen, the same list each call.
    const answer = Object.freeze([
      Object.freeze({ topic: 'foo', partitions: Object.freeze([3, 1, 2]) }),
      Object.freeze({ topic: 'bar', partitions: Object.freeze([5, 4]) }),
    ]) as unknown as TopicPartitionList[];
    context.prepared['member-1'] = answer;
    for (let call = 0; call < 2; call++) {
      context.calls.length = 0;
      const result = context.build();
      expect(result.records).toEqual([epochRecord]);
      expect(result.targetAssignment.get('member-1')).toBe(held);
    }
  });

  it('writes a record for each of two members whose targets were swapped, then the epoch (testAssignmentSwapped)', () => {
    const context = new Context('my-group', 20);
    context.addTopicMetadata('foo', 6);
    context.addTopicMetadata('bar', 6);
    context.addGroupMember('member-1', ['foo', 'bar', 'zar'], parts({ foo: [1, 2, 3], bar: [1, 2, 3] }));
    context.addGroupMember('member-2', ['foo', 'bar', 'zar'], parts({ foo: [4, 5, 6], bar: [4, 5, 6] }));
    context.prepareMemberAssignment('member-2', { foo: [1, 2, 3], bar: [1, 2, 3] });
    context.prepareMemberAssignment('member-1', { foo: [4, 5, 6], bar: [4, 5, 6] });

    const result = context.build();
    expect(result.records).toHaveLength(3);
    expect(result.records.slice(0, 2)).toEqual(
      expect.arrayContaining([
        targetRecord('member-1', { foo: [4, 5, 6], bar: [4, 5, 6] }),
        targetRecord('member-2', { foo: [1, 2, 3], bar: [1, 2, 3] }),
      ]),
    );
    expect(result.records[2]).toEqual(epochRecord);
  });

  it('gives a new member a target record, and the others whose targets shrank theirs (testNewMember)', () => {
    const context = new Context('my-group', 20);
    context.addTopicMetadata('foo', 6);
    context.addTopicMetadata('bar', 6);
    context.addGroupMember('member-1', ['foo', 'bar', 'zar'], parts({ foo: [1, 2, 3], bar: [1, 2, 3] }));
    context.addGroupMember('member-2', ['foo', 'bar', 'zar'], parts({ foo: [4, 5, 6], bar: [4, 5, 6] }));
    context.updateMemberSubscription('member-3', ['foo', 'bar', 'zar']);
    context.prepareMemberAssignment('member-1', { foo: [1, 2], bar: [1, 2] });
    context.prepareMemberAssignment('member-2', { foo: [3, 4], bar: [3, 4] });
    context.prepareMemberAssignment('member-3', { foo: [5, 6], bar: [5, 6] });

    const result = context.build();
    expect(result.records).toHaveLength(4);
    expect(result.records.slice(0, 3)).toEqual(
      expect.arrayContaining([
        targetRecord('member-1', { foo: [1, 2], bar: [1, 2] }),
        targetRecord('member-2', { foo: [3, 4], bar: [3, 4] }),
        targetRecord('member-3', { foo: [5, 6], bar: [5, 6] }),
      ]),
    );
    expect(result.records[3]).toEqual(epochRecord);
    // The new member reaches the assignor with no target yet.
    expect(context.specSeen()['member-3']).toEqual({
      instanceId: null,
      rackId: null,
      topics: ['bar', 'foo', 'zar'],
      assignment: [],
    });
  });

  it('passes an updated member to the assignor with its new subscription, instance and rack (testUpdateMember)', () => {
    const context = new Context('my-group', 20);
    context.addTopicMetadata('foo', 6);
    context.addTopicMetadata('bar', 6);
    context.addGroupMember('member-1', ['foo', 'bar', 'zar'], parts({ foo: [1, 2, 3], bar: [1, 2] }));
    context.addGroupMember('member-2', ['foo', 'bar', 'zar'], parts({ foo: [4, 5, 6], bar: [3, 4] }));
    context.addGroupMember('member-3', ['bar', 'zar'], parts({ bar: [5, 6] }));
    context.updateMemberSubscription('member-3', ['foo', 'bar', 'zar'], 'instance-id-3', 'rack-0');
    context.prepareMemberAssignment('member-1', { foo: [1, 2], bar: [1, 2] });
    context.prepareMemberAssignment('member-2', { foo: [3, 4], bar: [3, 4] });
    context.prepareMemberAssignment('member-3', { foo: [5, 6], bar: [5, 6] });

    const result = context.build();
    expect(result.records).toHaveLength(4);
    expect(result.records.slice(0, 3)).toEqual(
      expect.arrayContaining([
        targetRecord('member-1', { foo: [1, 2], bar: [1, 2] }),
        targetRecord('member-2', { foo: [3, 4], bar: [3, 4] }),
        targetRecord('member-3', { foo: [5, 6], bar: [5, 6] }),
      ]),
    );
    expect(result.records[3]).toEqual(epochRecord);
    expect(context.specSeen()['member-3']).toEqual({
      instanceId: 'instance-id-3',
      rackId: 'rack-0',
      topics: ['bar', 'foo', 'zar'],
      assignment: list({ bar: [5, 6] }),
    });
  });

  it('writes records only for the members whose target changed (testPartialAssignmentUpdate)', () => {
    const context = new Context('my-group', 20);
    context.addTopicMetadata('foo', 6);
    context.addTopicMetadata('bar', 6);
    context.addGroupMember('member-1', ['foo', 'bar', 'zar'], parts({ foo: [1, 2], bar: [1, 2] }));
    context.addGroupMember('member-2', ['foo', 'bar', 'zar'], parts({ foo: [3, 4], bar: [3, 4] }));
    context.addGroupMember('member-3', ['bar', 'zar'], parts({ foo: [5, 6], bar: [5, 6] }));
    context.prepareMemberAssignment('member-1', { foo: [1, 2], bar: [1, 2] });
    context.prepareMemberAssignment('member-2', { foo: [3, 4, 5], bar: [3, 4, 5] });
    context.prepareMemberAssignment('member-3', { foo: [6], bar: [6] });

    const result = context.build();
    // Member 1 has no record: its target did not change.
    expect(result.records).toHaveLength(3);
    expect(result.records.slice(0, 2)).toEqual(
      expect.arrayContaining([
        targetRecord('member-2', { foo: [3, 4, 5], bar: [3, 4, 5] }),
        targetRecord('member-3', { foo: [6], bar: [6] }),
      ]),
    );
    expect(result.records[2]).toEqual(epochRecord);
  });

  it('leaves a removed member out of the assignor input and the result (testDeleteMember)', () => {
    const context = new Context('my-group', 20);
    context.addTopicMetadata('foo', 6);
    context.addTopicMetadata('bar', 6);
    context.addGroupMember('member-1', ['foo', 'bar', 'zar'], parts({ foo: [1, 2], bar: [1, 2] }));
    context.addGroupMember('member-2', ['foo', 'bar', 'zar'], parts({ foo: [3, 4], bar: [3, 4] }));
    context.addGroupMember('member-3', ['foo', 'bar', 'zar'], parts({ foo: [5, 6], bar: [5, 6] }));
    context.removeMemberSubscription('member-3');
    context.prepareMemberAssignment('member-1', { foo: [1, 2, 3], bar: [1, 2, 3] });
    context.prepareMemberAssignment('member-2', { foo: [4, 5, 6], bar: [4, 5, 6] });

    const result = context.build();
    expect(result.records).toHaveLength(3);
    expect(result.records.slice(0, 2)).toEqual(
      expect.arrayContaining([
        targetRecord('member-1', { foo: [1, 2, 3], bar: [1, 2, 3] }),
        targetRecord('member-2', { foo: [4, 5, 6], bar: [4, 5, 6] }),
      ]),
    );
    expect(result.records[2]).toEqual(epochRecord);
    expect(Object.keys(context.specSeen()).sort()).toEqual(['member-1', 'member-2']);
    expect([...result.targetAssignment.keys()].sort()).toEqual(['member-1', 'member-2']);
  });

  it('hands a static member that replaces a departed one its predecessor target as its current one (testReplaceStaticMember)', () => {
    const context = new Context('my-group', 20);
    context.addTopicMetadata('foo', 6);
    context.addTopicMetadata('bar', 6);
    context.addGroupMember('member-1', ['foo', 'bar', 'zar'], parts({ foo: [1, 2], bar: [1, 2] }), 'instance-member-1');
    context.addGroupMember('member-2', ['foo', 'bar', 'zar'], parts({ foo: [3, 4], bar: [3, 4] }), 'instance-member-2');
    context.addGroupMember('member-3', ['foo', 'bar', 'zar'], parts({ foo: [5, 6], bar: [5, 6] }), 'instance-member-3');
    // Static member 3 leaves; another joins with the same instance id.
    context.removeMemberSubscription('member-3');
    context.updateMemberSubscription('member-3-a', ['foo', 'bar', 'zar'], 'instance-member-3');
    context.prepareMemberAssignment('member-1', { foo: [1, 2], bar: [1, 2] });
    context.prepareMemberAssignment('member-2', { foo: [3, 4], bar: [3, 4] });
    context.prepareMemberAssignment('member-3-a', { foo: [5, 6], bar: [5, 6] });

    const result = context.build();
    expect(result.records).toEqual([targetRecord('member-3-a', { foo: [5, 6], bar: [5, 6] }), epochRecord]);
    expect(context.specSeen()['member-3-a'].assignment).toEqual(list({ foo: [5, 6], bar: [5, 6] }));
    expect(result.targetAssignment).toEqual(
      new Map([
        ['member-1', parts({ foo: [1, 2], bar: [1, 2] })],
        ['member-2', parts({ foo: [3, 4], bar: [3, 4] })],
        ['member-3-a', parts({ foo: [5, 6], bar: [5, 6] })],
      ]),
    );
  });

  it("gives a member the assignor leaves out an empty target (Kafka's Assignment.EMPTY)", () => {
    const context = new Context('my-group', 20);
    context.addTopicMetadata('foo', 2);
    context.addGroupMember('member-1', ['foo'], parts({ foo: [0, 1] }));
    const result = context.build();
    expect(result.targetAssignment).toEqual(new Map([['member-1', new Map()]]));
    expect(result.records).toEqual([targetAssignmentRecord('my-group', 'member-1', new Map(), NOW), epochRecord]);
  });

  it("computes the range assignor's target from the group's subscriptions, a resolved regex's topics included", () => {
    const a = newConsumerGroupMember('a', { subscribedTopicNames: new Set(['orders']) });
    const b = newConsumerGroupMember('b', { subscribedTopicNames: new Set(), subscribedTopicRegex: 'ord.*' });
    const result = new TargetAssignmentBuilder('g', 3, createServerRangeAssignor())
      .withMembers(new Map([['a', a]]))
      .withSubscriptionMetadata({ orders: 4 })
      .withResolvedRegularExpressions(new Map([['ord.*', new Set(['orders'])]]))
      .addOrUpdateMember('b', b)
      .build(NOW);
    expect(result.targetAssignment).toEqual(
      new Map([
        ['a', parts({ orders: [0, 1] })],
        ['b', parts({ orders: [2, 3] })],
      ]),
    );
    expect(result.records.at(-1)).toEqual(targetAssignmentEpochRecord('g', 3, NOW));
  });

  it("takes the uniform assignor's targets in the group's order, as its record by member id gives them", () => {
    // Ids whose Java hash order differs from the group's order, one named as a prototype key, and two
    // subscriptions, so that a target read at another member's index would hold a topic not subscribed.
    const subscriptions = new Map([
      ['zeta', ['a']],
      ['alpha', ['b']],
      ['__proto__', ['a']],
      ['mid', ['b']],
      ['x', ['a']],
    ]);
    const members = new Map(
      [...subscriptions].map(([id, topics]) => [
        id,
        newConsumerGroupMember(id, { subscribedTopicNames: new Set(topics) }),
      ]),
    );
    const build = (assignor: ConsumerGroupAssignorPort) =>
      new TargetAssignmentBuilder('g', 1, assignor)
        .withMembers(members)
        .withSubscriptionMetadata({ a: 7, b: 4 })
        .build(NOW);
    const uniform = createUniformAssignor();
    const byRecord = build({ name: 'uniform', assign: (group, cluster) => uniform.assign(group, cluster) });
    const byTargets = build(createUniformAssignor());
    expect(byTargets).toEqual(byRecord);
    expect(byTargets.targetAssignment.size).toBe(5);
    for (const [id, target] of byTargets.targetAssignment) {
      expect(target.size).toBe(1);
      for (const topic of target.keys()) expect(subscriptions.get(id)).toContain(topic);
    }
  });
});
