import { createServerRangeAssignor, createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness, track } from '@cohort/coordinator/testing';

/** Every partition a heartbeat answer assigns, as `topic-partition` strings. */
function owned(response: P.ConsumerGroupHeartbeatResponse | undefined): string[] {
  return (response?.assignment?.topicPartitions ?? []).flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`));
}

describe('consumer groups on the coordinator (KIP-848 through the shard)', () => {
  let h: CoordinatorHarness;
  const ctx = { clientId: 'client', clientHost: '/127.0.0.1' };

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor(), createServerRangeAssignor()],
    });
    await h.settle();
  });

  const heartbeat = (request: Partial<P.ConsumerGroupHeartbeatRequest> & { memberId: string; memberEpoch: number }) =>
    h.coordinator.consumerGroupHeartbeat({ groupId: 'cg', ...request }, ctx);

  const join = (memberId: string) =>
    heartbeat({
      memberId,
      memberEpoch: 0,
      subscribedTopicNames: ['orders'],
      rebalanceTimeoutMs: 60_000,
      topicPartitions: [],
    });

  /** Members that join one after the other, then converge (`converge`): each member's last answer. */
  async function formed(...memberIds: string[]): Promise<Map<string, P.ConsumerGroupHeartbeatResponse>> {
    const epochs = new Map<string, number>();
    for (const memberId of memberIds) epochs.set(memberId, (await join(memberId)).memberEpoch);
    return converge(epochs);
  }

  /** Heartbeats every member until no answer changes anything; returns each member's last answer. */
  async function converge(epochs: Map<string, number>): Promise<Map<string, P.ConsumerGroupHeartbeatResponse>> {
    const last = new Map<string, P.ConsumerGroupHeartbeatResponse>();
    const held = new Map<string, P.TopicPartitions[]>();
    for (let round = 0; round < 10; round++) {
      for (const [memberId, epoch] of epochs) {
        const response = await heartbeat({ memberId, memberEpoch: epoch, topicPartitions: held.get(memberId) ?? [] });
        expect(response.errorCode).toBe(0);
        epochs.set(memberId, response.memberEpoch);
        if (response.assignment) held.set(memberId, response.assignment.topicPartitions);
        last.set(memberId, { ...response, assignment: { topicPartitions: held.get(memberId) ?? [] } });
      }
    }
    return last;
  }

  it('two members that join get disjoint assignments covering the topic, and the one left gets everything', async () => {
    const a = await join('member-a');
    const b = await join('member-b');
    expect([a.errorCode, b.errorCode]).toEqual([0, 0]);
    let answers = await converge(
      new Map([
        ['member-a', a.memberEpoch],
        ['member-b', b.memberEpoch],
      ]),
    );
    const ownedA = owned(answers.get('member-a'));
    const ownedB = owned(answers.get('member-b'));
    expect(ownedA.length).toBe(2);
    expect(ownedB.length).toBe(2);
    expect([...ownedA, ...ownedB].sort()).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);

    const leave = await heartbeat({ memberId: 'member-b', memberEpoch: -1 });
    expect(leave).toMatchObject({ errorCode: 0, memberId: 'member-b', memberEpoch: -1 });
    answers = await converge(new Map([['member-a', answers.get('member-a')!.memberEpoch]]));
    expect(owned(answers.get('member-a')).sort()).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);
    const described = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    expect(described.groups[0]).toMatchObject({ groupId: 'cg', groupState: 'Stable', assignorName: 'uniform' });
    expect(described.groups[0].members.map((m) => m.memberId)).toEqual(['member-a']);
  });

  it('a consumer group survives a restart: the same epochs, members and assignments, and its members carry on', async () => {
    const answers = await formed('member-a', 'member-b');
    const before = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    await h.restart();
    const after = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    expect(after).toEqual(before);
    expect(after.groups[0].groupState).toBe('Stable');
    const again = await heartbeat({ memberId: 'member-a', memberEpoch: answers.get('member-a')!.memberEpoch });
    expect(again).toMatchObject({ errorCode: 0, memberEpoch: answers.get('member-a')!.memberEpoch });
  });

  it('a member whose session timers came back with the load is fenced one session timeout after the restart', async () => {
    const a = await join('member-a');
    await converge(new Map([['member-a', a.memberEpoch]]));
    await h.restart();
    await h.advance(h.config.groupConsumerSessionTimeoutMs + 1);
    const described = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    expect(described.groups[0]).toMatchObject({ groupState: 'Empty', members: [] });
    // The fencing was written: a second restart still has no member.
    await h.restart();
    expect((await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).groups[0].members).toEqual([]);
  });

  it('a join is answered only once its records are committed, and a heartbeat that writes nothing waits for them too', async () => {
    const a = await join('member-a');
    await converge(new Map([['member-a', a.memberEpoch]]));
    h.store.autoCommit = false;
    const joining = track(join('member-b'));
    await h.settle();
    expect(joining.done).toBe(false);
    // member-a's heartbeat writes nothing but read the state member-b's join put in place.
    const steady = track(heartbeat({ memberId: 'member-a', memberEpoch: a.memberEpoch }));
    await h.settle();
    expect(steady.done).toBe(false);
    h.store.advanceHighWatermark(h.partitionOf('cg'));
    await h.settle();
    expect(joining.value.errorCode).toBe(0);
    expect(steady.value.errorCode).toBe(0);
  });

  it('steady heartbeats arriving together are each answered with their own epoch and no assignment once the writes they read commit, and each with the failure when those fail', async () => {
    const answers = await formed('member-a', 'member-b');
    const epochA = answers.get('member-a')!.memberEpoch;
    const epochB = answers.get('member-b')!.memberEpoch;
    const steadyBoth = () => [
      track(heartbeat({ memberId: 'member-a', memberEpoch: epochA })),
      track(heartbeat({ memberId: 'member-b', memberEpoch: epochB })),
    ];
    h.store.autoCommit = false;
    // A join in flight: both steady heartbeats (one turn, one batch) read its uncommitted epoch.
    const joining = track(join('member-c'));
    await h.settle();
    const waiting = steadyBoth();
    await h.settle();
    expect(waiting.map((t) => t.done)).toEqual([false, false]);
    h.store.failPendingCommits(h.partitionOf('cg'), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'moved'));
    await h.settle();
    expect([joining, ...waiting].map((t) => t.value.errorCode)).toEqual([
      ErrorCode.NOT_COORDINATOR,
      ErrorCode.NOT_COORDINATOR,
      ErrorCode.NOT_COORDINATOR,
    ]);
    // Nothing pending: each is answered at once, with its own member, its epoch and no assignment (Kafka
    // leaves out an assignment that did not change).
    const steady = steadyBoth();
    await h.settle();
    expect(steady.map((t) => t.value)).toEqual([
      { errorCode: 0, memberId: 'member-a', memberEpoch: epochA, heartbeatIntervalMs: 5000, assignment: null },
      { errorCode: 0, memberId: 'member-b', memberEpoch: epochB, heartbeatIntervalMs: 5000, assignment: null },
    ]);
  });

  it("steady heartbeats arriving together each restart their own member's session: a member that stops is fenced one session timeout after its last heartbeat, the others stay", async () => {
    const answers = await formed('member-a', 'member-b');
    const steady = (memberId: string) =>
      heartbeat({ memberId, memberEpoch: answers.get(memberId)!.memberEpoch }).then((r) => r.errorCode);
    const session = h.config.groupConsumerSessionTimeoutMs;
    await h.advance(session - 1000);
    expect(await Promise.all([steady('member-a'), steady('member-b')])).toEqual([0, 0]);
    await h.advance(session - 1000);
    // member-b stops heartbeating; member-a heartbeats on, alone.
    expect(await steady('member-a')).toBe(0);
    await h.advance(1001);
    const members = async () =>
      (await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).groups[0].members.map((m) => m.memberId);
    expect(await members()).toEqual(['member-a']);
  });

  it('ConsumerGroupDescribe answers only once the writes it saw are committed, and an error if those fail, so a failover never takes back a described epoch', async () => {
    const a = await join('member-a');
    await converge(new Map([['member-a', a.memberEpoch]]));
    const describe = () => h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    const committedEpoch = (await describe()).groups[0].groupEpoch;
    h.store.autoCommit = false;
    // A join in flight: its epoch is applied at once but not committed; reads wait for it.
    const joining = track(join('member-b'));
    const described = track(describe());
    await h.settle();
    expect([joining.done, described.done]).toEqual([false, false]);
    // The write is lost (the leader moved): the reads that saw its epoch are refused, not answered with it.
    h.store.failPendingCommits(h.partitionOf('cg'), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'moved'));
    await h.settle();
    expect(joining.value.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect(described.value.groups[0].errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    expect((await describe()).groups[0]).toMatchObject({ errorCode: 0, groupEpoch: committedEpoch });
    // A join that commits: the read waits for it and then shows it.
    const rejoining = track(join('member-b'));
    const later = track(describe());
    await h.settle();
    expect(later.done).toBe(false);
    h.store.advanceHighWatermark(h.partitionOf('cg'));
    await h.settle();
    expect(rejoining.value.errorCode).toBe(0);
    expect(later.value.groups[0].groupEpoch).toBeGreaterThan(committedEpoch);
  });

  it('a heartbeat whose write fails is answered with the failure and its change is taken back', async () => {
    await join('member-a');
    h.store.failNextAppend(h.partitionOf('cg'), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'moved'));
    const failed = await join('member-b');
    expect(failed.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    const described = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    expect(described.groups[0].members.map((m) => m.memberId)).toEqual(['member-a']);
  });

  it('ListGroups shows each group with its type and filters by type; a consumer group with offsets is listed once', async () => {
    const a = await join('member-a');
    await h.stableGroup('classic-g', 1);
    const commit = await h.coordinator.offsetCommit(
      {
        groupId: 'cg',
        generationId: a.memberEpoch,
        memberId: 'member-a',
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 7 }] }],
      },
      ctx,
    );
    expect(commit.errorCode).toBe(0);
    const all = await h.coordinator.listGroups({});
    expect(all.groups.map((g) => [g.groupId, g.groupType]).sort()).toEqual([
      ['cg', 'consumer'],
      ['classic-g', 'classic'],
    ]);
    const consumers = await h.coordinator.listGroups({ typesFilter: ['Consumer'] });
    expect(consumers.groups).toEqual([
      { groupId: 'cg', protocolType: 'consumer', groupState: 'Stable', groupType: 'consumer' },
    ]);
    await h.restart();
    const reloaded = await h.coordinator.listGroups({});
    expect(reloaded.groups.map((g) => [g.groupId, g.groupType]).sort()).toEqual([
      ['cg', 'consumer'],
      ['classic-g', 'classic'],
    ]);
  });

  it('a consumer group member commits offsets with its member epoch; a stale epoch is STALE_MEMBER_EPOCH, a stranger UNKNOWN_MEMBER_ID, and the offsets survive a restart', async () => {
    const a = await join('member-a');
    const commit = (memberId: string, generationId: number, offset: number) =>
      h.coordinator.offsetCommit(
        {
          groupId: 'cg',
          generationId,
          memberId,
          topics: [{ name: 'orders', partitions: [{ partitionIndex: 1, committedOffset: offset }] }],
        },
        ctx,
      );
    expect((await commit('member-a', a.memberEpoch, 42)).errorCode).toBe(0);
    expect((await commit('member-a', a.memberEpoch + 5, 43)).topics[0].partitions[0].errorCode).toBe(
      ErrorCode.STALE_MEMBER_EPOCH,
    );
    expect((await commit('stranger', 1, 44)).topics[0].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect((await commit('', -1, 45)).topics[0].partitions[0].errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    await h.restart();
    const fetched = await h.coordinator.offsetFetch({
      groupId: 'cg',
      topics: [{ name: 'orders', partitionIndexes: [1] }],
    });
    expect(fetched.topics[0].partitions[0].committedOffset).toBe(42);
  });

  it('an OffsetFetch naming a member is checked as a commit is: an unknown member is UNKNOWN_MEMBER_ID, another epoch STALE_MEMBER_EPOCH, and no member is a read from outside (testConsumerGroupOffsetFetch…)', async () => {
    const a = await join('member-a');
    await h.coordinator.offsetCommit(
      {
        groupId: 'cg',
        generationId: a.memberEpoch,
        memberId: 'member-a',
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 1, committedOffset: 5 }] }],
      },
      ctx,
    );
    const fetch = (member: { memberId?: string | null; memberEpoch?: number }) =>
      h.coordinator.offsetFetch({ groupId: 'cg', topics: [{ name: 'orders', partitionIndexes: [1] }], ...member });
    const offsetOf = (response: P.OffsetFetchResponse) => response.topics[0]?.partitions[0].committedOffset;
    expect(offsetOf(await fetch({ memberId: 'member-a', memberEpoch: a.memberEpoch }))).toBe(5);
    expect(offsetOf(await fetch({}))).toBe(5);
    expect(offsetOf(await fetch({ memberId: null, memberEpoch: -1 }))).toBe(5);
    expect(await fetch({ memberId: 'nobody', memberEpoch: 99 })).toMatchObject({
      errorCode: ErrorCode.UNKNOWN_MEMBER_ID,
      errorMessage: 'Member nobody is not a member of group cg.',
      topics: [],
    });
    expect(await fetch({ memberId: 'member-a', memberEpoch: a.memberEpoch + 1 })).toMatchObject({
      errorCode: ErrorCode.STALE_MEMBER_EPOCH,
      errorMessage: `The received member epoch ${a.memberEpoch + 1} does not match the expected member epoch ${a.memberEpoch}.`,
      topics: [],
    });
    // An epoch without a member id is not a read from outside the group.
    expect((await fetch({ memberEpoch: a.memberEpoch })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    // A classic group does not check them (Kafka's ClassicGroup.validateOffsetFetch).
    const { memberIds } = await h.stableGroup('classic-g', 1);
    const classic = await h.coordinator.offsetFetch({
      groupId: 'classic-g',
      topics: [{ name: 'orders', partitionIndexes: [0] }],
      memberId: 'nobody',
      memberEpoch: 99,
    });
    expect(classic.errorCode).toBe(0);
    expect(memberIds).toHaveLength(1);
  });

  it('one id names one group type unless a migration converts it: a heartbeat to a classic group with members is refused while GROUP_CONSUMER_MIGRATION_POLICY is disabled', async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
      config: { groupConsumerMigrationPolicy: 'disabled' },
    });
    await h.settle();
    await h.stableGroup('classic-g', 1);
    const refused = await h.coordinator.consumerGroupHeartbeat(
      {
        groupId: 'classic-g',
        memberId: 'x',
        memberEpoch: 0,
        subscribedTopicNames: ['orders'],
        rebalanceTimeoutMs: 60_000,
        topicPartitions: [],
      },
      ctx,
    );
    expect(refused).toMatchObject({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, memberId: null });
    expect((await h.describe('classic-g')).groupState).toBe('Stable');
  });

  it('HeartbeatNow goes to a member whose target changed, to one waiting once the partitions it waits for are released, and to members of a topic that grew', async () => {
    const on = (connectionId: string) => ({ ...ctx, connectionId });
    const beat = (memberId: string, connectionId: string, more: Partial<P.ConsumerGroupHeartbeatRequest>) =>
      h.coordinator.consumerGroupHeartbeat({ groupId: 'cg', memberId, memberEpoch: 0, ...more }, on(connectionId));
    const a = await beat('member-a', 'conn-a', {
      subscribedTopicNames: ['orders'],
      rebalanceTimeoutMs: 60_000,
      topicPartitions: [],
    });
    expect(owned(a)).toHaveLength(4);
    expect(h.push.heartbeatNows).toEqual([]);
    const b = await beat('member-b', 'conn-b', {
      subscribedTopicNames: ['orders'],
      rebalanceTimeoutMs: 60_000,
      topicPartitions: [],
    });
    expect(owned(b)).toEqual([]);
    expect(h.push.heartbeatNows.map((p) => [p.connectionId, p.push.groupId])).toEqual([['conn-a', 'cg']]);
    // member-a learns what to give up, gives it up: member-b, waiting for those partitions, is told.
    const revoking = await beat('member-a', 'conn-a', {
      memberEpoch: a.memberEpoch,
      topicPartitions: a.assignment!.topicPartitions,
    });
    await beat('member-a', 'conn-a', {
      memberEpoch: revoking.memberEpoch,
      topicPartitions: revoking.assignment!.topicPartitions,
    });
    expect(h.push.heartbeatNows.map((p) => p.connectionId)).toEqual(['conn-a', 'conn-b']);
    // member-b heartbeats as told, taking the released partitions.
    await beat('member-b', 'conn-b', { memberEpoch: b.memberEpoch, topicPartitions: [] });
    // A topic that grows moves the targets of its members, each told on its connection.
    await h.topics.setPartitions('orders', 8);
    await h.settle();
    expect(
      h.push.heartbeatNows
        .slice(2)
        .map((p) => p.connectionId)
        .sort(),
    ).toEqual(['conn-a', 'conn-b']);
    expect(h.push.heartbeatNows[2].push.reason).toContain('orders');
  });

  describe("a member who leaves or is fenced moves the group's target at once, and those it concerns are told (HeartbeatNow, docs/protocol.md)", () => {
    const on = (connectionId: string) => ({ ...ctx, connectionId });
    const beat = (memberId: string, connectionId: string, more: Partial<P.ConsumerGroupHeartbeatRequest>) =>
      h.coordinator.consumerGroupHeartbeat({ groupId: 'cg', memberId, memberEpoch: 0, ...more }, on(connectionId));
    const joining = { subscribedTopicNames: ['orders'], rebalanceTimeoutMs: 60_000, topicPartitions: [] };

    /** member-a and member-b stable with two partitions each; no push pending. */
    async function twoStable(): Promise<{ a: P.ConsumerGroupHeartbeatResponse }> {
      const a0 = await beat('member-a', 'conn-a', joining);
      const b0 = await beat('member-b', 'conn-b', joining);
      const a = await beat('member-a', 'conn-a', {
        memberEpoch: a0.memberEpoch,
        topicPartitions: a0.assignment!.topicPartitions,
      });
      const a1 = await beat('member-a', 'conn-a', {
        memberEpoch: a.memberEpoch,
        topicPartitions: a.assignment!.topicPartitions,
      });
      await beat('member-b', 'conn-b', { memberEpoch: b0.memberEpoch, topicPartitions: [] });
      const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).groups[0];
      expect(described.members.map((m) => m.assignment.topicPartitions[0]?.partitions.length)).toEqual([2, 2]);
      h.push.heartbeatNows.length = 0;
      return { a: a1 };
    }

    async function told(): Promise<P.ConsumerGroupDescribeResponse['groups'][number]> {
      await h.settle();
      expect(h.push.heartbeatNows.map((p) => [p.connectionId, p.push.reason])).toEqual([
        ['conn-a', 'target assignment changed'],
      ]);
      // The target is computed before member-a's heartbeat: that heartbeat takes all four partitions.
      const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).groups[0];
      expect(described.assignmentEpoch).toBe(described.groupEpoch);
      expect(described.members.map((m) => m.memberId)).toEqual(['member-a']);
      expect(described.members[0].targetAssignment.topicPartitions).toEqual([
        { topic: 'orders', partitions: [0, 1, 2, 3] },
      ]);
      return described;
    }

    it('a member that leaves with epoch -1', async () => {
      const { a } = await twoStable();
      expect((await beat('member-b', 'conn-b', { memberEpoch: -1 })).errorCode).toBe(0);
      const described = await told();
      const next = await beat('member-a', 'conn-a', { memberEpoch: a.memberEpoch });
      expect(next.memberEpoch).toBe(described.groupEpoch);
      expect(owned(next)).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);
    });

    it('a member fenced when its session times out', async () => {
      await twoStable();
      // member-a keeps heartbeating; member-b falls silent.
      for (let t = 5_000; t < h.config.groupConsumerSessionTimeoutMs; t += 5_000) {
        await h.advance(5_000);
        const described = (await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).groups[0];
        const a = described.members.find((m) => m.memberId === 'member-a')!;
        await beat('member-a', 'conn-a', { memberEpoch: a.memberEpoch });
      }
      expect(h.push.heartbeatNows).toEqual([]);
      await h.advance(5_000);
      await told();
    });

    it('a member fenced when its connection closes', async () => {
      await twoStable();
      h.coordinator.connectionClosed('conn-b');
      await told();
    });
  });

  it('a member told to heartbeat is told once: a second change before its heartbeat is read by that heartbeat, not pushed again', async () => {
    const on = (connectionId: string) => ({ ...ctx, connectionId });
    const beat = (memberId: string, connectionId: string, more: Partial<P.ConsumerGroupHeartbeatRequest>) =>
      h.coordinator.consumerGroupHeartbeat({ groupId: 'cg', memberId, memberEpoch: 0, ...more }, on(connectionId));
    const joining = { subscribedTopicNames: ['orders'], rebalanceTimeoutMs: 60_000, topicPartitions: [] };
    const a = await beat('member-a', 'conn-a', joining);
    await beat('member-b', 'conn-b', joining);
    expect(h.push.heartbeatNows.map((p) => p.connectionId)).toEqual(['conn-a']);
    // member-a's target changes again (the topic grows) before it heartbeats: no second push.
    await h.topics.setPartitions('orders', 8);
    await h.settle();
    expect(h.push.heartbeatNows.map((p) => p.connectionId)).toEqual(['conn-a', 'conn-b']);
    // Its heartbeat reads the latest target (epoch of the growth); the next change is pushed again.
    const read = await beat('member-a', 'conn-a', { memberEpoch: a.memberEpoch, topicPartitions: [] });
    const described = await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] });
    expect(read.memberEpoch).toBe(described.groups[0].groupEpoch);
    await h.topics.setPartitions('orders', 12);
    await h.settle();
    expect(h.push.heartbeatNows.map((p) => p.connectionId)).toEqual(['conn-a', 'conn-b', 'conn-a']);
  });

  it("ConsumerGroupDescribe answers GROUP_ID_NOT_FOUND for an id that names no consumer group, saying whether it names a group of another type (Kafka's messages)", async () => {
    await h.stableGroup('classic-g', 1);
    const described = await h.coordinator.consumerGroupDescribe({ groupIds: ['classic-g', 'nobody'] });
    expect(described.groups.map((g) => [g.groupId, g.errorCode, g.errorMessage])).toEqual([
      ['classic-g', ErrorCode.GROUP_ID_NOT_FOUND, 'Group classic-g is not a consumer group.'],
      ['nobody', ErrorCode.GROUP_ID_NOT_FOUND, 'Group nobody not found.'],
    ]);
  });
});
