import { ConsumerGroup } from './consumer-group';
import { newConsumerGroupMember, updatedMember } from './consumer-group-member';
import { MemberState } from './member-state';
import type { TopicPartitions } from './topic-partitions';

// Kafka's ConsumerGroupTest cases for the state this core keeps (members, partition epochs, group
// state, assignor votes, subscription type, inverted target).

function parts(byTopic: Record<string, number[]>): TopicPartitions {
  return new Map(Object.entries(byTopic).map(([topic, ps]) => [topic, new Set(ps)]));
}

describe('ConsumerGroup (Kafka ConsumerGroupTest)', () => {
  it('finds a static member by its instance id and forgets it when it is removed (testGetStaticMemberByInstanceId, testRemoveStaticMember)', () => {
    const group = new ConsumerGroup('foo');
    expect(group.staticMember('instance')).toBeUndefined();
    const member = newConsumerGroupMember('member', {
      subscribedTopicNames: new Set(['foo', 'bar']),
      instanceId: 'instance',
    });
    group.updateMember(member);
    expect(group.staticMember('instance')).toBe(member);
    expect(group.member('member')).toBe(member);
    expect(group.staticMemberId('instance')).toBe('member');

    group.removeMember('member');
    expect(group.member('member')).toBeUndefined();
    expect(group.staticMember('instance')).toBeUndefined();
    expect(group.staticMemberId('instance')).toBeUndefined();
  });

  it('records the epoch each partition is owned at, assigned or pending revocation (testUpdatingMemberUpdatesPartitionEpoch)', () => {
    const group = new ConsumerGroup('foo');
    let member = newConsumerGroupMember('member', {
      memberEpoch: 10,
      assignedPartitions: parts({ foo: [1, 2, 3] }),
      partitionsPendingRevocation: parts({ bar: [4, 5, 6] }),
    });
    group.updateMember(member);
    for (const p of [1, 2, 3]) expect(group.currentPartitionEpoch('foo', p)).toBe(10);
    for (const p of [4, 5, 6]) expect(group.currentPartitionEpoch('bar', p)).toBe(10);
    for (const p of [7, 8, 9]) expect(group.currentPartitionEpoch('zar', p)).toBe(-1);

    member = updatedMember(member, {
      memberEpoch: 11,
      assignedPartitions: parts({ bar: [1, 2, 3] }),
      partitionsPendingRevocation: parts({ zar: [4, 5, 6] }),
    });
    group.updateMember(member);
    for (const p of [1, 2, 3]) expect(group.currentPartitionEpoch('bar', p)).toBe(11);
    for (const p of [4, 5, 6]) expect(group.currentPartitionEpoch('zar', p)).toBe(11);
    for (const p of [1, 2, 3]) expect(group.currentPartitionEpoch('foo', p)).toBe(-1);
  });

  it('lets a member take back at a new epoch a partition it was revoking (testUpdatingMemberUpdatesPartitionEpochWhenPartitionIsReassignedBeforeBeingRevoked)', () => {
    const group = new ConsumerGroup('foo');
    const member = newConsumerGroupMember('member', {
      memberEpoch: 10,
      partitionsPendingRevocation: parts({ foo: [1] }),
    });
    group.updateMember(member);
    expect(group.currentPartitionEpoch('foo', 1)).toBe(10);
    group.updateMember(
      updatedMember(member, {
        memberEpoch: 11,
        assignedPartitions: parts({ foo: [1] }),
        partitionsPendingRevocation: new Map(),
      }),
    );
    expect(group.currentPartitionEpoch('foo', 1)).toBe(11);
  });

  it('refuses to give a partition to a second member while the first still owns it (testUpdatingMemberUpdatesPartitionEpochWhenPartitionIsNotReleased)', () => {
    const group = new ConsumerGroup('foo');
    group.updateMember(newConsumerGroupMember('m1', { memberEpoch: 10, assignedPartitions: parts({ foo: [1] }) }));
    expect(() =>
      group.updateMember(newConsumerGroupMember('m2', { memberEpoch: 10, assignedPartitions: parts({ foo: [1] }) })),
    ).toThrow(/still owned at epoch 10/);
  });

  it('a refused member change leaves the group as it was, so the member can still be fenced later (from a timer) and its partitions move on', () => {
    const group = new ConsumerGroup('foo');
    group.updateMember(newConsumerGroupMember('m1', { memberEpoch: 9, assignedPartitions: parts({ clicks: [3] }) }));
    const m2 = newConsumerGroupMember('m2', { memberEpoch: 9, assignedPartitions: parts({ clicks: [1] }) });
    group.updateMember(m2);
    // m2 would take clicks-4 and clicks-3, which m1 still owns: refused before anything moved.
    expect(() =>
      group.updateMember(updatedMember(m2, { memberEpoch: 10, assignedPartitions: parts({ clicks: [4, 3] }) })),
    ).toThrow(/clicks-3 to 10 because the partition is still owned at epoch 9/);
    expect(group.member('m2')).toBe(m2);
    expect([1, 3, 4].map((p) => group.currentPartitionEpoch('clicks', p))).toEqual([9, 9, -1]);
    // The fencings a session timer makes: the current assignment tombstone, then the member's removal.
    group.updateMember(
      updatedMember(m2, { memberEpoch: -1, assignedPartitions: new Map(), partitionsPendingRevocation: new Map() }),
    );
    group.removeMember('m2');
    group.removeMember('m1');
    expect([1, 3, 4].map((p) => group.currentPartitionEpoch('clicks', p))).toEqual([-1, -1, -1]);
    group.updateMember(
      newConsumerGroupMember('m3', { memberEpoch: 11, assignedPartitions: parts({ clicks: [3, 4] }) }),
    );
    expect(group.currentPartitionEpoch('clicks', 3)).toBe(11);
  });

  it('a member changing only what it subscribes to keeps its partitions at their epoch, still refused to another member', () => {
    const group = new ConsumerGroup('foo');
    const m1 = newConsumerGroupMember('m1', {
      memberEpoch: 7,
      assignedPartitions: parts({ clicks: [1] }),
      partitionsPendingRevocation: parts({ clicks: [2] }),
    });
    group.updateMember(m1);
    group.updateMember(updatedMember(m1, { subscribedTopicNames: new Set(['clicks', 'views']) }));
    expect([1, 2].map((p) => group.currentPartitionEpoch('clicks', p))).toEqual([7, 7]);
    expect(() =>
      group.updateMember(newConsumerGroupMember('m2', { memberEpoch: 8, assignedPartitions: parts({ clicks: [2] }) })),
    ).toThrow(/clicks-2 to 8 because the partition is still owned at epoch 7/);
    group.removeMember('m1');
    expect([1, 2].map((p) => group.currentPartitionEpoch('clicks', p))).toEqual([-1, -1]);
  });

  it('a partition listed both as assigned and pending revocation is refused whole', () => {
    const group = new ConsumerGroup('foo');
    expect(() =>
      group.updateMember(
        newConsumerGroupMember('m1', {
          memberEpoch: 5,
          assignedPartitions: parts({ clicks: [2, 3] }),
          partitionsPendingRevocation: parts({ clicks: [3] }),
        }),
      ),
    ).toThrow(/clicks-3 to 5/);
    expect(group.member('m1')).toBeUndefined();
    expect(group.currentPartitionEpoch('clicks', 2)).toBe(-1);
  });

  it('refuses to release a partition nobody owns or that is owned at another epoch (testRemovePartitionEpochs)', () => {
    const group = new ConsumerGroup('foo');
    expect(() => group.removePartitionEpochs(parts({ foo: [1] }), 10)).toThrow(/does not have any epoch/);
    group.updateMember(newConsumerGroupMember('m1', { memberEpoch: 10, assignedPartitions: parts({ foo: [1] }) }));
    expect(() => group.removePartitionEpochs(parts({ foo: [1] }), 11)).toThrow(/different epoch 10/);
  });

  it('refuses to change the epoch of an owned partition without its release first (testAddPartitionEpochs)', () => {
    const group = new ConsumerGroup('foo');
    group.addPartitionEpochs(parts({ foo: [1] }), 10);
    expect(() => group.addPartitionEpochs(parts({ foo: [1] }), 11)).toThrow(/still owned at epoch 10/);
  });

  it('releases every partition of a member that is removed (testDeletingMemberRemovesPartitionEpoch)', () => {
    const group = new ConsumerGroup('foo');
    group.updateMember(
      newConsumerGroupMember('member', {
        memberEpoch: 10,
        assignedPartitions: parts({ foo: [1, 2, 3] }),
        partitionsPendingRevocation: parts({ bar: [4, 5, 6] }),
      }),
    );
    group.removeMember('member');
    for (const p of [1, 2, 3]) expect(group.currentPartitionEpoch('foo', p)).toBe(-1);
    for (const p of [4, 5, 6]) expect(group.currentPartitionEpoch('bar', p)).toBe(-1);
  });

  it('says a member waits on an unreleased partition only while another member still owns one of its target (testWaitingOnUnreleasedPartition)', () => {
    const group = new ConsumerGroup('foo');
    group.updateTargetAssignment('m1', parts({ foo: [1, 2, 3], zar: [7, 8, 9] }));
    const m1 = newConsumerGroupMember('m1', {
      memberEpoch: 10,
      state: MemberState.UNRELEASED_PARTITIONS,
      assignedPartitions: parts({ foo: [1, 2, 3] }),
      partitionsPendingRevocation: parts({ bar: [4, 5, 6] }),
    });
    group.updateMember(m1);
    expect(group.waitingOnUnreleasedPartition(m1)).toBe(false);
    group.updateMember(
      newConsumerGroupMember('m2', { memberEpoch: 10, partitionsPendingRevocation: parts({ zar: [7] }) }),
    );
    expect(group.waitingOnUnreleasedPartition(m1)).toBe(true);
  });

  it('goes Empty, Assigning, Reconciling and Stable as the epochs and members move (testGroupState)', () => {
    const group = new ConsumerGroup('foo');
    expect(group.state).toBe('Empty');

    let m1 = newConsumerGroupMember('member1', { state: MemberState.STABLE, memberEpoch: 1, previousMemberEpoch: 0 });
    group.updateMember(m1);
    group.setGroupEpoch(1);
    expect(group.state).toBe('Assigning');

    let m2 = newConsumerGroupMember('member2', { state: MemberState.STABLE, memberEpoch: 1, previousMemberEpoch: 0 });
    group.updateMember(m2);
    group.setGroupEpoch(2);
    expect(group.state).toBe('Assigning');

    group.setTargetAssignmentEpoch(2);
    expect(group.state).toBe('Reconciling');

    m1 = updatedMember(m1, { state: MemberState.STABLE, memberEpoch: 2, previousMemberEpoch: 1 });
    group.updateMember(m1);
    expect(group.state).toBe('Reconciling');

    // Member 2 is not stable, so the group keeps reconciling.
    m2 = updatedMember(m2, { state: MemberState.UNREVOKED_PARTITIONS, memberEpoch: 2, previousMemberEpoch: 1 });
    group.updateMember(m2);
    expect(group.state).toBe('Reconciling');

    m2 = updatedMember(m2, { state: MemberState.STABLE });
    group.updateMember(m2);
    expect(group.state).toBe('Stable');

    group.removeMember('member1');
    group.removeMember('member2');
    expect(group.state).toBe('Empty');
  });

  it('prefers the server assignor most members ask for, before and after a change (testPreferredServerAssignor)', () => {
    const group = new ConsumerGroup('foo');
    const m1 = newConsumerGroupMember('member1', { serverAssignorName: 'range' });
    const m2 = newConsumerGroupMember('member2', { serverAssignorName: 'range' });
    const m3 = newConsumerGroupMember('member3', { serverAssignorName: 'uniform' });

    expect(group.preferredServerAssignor()).toBeUndefined();
    expect(group.computePreferredServerAssignor(undefined, m1)).toBe('range');
    group.updateMember(m1);
    expect(group.preferredServerAssignor()).toBe('range');
    expect(group.computePreferredServerAssignor(m1, undefined)).toBeUndefined();
    expect(group.computePreferredServerAssignor(undefined, m2)).toBe('range');
    group.updateMember(m2);
    expect(group.preferredServerAssignor()).toBe('range');
    group.updateMember(m3);
    expect(group.preferredServerAssignor()).toBe('range');

    const none = (id: string) => newConsumerGroupMember(id, { serverAssignorName: null });
    // One range vote and one uniform vote: either may win (Kafka leaves it to hash order).
    expect(['range', 'uniform']).toContain(group.computePreferredServerAssignor(m1, none('member1')));
    group.updateMember(none('member1'));
    expect(group.computePreferredServerAssignor(m2, none('member2'))).toBe('uniform');
    group.updateMember(none('member2'));
    expect(group.preferredServerAssignor()).toBe('uniform');
    expect(group.computePreferredServerAssignor(m3, none('member3'))).toBeUndefined();
    group.updateMember(none('member3'));
    expect(group.preferredServerAssignor()).toBeUndefined();
  });

  it('is homogeneous while every member subscribes to the same topics (testUpdateSubscribedTopicNamesAndSubscriptionType)', () => {
    const group = new ConsumerGroup('group-foo');
    const m1 = newConsumerGroupMember('member1', { subscribedTopicNames: new Set(['foo']) });
    const m2 = newConsumerGroupMember('member2', { subscribedTopicNames: new Set(['bar', 'foo']) });
    const m3 = newConsumerGroupMember('member3', { subscribedTopicNames: new Set(['bar', 'foo']) });
    expect(group.subscribedTopicNames).toEqual(new Map());
    expect(group.subscriptionType).toBe('homogeneous');
    group.updateMember(m1);
    expect(group.subscriptionType).toBe('homogeneous');
    group.updateMember(m2);
    expect(group.subscriptionType).toBe('heterogeneous');
    group.updateMember(m3);
    expect(group.subscriptionType).toBe('heterogeneous');
    expect(group.subscribedTopicNames).toEqual(
      new Map([
        ['foo', 3],
        ['bar', 2],
      ]),
    );
    group.removeMember('member1');
    expect(group.subscriptionType).toBe('homogeneous');
    group.updateMember(newConsumerGroupMember('member2', { subscribedTopicNames: new Set(['bar', 'foo', 'zar']) }));
    expect(group.subscriptionType).toBe('heterogeneous');
    expect(group.isSubscribedToTopic('zar')).toBe(true);
  });

  it('keeps the inverted target right when a partition moves to another member before the first lets go (testUpdateInvertedAssignment)', () => {
    const group = new ConsumerGroup('test-group');
    group.updateTargetAssignment('member1', parts({ t: [0] }));
    expect(group.invertedTargetAssignment).toEqual(new Map([['t', new Map([[0, 'member1']])]]));
    group.updateTargetAssignment('member1', parts({ t: [1] }));
    expect(group.invertedTargetAssignment).toEqual(new Map([['t', new Map([[1, 'member1']])]]));
    group.updateTargetAssignment('member2', parts({ t: [1] }));
    expect(group.invertedTargetAssignment).toEqual(new Map([['t', new Map([[1, 'member2']])]]));
    group.updateTargetAssignment('member1', parts({ t: [0] }));
    expect(group.invertedTargetAssignment).toEqual(
      new Map([
        [
          't',
          new Map([
            [0, 'member1'],
            [1, 'member2'],
          ]),
        ],
      ]),
    );
    group.removeTargetAssignment('member1');
    expect(group.invertedTargetAssignment).toEqual(new Map([['t', new Map([[1, 'member2']])]]));
  });

  it('gives a static member that replaces another its predecessor target (Kafka targetAssignment(memberId, instanceId))', () => {
    const group = new ConsumerGroup('foo');
    group.updateMember(newConsumerGroupMember('old', { instanceId: 'i1', memberEpoch: -2 }));
    group.updateTargetAssignment('old', parts({ foo: [0, 1] }));
    expect(group.targetAssignmentFor('new', 'i1')).toEqual(parts({ foo: [0, 1] }));
    expect(group.targetAssignmentFor('new', 'i2')).toEqual(new Map());
    expect(group.targetAssignmentFor('old', null)).toEqual(parts({ foo: [0, 1] }));
  });

  it('becomes Stable when the only member still reconciling leaves', () => {
    const group = new ConsumerGroup('foo');
    group.setGroupEpoch(3);
    group.setTargetAssignmentEpoch(3);
    group.updateMember(newConsumerGroupMember('done', { memberEpoch: 3 }));
    group.updateMember(newConsumerGroupMember('late', { memberEpoch: 2 }));
    expect(group.state).toBe('Reconciling');
    group.removeMember('late');
    expect(group.state).toBe('Stable');
  });

  it("keeps its state equal to Kafka's walk over every member through a long run of random changes", () => {
    let seed = 42;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed >>> 16) % n;
    };
    const group = new ConsumerGroup('random');
    const states = [MemberState.STABLE, MemberState.UNREVOKED_PARTITIONS, MemberState.UNRELEASED_PARTITIONS];
    const walked = (): string => {
      if (group.size === 0) return 'Empty';
      if (group.groupEpoch > group.assignmentEpoch) return 'Assigning';
      for (const m of group.members.values())
        if (m.state !== MemberState.STABLE || m.memberEpoch !== group.assignmentEpoch) return 'Reconciling';
      return 'Stable';
    };
    for (let step = 0; step < 2000; step++) {
      const op = next(4);
      // Members are mostly reconciled, so the group keeps crossing between Reconciling and Stable.
      if (op === 0)
        group.updateMember(
          newConsumerGroupMember(`m${next(4)}`, {
            memberEpoch: next(4) > 0 ? group.assignmentEpoch : next(3),
            state: next(4) > 0 ? MemberState.STABLE : states[next(3)],
          }),
        );
      else if (op === 1) group.removeMember(`m${next(4)}`);
      else if (op === 2) group.setGroupEpoch(next(3));
      else group.setTargetAssignmentEpoch(next(3));
      expect(group.state).toBe(walked());
    }
  });
});
