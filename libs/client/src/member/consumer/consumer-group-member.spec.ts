import { CohortClient, type CohortError, type ConsumerMemberOptions, type TopicPartitions } from '@cohort/client';
import { FakeCoordinator } from '@cohort/client/testing/fake-coordinator';
import { FakeTimers } from '@cohort/client/testing/fake-timers';

const orders = (...partitions: number[]): TopicPartitions[] =>
  partitions.length ? [{ topic: 'orders', partitions }] : [];
const names = (list: TopicPartitions[]) => list.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`)).join(',');

/**
 * A one-member consumer group behind the scripted coordinator: the group's target and epoch are set
 * by the test; a heartbeat gets the target at the group epoch unless the member still reports owning a
 * partition the target took away (then only what it keeps, at its old epoch: Kafka's UNREVOKED).
 */
function setup(options: Partial<ConsumerMemberOptions> = {}) {
  const server = new FakeCoordinator();
  const timers = new FakeTimers();
  const client = new CohortClient({
    urls: ['http://bootstrap'],
    socketFactory: server.factory,
    timers,
    retry: { initialMs: 100, maxMs: 1000 },
  });
  const member = client.member({ groupId: 'g', groupProtocol: 'consumer', topics: ['orders'], ...options });
  const group = { epoch: 1, target: orders(0, 1, 2, 3), intervalMs: 2000 };
  let assigned: TopicPartitions[] = [];
  let epoch = 0;
  let owned: TopicPartitions[] = [];
  const beatTimes: number[] = [];
  server.always('ConsumerGroupHeartbeat', (p) => {
    beatTimes.push(timers.now());
    if (p.memberEpoch < 0)
      return {
        errorCode: 0,
        memberId: p.memberId,
        memberEpoch: p.memberEpoch,
        heartbeatIntervalMs: 0,
        assignment: null,
      };
    if (p.topicPartitions) owned = p.topicPartitions;
    const before = names(assigned);
    const target = new Set(names(group.target).split(','));
    const unrevoked = names(owned)
      .split(',')
      .filter((k) => k !== '' && !target.has(k));
    if (unrevoked.length > 0) {
      assigned = assigned.map((tp) => ({
        ...tp,
        partitions: tp.partitions.filter((n) => target.has(`${tp.topic}-${n}`)),
      }));
    } else {
      assigned = group.target;
      epoch = group.epoch;
    }
    const full = p.memberEpoch === 0 || p.rebalanceTimeoutMs !== undefined;
    return {
      errorCode: 0,
      memberId: p.memberId,
      memberEpoch: epoch,
      heartbeatIntervalMs: group.intervalMs,
      assignment: full || names(assigned) !== before ? { topicPartitions: assigned } : null,
    };
  });
  const log: string[] = [];
  const errors: CohortError[] = [];
  const crashes: CohortError[] = [];
  member.on('joined', (e) => log.push(`joined e${e.generationId}`));
  member.on('assigned', (e) => log.push(`assigned [${names(e.partitions)}] e${e.generationId}`));
  member.on('revoked', (e) => log.push(`revoked [${names(e.partitions)}] e${e.generationId}`));
  member.on('lost', (e) => log.push(`lost [${names(e.partitions)}]`));
  member.on('error', (e) => errors.push(e));
  member.on('crash', (e) => crashes.push(e));
  const beats = () => server.sent('ConsumerGroupHeartbeat');
  const start = async () => {
    const started = member.start();
    started.catch(() => undefined);
    await timers.until(() => member.state === 'stable' || member.state === 'stopped');
    await started;
  };
  return { server, timers, client, member, group, log, errors, crashes, beats, beatTimes, start };
}

describe('ConsumerGroupMember (groupProtocol consumer)', () => {
  it('joins with a full heartbeat at epoch 0, takes the assignment, acknowledges it, then heartbeats at the interval with only what changed', async () => {
    const ctx = setup({ rebalanceTimeoutMs: 30_000 });
    await ctx.start();
    const [join, ack] = ctx.beats();
    expect(join).toEqual({
      groupId: 'g',
      memberId: ctx.member.memberId,
      memberEpoch: 0,
      rebalanceTimeoutMs: 30_000,
      subscribedTopicNames: ['orders'],
      topicPartitions: [],
    });
    expect(ctx.member.memberId).toMatch(/^[0-9a-f-]{36}$/);
    expect(ack).toEqual({
      groupId: 'g',
      memberId: ctx.member.memberId,
      memberEpoch: 1,
      topicPartitions: orders(0, 1, 2, 3),
    });
    expect(ctx.log).toEqual(['joined e1', 'assigned [orders-0,orders-1,orders-2,orders-3] e1']);
    expect(ctx.member.state).toBe('stable');
    expect(ctx.member.assignment).toEqual(orders(0, 1, 2, 3));

    // From then on, one heartbeat per interval named by the coordinator, carrying nothing that did not change.
    await ctx.timers.advance(4000);
    const times = ctx.beatTimes.slice(1);
    expect(times.slice(1).map((t, k) => t - times[k])).toEqual([2000, 2000]);
    expect(ctx.beats().slice(2)).toEqual([
      { groupId: 'g', memberId: ctx.member.memberId, memberEpoch: 1 },
      { groupId: 'g', memberId: ctx.member.memberId, memberEpoch: 1 },
    ]);
  });

  it('HeartbeatNow: a new target is fetched at once; revoked partitions are committed with the member epoch and released only after the awaited listener', async () => {
    const ctx = setup({ autoCommit: { intervalMs: 60_000 } });
    await ctx.start();
    for (const p of [0, 1, 2, 3]) ctx.member.markProcessed({ topic: 'orders', partition: p, offset: 10 + p });
    let letGo: () => void = () => undefined;
    ctx.member.on('revoked', () => new Promise<void>((resolve) => (letGo = resolve)));
    ctx.group.epoch = 2;
    ctx.group.target = orders(0, 1);
    const sent = ctx.beats().length;
    ctx.server.push('HeartbeatNow', { groupId: 'g', memberEpoch: 1, reason: 'target changed' });
    await ctx.timers.advance(10);
    expect(ctx.beats()).toHaveLength(sent + 1);
    expect(ctx.member.state).toBe('reconciling');
    expect(ctx.log.at(-1)).toBe('revoked [orders-2,orders-3] e1');

    // While the listener runs, heartbeats still report 2 and 3 as owned (none carries a change).
    await ctx.timers.advance(5000);
    expect(
      ctx
        .beats()
        .slice(sent)
        .every((b) => b.topicPartitions === undefined),
    ).toBe(true);
    expect(ctx.server.sent('OffsetCommit')).toEqual([]);

    letGo();
    await ctx.timers.until(() => ctx.member.state === 'stable');
    const [commit] = ctx.server.sent('OffsetCommit');
    expect(commit).toMatchObject({ generationId: 1, memberId: ctx.member.memberId });
    expect(commit.topics[0].partitions.map((p: { partitionIndex: number }) => p.partitionIndex)).toEqual([2, 3]);
    const ackIndex = ctx.beats().findIndex((b, i) => i >= sent && b.topicPartitions !== undefined);
    expect(ctx.beats()[ackIndex].topicPartitions).toEqual(orders(0, 1));
    expect(ctx.member.generationId).toBe(2);
    expect(ctx.member.assignment).toEqual(orders(0, 1));
    // Kafka calls onPartitionsAssigned after a revocation even when nothing was added.
    expect(ctx.log.slice(-2)).toEqual(['revoked [orders-2,orders-3] e1', 'assigned [] e1']);
  });

  it('FENCED_MEMBER_EPOCH: the partitions are lost without a commit, and it joins again at epoch 0 with the same member id and a full request', async () => {
    const ctx = setup();
    await ctx.start();
    ctx.member.markProcessed({ topic: 'orders', partition: 0, offset: 5 });
    const memberId = ctx.member.memberId;
    ctx.server.answer('ConsumerGroupHeartbeat', () => ({
      errorCode: 110,
      errorName: 'FENCED_MEMBER_EPOCH',
      errorMessage: 'The member epoch is fenced.',
      memberId: null,
      memberEpoch: -1,
      heartbeatIntervalMs: 0,
      assignment: null,
    }));
    const sent = ctx.beats().length;
    ctx.server.push('HeartbeatNow', { groupId: 'g', memberEpoch: 1, reason: 'x' });
    await ctx.timers.until(() => ctx.beats().length >= sent + 2 && ctx.member.state === 'stable');
    expect(ctx.log).toContain('lost [orders-0,orders-1,orders-2,orders-3]');
    expect(ctx.beats()[sent + 1]).toMatchObject({
      memberId,
      memberEpoch: 0,
      subscribedTopicNames: ['orders'],
      topicPartitions: [],
    });
    expect(ctx.server.sent('OffsetCommit')).toEqual([]);
    expect(ctx.log.at(-1)).toBe('assigned [orders-0,orders-1,orders-2,orders-3] e1');
  });

  it('STALE_MEMBER_EPOCH on a commit: it heartbeats and commits again with the epoch the heartbeat brings', async () => {
    const ctx = setup();
    await ctx.start();
    ctx.group.epoch = 3; // the group moved on; this member learns it at its next heartbeat
    ctx.server.answer('OffsetCommit', (p) => ({
      errorCode: 0,
      topics: p.topics.map((t: { name: string; partitions: { partitionIndex: number }[] }) => ({
        name: t.name,
        partitions: t.partitions.map((x) => ({ partitionIndex: x.partitionIndex, errorCode: 113 })),
      })),
    }));
    const committed = ctx.member.commit([{ topic: 'orders', partition: 1, offset: 42 }]);
    await ctx.timers.advance(2000);
    await committed;
    expect(ctx.server.sent('OffsetCommit').map((c) => c.generationId)).toEqual([1, 3]);
    expect(ctx.server.committed.get('orders-1')).toBe(42);
    expect(ctx.errors.filter((e) => e.name === 'STALE_MEMBER_EPOCH').map((e) => e.retriable)).toEqual([true]);
  });

  it("committed() names the member and its epoch, as Kafka 4's consumer does; a fetch answered STALE_MEMBER_EPOCH is sent again with the epoch the next heartbeat brings", async () => {
    const ctx = setup();
    await ctx.start();
    ctx.server.committed.set('orders-1', 42);
    ctx.group.epoch = 3; // the group moved on; this member learns it at its next heartbeat
    ctx.server.answer('OffsetFetch', () => ({
      errorCode: 113,
      errorName: 'STALE_MEMBER_EPOCH',
      errorMessage: 'The received member epoch 1 does not match the expected member epoch 3.',
      topics: [],
    }));
    const fetched = ctx.member.committed(orders(1));
    await ctx.timers.advance(2000);
    expect(await fetched).toEqual([{ topic: 'orders', partition: 1, offset: 42, metadata: '' }]);
    const id = ctx.member.memberId;
    expect(ctx.server.sent('OffsetFetch').map((f) => [f.memberId, f.memberEpoch])).toEqual([
      [id, 1],
      [id, 3],
    ]);
    expect(ctx.errors.filter((e) => e.name === 'STALE_MEMBER_EPOCH').map((e) => e.retriable)).toEqual([true]);
  });

  it('NOT_COORDINATOR: it finds the coordinator again and sends a full heartbeat there', async () => {
    const ctx = setup();
    await ctx.start();
    ctx.server.answer('ConsumerGroupHeartbeat', () => ({
      errorCode: 16,
      errorName: 'NOT_COORDINATOR',
      memberId: null,
      memberEpoch: -1,
      heartbeatIntervalMs: 0,
      assignment: null,
    }));
    const lookups = ctx.server.sent('FindCoordinator').length;
    await ctx.timers.advance(2000);
    await ctx.timers.until(
      () => ctx.server.sent('FindCoordinator').length > lookups && ctx.beats().at(-1)?.rebalanceTimeoutMs !== undefined,
    );
    expect(ctx.beats().at(-1)).toMatchObject({
      memberEpoch: 1,
      subscribedTopicNames: ['orders'],
      topicPartitions: orders(0, 1, 2, 3),
    });
    expect(ctx.member.assignment).toEqual(orders(0, 1, 2, 3));
    expect(ctx.log.filter((l) => l.startsWith('lost'))).toEqual([]);
  });

  it('stop(): commits what was marked, revokes, and leaves with epoch -1; a static member leaves with -2', async () => {
    for (const [instance, leaveEpoch] of [
      [undefined, -1],
      ['tab-1', -2],
    ] as const) {
      const ctx = setup(instance ? { groupInstanceId: instance } : {});
      await ctx.start();
      ctx.member.markProcessed({ topic: 'orders', partition: 2, offset: 7 });
      const stopped = ctx.member.stop();
      await ctx.timers.until(() => ctx.member.state === 'stopped');
      await stopped;
      expect(ctx.server.committed.get('orders-2')).toBe(7);
      expect(ctx.log.at(-1)).toBe('revoked [orders-0,orders-1,orders-2,orders-3] e1');
      expect(ctx.beats().at(-1)).toEqual({
        groupId: 'g',
        memberId: ctx.member.memberId,
        memberEpoch: leaveEpoch,
        ...(instance ? { instanceId: instance } : {}),
      });
    }
  });

  describe('in a browser (window events)', () => {
    const page = new EventTarget();
    beforeAll(() => Object.assign(globalThis, { window: page }));
    afterAll(() => delete (globalThis as { window?: unknown }).window);

    it('a static member leaves with epoch -2 on pagehide at once, and heartbeats no more; stop() then sends no second leave', async () => {
      const ctx = setup({ groupInstanceId: 'tab-1' });
      await ctx.start();
      const sent = ctx.beats().length;
      page.dispatchEvent(new Event('pagehide'));
      await ctx.timers.advance(10);
      expect(ctx.beats().slice(sent)).toEqual([
        { groupId: 'g', memberId: ctx.member.memberId, memberEpoch: -2, instanceId: 'tab-1' },
      ]);
      await ctx.timers.advance(10_000);
      expect(ctx.beats()).toHaveLength(sent + 1);
      await ctx.member.stop();
      expect(ctx.beats()).toHaveLength(sent + 1);
      expect(ctx.log.filter((l) => l.startsWith('lost'))).toEqual([]);
    });

    it('back from the back/forward cache, it joins again as a new member of the same instance', async () => {
      const ctx = setup({ groupInstanceId: 'tab-1' });
      await ctx.start();
      const firstId = ctx.member.memberId;
      page.dispatchEvent(new Event('pagehide'));
      await ctx.timers.advance(10);
      page.dispatchEvent(Object.assign(new Event('pageshow'), { persisted: true }));
      await ctx.timers.until(() => ctx.member.state === 'stable' && ctx.member.memberId !== firstId);
      expect(ctx.beats().at(-2)).toMatchObject({ memberEpoch: 0, instanceId: 'tab-1', topicPartitions: [] });
      expect(ctx.member.assignment).toEqual(orders(0, 1, 2, 3));
    });

    it('a dynamic member does nothing on pagehide (its closed socket ends its membership)', async () => {
      const ctx = setup();
      await ctx.start();
      const sent = ctx.beats().length;
      page.dispatchEvent(new Event('pagehide'));
      await ctx.timers.advance(2000);
      expect(
        ctx
          .beats()
          .slice(sent)
          .map((b) => b.memberEpoch),
      ).toEqual([1]);
    });
  });

  it.each([
    [56, 'KAFKA_STORAGE_ERROR', 'the coordinator cannot write: its disk is full'],
    [19, 'NOT_ENOUGH_REPLICAS', 'too few replicas in sync'],
  ])(
    'a retriable answer (%i %s) while it is stable is retried after a back-off, with every field; the member keeps its partitions',
    async (errorCode, errorName, errorMessage) => {
      const ctx = setup();
      await ctx.start();
      const sent = ctx.beats().length;
      const refusedAt: number[] = [];
      ctx.server.answer(
        'ConsumerGroupHeartbeat',
        () => {
          refusedAt.push(ctx.timers.now());
          return {
            errorCode,
            errorName,
            errorMessage,
            memberId: null,
            memberEpoch: 0,
            heartbeatIntervalMs: 0,
            assignment: null,
          };
        },
        2,
      );
      // The interval's heartbeat, refused twice, then answered.
      await ctx.timers.until(() => ctx.beats().length >= sent + 3);
      await ctx.timers.until(() => ctx.member.state === 'stable');
      expect(ctx.crashes).toEqual([]);
      expect(ctx.errors.map((e) => [e.code, e.retriable])).toEqual([
        [errorCode, true],
        [errorCode, true],
      ]);
      // Backed off (the client's retry starts at 100 ms), then a full request at the epoch it holds.
      expect(refusedAt[1] - refusedAt[0]).toBeGreaterThanOrEqual(100);
      expect(ctx.beats()[sent + 2]).toMatchObject({
        memberEpoch: 1,
        subscribedTopicNames: ['orders'],
        topicPartitions: orders(0, 1, 2, 3),
      });
      expect(ctx.log.filter((line) => line.startsWith('lost') || line.startsWith('revoked'))).toEqual([]);
    },
  );

  it('a fatal answer (UNRELEASED_INSTANCE_ID) stops the member: start() rejects and it crashes', async () => {
    const ctx = setup({ groupInstanceId: 'tab-1' });
    ctx.server.answer('ConsumerGroupHeartbeat', () => ({
      errorCode: 111,
      errorName: 'UNRELEASED_INSTANCE_ID',
      errorMessage: 'in use',
      memberId: null,
      memberEpoch: -1,
      heartbeatIntervalMs: 0,
      assignment: null,
    }));
    const started = ctx.member.start();
    started.catch(() => undefined);
    await ctx.timers.until(() => ctx.member.state === 'stopped');
    await expect(started).rejects.toMatchObject({ name: 'UNRELEASED_INSTANCE_ID', retriable: false });
    expect(ctx.crashes.map((e) => e.code)).toEqual([111]);
  });

  it("refuses the classic protocol's options, naming them", () => {
    const client = new CohortClient({ urls: ['http://x'], socketFactory: new FakeCoordinator().factory });
    expect(() =>
      client.member({
        groupId: 'g',
        groupProtocol: 'consumer',
        topics: ['t'],
        sessionTimeoutMs: 1000,
        assignors: ['range'],
      } as ConsumerMemberOptions),
    ).toThrow(
      /sessionTimeoutMs belongs to groupProtocol 'classic'.*assignors|assignors belongs to groupProtocol 'classic'.*sessionTimeoutMs/,
    );
    expect(() => client.member({ groupId: 'g', groupProtocol: 'consumer' } as ConsumerMemberOptions)).toThrow(
      /topics or topicPattern is required/,
    );
    expect(() => client.member({ groupId: 'g', topics: ['t'], groupProtocol: 'kafka' } as never)).toThrow(
      /groupProtocol must be 'classic' or 'consumer'/,
    );
  });
});
