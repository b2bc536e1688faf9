import { createUniformAssignor } from '@cohort/assignors';
import type * as P from '@cohort/protocol';
import { answerJson, ErrorCode, KafkaError } from '@cohort/protocol';
import { CoordinatorHarness, track } from '@cohort/coordinator/testing';

/**
 * A steady ConsumerGroupHeartbeat (a member at its target that changes nothing) runs at once, as one
 * request, when no heartbeat of its shard is queued before it: it must keep every effect and answer the
 * batch gives it (session, connection, the wait for pending writes, no record) and leave everything
 * else to the full path.
 */
describe('a steady ConsumerGroupHeartbeat', () => {
  let h: CoordinatorHarness;
  const ctx = { clientId: 'client', clientHost: '/127.0.0.1', connectionId: 'conn-a' };

  beforeEach(async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 4 }],
      consumerAssignors: [createUniformAssignor()],
    });
    await h.settle();
  });

  const heartbeat = (
    request: Partial<P.ConsumerGroupHeartbeatRequest> & { memberId: string; memberEpoch: number },
    context = ctx,
  ) => h.coordinator.consumerGroupHeartbeat({ groupId: 'cg', ...request }, context);

  const join = (memberId: string, groupId = 'cg') =>
    h.coordinator.consumerGroupHeartbeat(
      {
        groupId,
        memberId,
        memberEpoch: 0,
        subscribedTopicNames: ['orders'],
        rebalanceTimeoutMs: 60_000,
        topicPartitions: [],
      },
      { ...ctx, connectionId: `conn-${memberId}` },
    );

  /** Members join, then heartbeat what they hold until all are stable; each one's epoch. */
  async function stable(...memberIds: string[]): Promise<Map<string, number>> {
    const epochs = new Map<string, number>();
    for (const memberId of memberIds) epochs.set(memberId, (await join(memberId)).memberEpoch);
    const held = new Map<string, P.TopicPartitions[]>();
    for (let round = 0; round < 6; round++) {
      for (const [memberId, epoch] of epochs) {
        const answer = await heartbeat(
          { memberId, memberEpoch: epoch, topicPartitions: held.get(memberId) ?? [] },
          { ...ctx, connectionId: `conn-${memberId}` },
        );
        expect(answer.errorCode).toBe(0);
        epochs.set(memberId, answer.memberEpoch);
        if (answer.assignment) held.set(memberId, answer.assignment.topicPartitions);
      }
    }
    return epochs;
  }

  const logEnd = () => h.store.offsets(h.partitionOf('cg')).logEndOffset;
  const describe = async () => (await h.coordinator.consumerGroupDescribe({ groupIds: ['cg'] })).groups[0];

  /** Another group id served by the same shard as 'cg' (its writes are the ones a heartbeat of 'cg' waits for). */
  function groupOnSameShard(): string {
    return groupsOnSameShard(1)[0];
  }

  /** `count` other group ids served by the same shard as 'cg'. */
  function groupsOnSameShard(count: number): string[] {
    const ids: string[] = [];
    for (let i = 0; ids.length < count; i++)
      if (h.partitionOf(`other-${i}`) === h.partitionOf('cg')) ids.push(`other-${i}`);
    return ids;
  }

  const nextTurn = () => new Promise<void>((resume) => setImmediate(resume));

  it('is answered with the member, its epoch and no assignment, and writes no record', async () => {
    const epoch = (await stable('member-a')).get('member-a')!;
    const before = logEnd();
    const answers = [await heartbeat({ memberId: 'member-a', memberEpoch: epoch })];
    answers.push(await heartbeat({ memberId: 'member-a', memberEpoch: epoch }));
    expect(answers).toEqual([
      { errorCode: 0, memberId: 'member-a', memberEpoch: epoch, heartbeatIntervalMs: 5000, assignment: null },
      { errorCode: 0, memberId: 'member-a', memberEpoch: epoch, heartbeatIntervalMs: 5000, assignment: null },
    ]);
    expect(logEnd()).toBe(before);
  });

  it('gives a member the same answer, its JSON made once, until the member changes', async () => {
    const epoch = (await stable('member-a')).get('member-a')!;
    const first = await heartbeat({ memberId: 'member-a', memberEpoch: epoch });
    expect(await heartbeat({ memberId: 'member-a', memberEpoch: epoch })).toBe(first);
    expect(Object.isFrozen(first)).toBe(true);
    expect(answerJson(first)).toBe(JSON.stringify(first));
    // member-b's join moves member-a to another epoch: a new answer, with its own JSON.
    const epochs = await stable('member-b');
    const moved = (await heartbeat({ memberId: 'member-a', memberEpoch: epoch, topicPartitions: [] })).memberEpoch;
    expect(epochs.get('member-b')).toBeGreaterThan(epoch);
    const next = await heartbeat({ memberId: 'member-a', memberEpoch: moved });
    expect(next).not.toBe(first);
    expect(next).toEqual({
      errorCode: 0,
      memberId: 'member-a',
      memberEpoch: moved,
      heartbeatIntervalMs: 5000,
      assignment: null,
    });
    expect(answerJson(next)).toBe(JSON.stringify(next));
  });

  it("restarts the member's session each time: it is fenced one session timeout after its last one", async () => {
    const epoch = (await stable('member-a')).get('member-a')!;
    const session = h.config.groupConsumerSessionTimeoutMs;
    for (let i = 0; i < 3; i++) {
      await h.advance(session - 1000);
      expect((await heartbeat({ memberId: 'member-a', memberEpoch: epoch })).errorCode).toBe(0);
    }
    await h.advance(session - 1);
    expect((await describe()).members.map((m) => m.memberId)).toEqual(['member-a']);
    await h.advance(1);
    expect((await describe()).members).toEqual([]);
  });

  it("waits for the shard's pending writes before it is answered, and is answered their failure", async () => {
    const epoch = (await stable('member-a')).get('member-a')!;
    const other = groupOnSameShard();
    h.store.autoCommit = false;
    const joining = track(join('member-x', other));
    await h.settle();
    const steady = track(heartbeat({ memberId: 'member-a', memberEpoch: epoch }));
    await h.settle();
    expect([joining.done, steady.done]).toEqual([false, false]);
    h.store.advanceHighWatermark(h.partitionOf('cg'));
    await h.settle();
    expect(steady.value).toMatchObject({ errorCode: 0, memberEpoch: epoch });

    const rejoining = track(join('member-y', other));
    await h.settle();
    const failing = track(heartbeat({ memberId: 'member-a', memberEpoch: epoch }));
    await h.settle();
    expect(failing.done).toBe(false);
    h.store.failPendingCommits(h.partitionOf('cg'), KafkaError.of('NOT_LEADER_OR_FOLLOWER', 'moved'));
    await h.settle();
    expect([rejoining.value.errorCode, failing.value.errorCode]).toEqual([
      ErrorCode.NOT_COORDINATOR,
      ErrorCode.NOT_COORDINATOR,
    ]);
  });

  it('is fenced like any heartbeat: an epoch ahead of the member or behind it, an unknown member', async () => {
    // member-b's join moved member-a to epoch 2: the epoch behind it is its previous one, not a join.
    const epoch = (await stable('member-a', 'member-b')).get('member-a')!;
    expect(epoch).toBeGreaterThan(1);
    const codes = [
      (await heartbeat({ memberId: 'member-a', memberEpoch: epoch + 1 })).errorCode,
      (await heartbeat({ memberId: 'member-a', memberEpoch: epoch - 1 })).errorCode,
      (await heartbeat({ memberId: 'member-z', memberEpoch: epoch })).errorCode,
    ];
    expect(codes).toEqual([ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.FENCED_MEMBER_EPOCH, ErrorCode.UNKNOWN_MEMBER_ID]);
    expect((await heartbeat({ memberId: 'member-a', memberEpoch: epoch })).errorCode).toBe(0);
  });

  it('takes the full path when it carries a changed field or comes from another client id', async () => {
    const epoch = (await stable('member-a')).get('member-a')!;
    const groupEpoch = (await describe()).groupEpoch;
    const before = logEnd();
    const renamed = await heartbeat({ memberId: 'member-a', memberEpoch: epoch }, { ...ctx, clientId: 'renamed' });
    expect(renamed).toMatchObject({ errorCode: 0, memberEpoch: epoch, assignment: null });
    expect(logEnd()).toBeGreaterThan(before);
    expect((await describe()).members[0].clientId).toBe('renamed');

    // A subscription change moves the group epoch and hands the member its new (empty) assignment.
    const unsubscribed = await heartbeat(
      { memberId: 'member-a', memberEpoch: epoch, subscribedTopicNames: [] },
      { ...ctx, clientId: 'renamed' },
    );
    expect(unsubscribed.errorCode).toBe(0);
    expect(unsubscribed.assignment).toEqual({ topicPartitions: [] });
    expect((await describe()).groupEpoch).toBeGreaterThan(groupEpoch);
  });

  it('binds the member to the connection it came on, so its pushes follow it there', async () => {
    const epochs = await stable('member-a');
    const moved = await heartbeat(
      { memberId: 'member-a', memberEpoch: epochs.get('member-a')! },
      { ...ctx, connectionId: 'conn-new' },
    );
    expect(moved.errorCode).toBe(0);
    await join('member-b');
    await h.settle();
    expect(h.push.heartbeatNows.map((p) => p.connectionId)).toEqual(['conn-new']);
  });

  it("is answered as it stood when it arrived, before joins of the same turn (Kafka's order), and the member is then told to heartbeat", async () => {
    const epochs = await stable('member-a', 'member-b');
    const steady = heartbeat(
      { memberId: 'member-a', memberEpoch: epochs.get('member-a')! },
      { ...ctx, connectionId: 'conn-member-a' },
    );
    const joining = [join('member-c'), join('member-d')];
    expect(await steady).toEqual({
      errorCode: 0,
      memberId: 'member-a',
      memberEpoch: epochs.get('member-a'),
      heartbeatIntervalMs: 5000,
      assignment: null,
    });
    expect((await Promise.all(joining)).map((j) => j.errorCode)).toEqual([0, 0]);
    await h.settle();
    // Four members of four partitions: the joiners' targets take one of member-a's two, which it hears of by a push.
    expect(h.push.heartbeatNows.map((p) => p.connectionId)).toContain('conn-member-a');
  });

  it('carries the partitions the member owns (what the consumer sends after an assignment) and is still answered as steady', async () => {
    const epoch = (await stable('member-a')).get('member-a')!;
    const owned = (await describe()).members[0].assignment.topicPartitions;
    const before = logEnd();
    const first = await heartbeat({ memberId: 'member-a', memberEpoch: epoch, topicPartitions: owned });
    expect(first).toEqual({
      errorCode: 0,
      memberId: 'member-a',
      memberEpoch: epoch,
      heartbeatIntervalMs: 5000,
      assignment: null,
    });
    // The steady answer made once: the same object as a bare heartbeat's.
    expect(await heartbeat({ memberId: 'member-a', memberEpoch: epoch })).toBe(first);
    expect(logEnd()).toBe(before);
  });

  it("is answered while other groups' bursts of joins on its shard are still being answered, not after one of them ends", async () => {
    h = new CoordinatorHarness({
      topics: [
        { name: 'orders', partitions: 4 },
        { name: 'audit', partitions: 48 },
      ],
      consumerAssignors: [createUniformAssignor()],
      // Two reconciliations a turn: each burst is answered over many turns.
      config: { consumerHeartbeatPartsPerTurn: 2 },
    });
    await h.settle();
    const epoch = (await stable('member-a')).get('member-a')!;
    // Four bursts, one a turn: four batches under way, the most the queue runs at once.
    const bursts: { done: boolean; value: P.ConsumerGroupHeartbeatResponse }[][] = [];
    for (const groupId of groupsOnSameShard(4)) {
      const burst: (typeof bursts)[number] = [];
      bursts.push(burst);
      for (let i = 0; i < 12; i++)
        burst.push(
          track(
            h.coordinator.consumerGroupHeartbeat(
              {
                groupId,
                memberId: `${groupId}-m${i}`,
                memberEpoch: 0,
                subscribedTopicNames: ['audit'],
                rebalanceTimeoutMs: 60_000,
                topicPartitions: [],
              },
              { ...ctx, connectionId: `conn-${groupId}-${i}` },
            ),
          ),
        );
      await nextTurn();
    }
    const steady = await heartbeat({ memberId: 'member-a', memberEpoch: epoch });
    expect(steady).toMatchObject({ errorCode: 0, memberEpoch: epoch, assignment: null });
    // Before, it waited in the queue until one of the four batches ended.
    expect(bursts.map((answers) => answers.every((a) => a.done))).toEqual([false, false, false, false]);
    await h.settle();
    for (let turn = 0; turn < 200 && bursts.flat().some((a) => !a.done); turn++) await nextTurn();
    expect(bursts.flat().map((a) => a.value.errorCode)).toEqual(Array(48).fill(0));
  });

  it('waits behind its own heartbeat still being answered in a batch, and is answered as that one left it', async () => {
    h = new CoordinatorHarness({
      topics: [{ name: 'orders', partitions: 40 }],
      consumerAssignors: [createUniformAssignor()],
      config: { consumerHeartbeatPartsPerTurn: 2 },
    });
    await h.settle();
    const epoch = (await stable('member-a')).get('member-a')!;
    // Joins of its group, then member-a's rack: a heartbeat of the full path, parked behind the joins.
    const joins = Array.from({ length: 12 }, (_, i) => track(join(`member-j${i}`)));
    const racked = track(heartbeat({ memberId: 'member-a', memberEpoch: epoch, rackId: 'rack-1' }));
    await nextTurn();
    expect(racked.done).toBe(false);
    // A bare heartbeat of member-a now looks steady to the group as it stands, but its first is unanswered.
    const bare = track(heartbeat({ memberId: 'member-a', memberEpoch: epoch }));
    await nextTurn();
    for (let turn = 0; turn < 200 && !bare.done; turn++) await nextTurn();
    expect(racked.done).toBe(true);
    expect(racked.value.errorCode).toBe(0);
    // Answered after the first, from the group that first left: the joins took partitions, so its epoch moved.
    expect(bare.value.errorCode).toBe(0);
    expect(bare.value.memberEpoch).toBeGreaterThanOrEqual(racked.value.memberEpoch);
    expect((await describe()).members.find((m) => m.memberId === 'member-a')!.rackId).toBe('rack-1');
    await Promise.all(joins.map((j) => j.promise));
  });

  it('waits for the heartbeats queued before it in the same turn, and is answered as they left the group', async () => {
    const epochs = await stable('member-a', 'member-b');
    const joining = [join('member-c'), join('member-d')];
    const after = await heartbeat(
      { memberId: 'member-a', memberEpoch: epochs.get('member-a')! },
      { ...ctx, connectionId: 'conn-member-a' },
    );
    expect((await Promise.all(joining)).map((j) => j.errorCode)).toEqual([0, 0]);
    // The joins ran first: member-a's answer already gives up the partition the joiners' targets take from it.
    expect(after.errorCode).toBe(0);
    expect(after.assignment?.topicPartitions.flatMap((tp) => tp.partitions)).toHaveLength(1);
  });
});
