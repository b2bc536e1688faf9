import { assignAll, FakeCoordinator, setup, stable } from '@cohort/client/testing';
import type { CohortMember } from './cohort-member';

/**
 * The member's state machine under a fake clock and a scripted coordinator. Test names say the
 * behaviour; the Kafka test each one mirrors (ConsumerCoordinatorTest, AbstractCoordinatorTest) is
 * named in the comment. Its offsets (commits, auto-commit, committed()) are in cohort-member-offsets.spec.ts.
 */
describe('CohortMember (state machine under a fake clock)', () => {
  it('joins twice under KIP-394: MEMBER_ID_REQUIRED is answered at once with a JoinGroup carrying the returned id (testJoinGroupRequestWithMemberIdRequired)', async () => {
    const ctx = setup();
    await stable(ctx);
    expect(ctx.server.sent('JoinGroup').map((j) => j.memberId)).toEqual(['', 'm-1']);
    expect(ctx.member).toMatchObject({ memberId: 'm-1', generationId: 1, state: 'stable' });
    expect(ctx.member.assignment).toEqual(assignAll.partitions);
    expect(ctx.log).toEqual(['joined g1 leader', 'assigned [orders-0,orders-1,orders-2,orders-3] g1']);
  });

  it('sends its subscription with ownedPartitions, generation and the assignor user data, one protocol per assignor', async () => {
    const ctx = setup({ assignors: ['cooperative-sticky', 'range'], rackId: 'r1' });
    expect(ctx.member.protocol).toBe('eager'); // range is eager-only: the common protocol is eager
    await stable(ctx);
    const join = ctx.server.sent('JoinGroup')[1];
    expect(join.protocols.map((p: { name: string }) => p.name)).toEqual(['cooperative-sticky', 'range']);
    expect(join.protocols[0].metadata).toEqual({
      topics: ['orders'],
      ownedPartitions: [],
      generationId: -1,
      rackId: 'r1',
      userData: { generation: -1 },
    });
    expect(join).toMatchObject({
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 30_000,
      protocolType: 'consumer',
      reason: 'initial join',
    });
  });

  it('heartbeats on its own timer every interval while stable', async () => {
    const ctx = setup();
    await stable(ctx);
    const before = ctx.server.sent('Heartbeat').length;
    await ctx.timers.advance(9000);
    expect(ctx.server.sent('Heartbeat').length - before).toBe(3);
    expect(ctx.server.sent('Heartbeat').at(-1)).toEqual({ groupId: 'g', generationId: 1, memberId: 'm-1' });
  });

  it('keeps heartbeating while a slow listener runs (the heartbeat thread, not the application, keeps the session)', async () => {
    const ctx = setup();
    let finish = (): void => undefined;
    ctx.member.on('assigned', () => new Promise<void>((resolve) => (finish = resolve)));
    const started = ctx.member.start();
    await ctx.timers.until(() => ctx.server.sent('SyncGroup').length === 1);
    await ctx.timers.advance(20_000);
    expect(ctx.server.sent('Heartbeat').length).toBeGreaterThanOrEqual(6);
    finish();
    await started;
  });

  it('heartbeat UNKNOWN_MEMBER_ID: the partitions are lost, and the next JoinGroup starts over with an empty member id (testUnknownMemberId)', async () => {
    const ctx = setup();
    await stable(ctx);
    ctx.server.answer('Heartbeat', () => ({ errorCode: 25, errorName: 'UNKNOWN_MEMBER_ID' }));
    await ctx.timers.until(() => ctx.log.some((l) => l.startsWith('lost')));
    await ctx.timers.until(() => ctx.member.state === 'stable' && ctx.member.generationId === 2);
    expect(ctx.log.slice(2)).toEqual([
      'lost [orders-0,orders-1,orders-2,orders-3]',
      'joined g2 leader',
      'assigned [orders-0,orders-1,orders-2,orders-3] g2',
    ]);
    expect(
      ctx.server
        .sent('JoinGroup')
        .slice(2)
        .map((j) => j.memberId),
    ).toEqual(['', 'm-2']);
  });

  it('heartbeat ILLEGAL_GENERATION: the partitions are lost and the member rejoins keeping its id (testIllegalGeneration)', async () => {
    const ctx = setup();
    await stable(ctx);
    ctx.server.answer('Heartbeat', () => ({ errorCode: 22, errorName: 'ILLEGAL_GENERATION' }));
    await ctx.timers.until(() => ctx.member.generationId === 2 && ctx.member.state === 'stable');
    expect(ctx.log).toContain('lost [orders-0,orders-1,orders-2,orders-3]');
    expect(ctx.log).not.toContainEqual(expect.stringMatching(/^revoked/));
    expect(ctx.server.sent('JoinGroup').at(-1).memberId).toBe('m-1');
  });

  it('ignores an error that answers a generation it has already left (testHeartbeatIllegalGenerationResponseWithOldGeneration)', async () => {
    const ctx = setup();
    await stable(ctx);
    ctx.server.answer('Heartbeat', () => FakeCoordinator.HOLD);
    await ctx.timers.until(() => ctx.server.held.length === 1);
    ctx.server.push('RebalanceInProgress', { groupId: 'g', generationId: 1, reason: 'a new member' });
    await ctx.timers.until(() => ctx.member.generationId === 2 && ctx.member.state === 'stable');
    ctx.server.release('Heartbeat', { errorCode: 22, errorName: 'ILLEGAL_GENERATION' });
    await ctx.timers.advance(5000);
    expect(ctx.member).toMatchObject({ generationId: 2, state: 'stable' });
    expect(ctx.log.filter((l) => l.startsWith('lost'))).toEqual([]);
  });

  it('a RebalanceInProgress push for its generation makes it rejoin at once; one for another generation is ignored', async () => {
    const ctx = setup({ assignors: ['range'] });
    await stable(ctx);
    ctx.server.push('RebalanceInProgress', { groupId: 'g', generationId: 7, reason: 'stale' });
    ctx.server.push('RebalanceInProgress', { groupId: 'other', generationId: 1, reason: 'not ours' });
    await ctx.timers.advance(100);
    expect(ctx.server.sent('JoinGroup')).toHaveLength(2);
    ctx.server.push('RebalanceInProgress', { groupId: 'g', generationId: 1, reason: 'member x joined' });
    await ctx.timers.until(() => ctx.member.generationId === 2 && ctx.member.state === 'stable');
    expect(ctx.server.sent('JoinGroup').at(-1).reason).toBe('member x joined');
    // Eager: everything revoked before the JoinGroup, then everything assigned again.
    expect(ctx.log.slice(2)).toEqual([
      'rebalancing g1',
      'revoked [orders-0,orders-1,orders-2,orders-3] g1',
      'joined g2 leader',
      'assigned [orders-0,orders-1,orders-2,orders-3] g2',
    ]);
  });

  it('eager: revokes once per rebalance, not once per JoinGroup retry (needsJoinPrepare)', async () => {
    const ctx = setup({ assignors: ['range'] });
    await stable(ctx);
    ctx.server.answer('JoinGroup', () => ({ errorCode: 15, errorName: 'COORDINATOR_NOT_AVAILABLE' }));
    ctx.server.push('RebalanceInProgress', { groupId: 'g', generationId: 1, reason: 'scaling' });
    await ctx.timers.until(() => ctx.member.generationId === 2 && ctx.member.state === 'stable');
    expect(ctx.log.slice(2)).toEqual([
      'rebalancing g1',
      'revoked [orders-0,orders-1,orders-2,orders-3] g1',
      'joined g2 leader',
      'assigned [orders-0,orders-1,orders-2,orders-3] g2',
    ]);
    expect(ctx.server.sent('JoinGroup').at(-1).reason).toMatch(/^rebalance failed due to COORDINATOR_NOT_AVAILABLE/);
  });

  it('cooperative: only partitions that move are revoked, and the member rejoins at once for the second round (KIP-429)', async () => {
    const ctx = setup();
    await stable(ctx);
    // Round 1: the leader is told another member exists and gives it nothing yet; this member keeps 0 and 1.
    ctx.server.answer('SyncGroup', () =>
      FakeCoordinator.syncAnswer({ partitions: [{ topic: 'orders', partitions: [0, 1] }] }),
    );
    ctx.server.push('RebalanceInProgress', { groupId: 'g', generationId: 1, reason: 'member n joined' });
    await ctx.timers.until(() => ctx.member.generationId === 3 && ctx.member.state === 'stable');
    expect(ctx.log.slice(2)).toEqual([
      'rebalancing g1',
      'joined g2 leader',
      'revoked [orders-2,orders-3] g2',
      'assigned [] g2',
      'joined g3 leader',
      'assigned [orders-2,orders-3] g3',
    ]);
    const secondRound = ctx.server.sent('JoinGroup').at(-1);
    expect(secondRound.reason).toBe('need to revoke partitions and re-join');
    expect(secondRound.protocols[0].metadata.ownedPartitions).toEqual([{ topic: 'orders', partitions: [0, 1] }]);
  });

  it('NOT_COORDINATOR on a heartbeat finds the coordinator again and keeps the generation (testNotCoordinator)', async () => {
    const ctx = setup();
    await stable(ctx);
    ctx.server.answer('Heartbeat', () => ({ errorCode: 16, errorName: 'NOT_COORDINATOR' }));
    await ctx.timers.until(() => ctx.server.sent('FindCoordinator').length === 2);
    await ctx.timers.until(() => ctx.server.sent('Heartbeat').length >= 3);
    expect(ctx.member).toMatchObject({ generationId: 1, memberId: 'm-1', state: 'stable' });
    expect(ctx.server.sent('JoinGroup')).toHaveLength(2);
    expect(ctx.errors.map((e) => e.name)).toEqual(['NOT_COORDINATOR']);
  });

  it('a dropped connection keeps member id and generation; after the reconnect it heartbeats at once (testCoordinatorDisconnect)', async () => {
    const ctx = setup();
    await stable(ctx);
    const beats = ctx.server.sent('Heartbeat').length;
    ctx.server.drop();
    await ctx.timers.advance(800);
    ctx.server.reconnect();
    await ctx.timers.advance(10);
    expect(ctx.server.sent('Heartbeat').length).toBe(beats + 1);
    await ctx.timers.advance(10_000);
    expect(ctx.member).toMatchObject({ generationId: 1, memberId: 'm-1', state: 'stable' });
    expect(ctx.server.sent('JoinGroup')).toHaveLength(2);
  });

  it('retains its member id when the connection drops during a JoinGroup, and joins again with it (testRetainMemberIdAfterJoinGroupDisconnect)', async () => {
    const ctx = setup();
    ctx.server.answer('JoinGroup', (p) => ctx.server.join(p), 1); // the KIP-394 answer
    ctx.server.answer('JoinGroup', () => FakeCoordinator.HOLD, 1);
    const started = ctx.member.start();
    await ctx.timers.until(() => ctx.server.held.length === 1);
    ctx.server.drop();
    await ctx.timers.advance(500);
    ctx.server.reconnect();
    await ctx.timers.until(() => ctx.member.state === 'stable');
    await started;
    expect(ctx.server.sent('JoinGroup').map((j) => j.memberId)).toEqual(['', 'm-1', 'm-1']);
    expect(ctx.errors.map((e) => e.name)).toContain('NETWORK_EXCEPTION');
  });

  it('COORDINATOR_LOAD_IN_PROGRESS on JoinGroup is retried after a back-off (testBackoffAndRetryUponRetriableError)', async () => {
    const ctx = setup();
    ctx.server.answer('JoinGroup', () => ({ errorCode: 14, errorName: 'COORDINATOR_LOAD_IN_PROGRESS' }));
    ctx.member.start().catch(() => undefined);
    await ctx.timers.until(() => ctx.errors.length === 1, 1000, 1);
    await ctx.timers.advance(90);
    expect(ctx.server.sent('JoinGroup')).toHaveLength(1); // waiting: 100 ms ± 20 % (the fake's jitter draw is the middle)
    await ctx.timers.advance(20);
    // The retry went out (and its KIP-394 answer was followed at once).
    expect(ctx.server.sent('JoinGroup').map((j) => j.memberId)).toEqual(['', '', 'm-1']);
    await ctx.timers.until(() => ctx.member.state === 'stable');
    expect(ctx.errors[0]).toMatchObject({ code: 14, retriable: true });
  });

  it.each([
    [26, 'INVALID_SESSION_TIMEOUT'],
    [81, 'GROUP_MAX_SIZE_REACHED'],
    [23, 'INCONSISTENT_GROUP_PROTOCOL'],
    [30, 'GROUP_AUTHORIZATION_FAILED'],
  ])(
    '%i %s on JoinGroup is fatal: crash, and start() rejects (testInvalidSessionTimeout, testGroupMaxSizeExceptionIsFatal)',
    async (code, name) => {
      const ctx = setup();
      ctx.server.always('JoinGroup', () => ({ errorCode: code, errorName: name }));
      const started = ctx.member.start();
      started.catch(() => undefined);
      await ctx.timers.until(() => ctx.member.state === 'stopped');
      await expect(started).rejects.toMatchObject({ code, name, retriable: false });
      expect(ctx.crashes.map((e) => e.name)).toEqual([name]);
      expect(ctx.server.sent('JoinGroup')).toHaveLength(1);
    },
  );

  it('FENCED_INSTANCE_ID on a heartbeat is fatal for a static member: crash, partitions lost, no LeaveGroup (testHeartbeatRequestWithFencedInstanceIdException)', async () => {
    const ctx = setup({ groupInstanceId: 'i-1' });
    await stable(ctx);
    expect(ctx.server.sent('JoinGroup')).toHaveLength(1); // static members skip KIP-394
    ctx.server.answer('Heartbeat', () => ({ errorCode: 82, errorName: 'FENCED_INSTANCE_ID' }));
    await ctx.timers.until(() => ctx.member.state === 'stopped');
    expect(ctx.crashes.map((e) => e.name)).toEqual(['FENCED_INSTANCE_ID']);
    expect(ctx.log.at(-1)).toBe('lost [orders-0,orders-1,orders-2,orders-3]');
    expect(ctx.server.sent('LeaveGroup')).toEqual([]);
  });

  it('stop(): a dynamic member commits what was marked, revokes, then sends LeaveGroup (testLeaveGroupOnClose)', async () => {
    const ctx = setup();
    await stable(ctx);
    ctx.member.markProcessed({ topic: 'orders', partition: 2, offset: 17 });
    await ctx.member.stop();
    expect(ctx.log.at(-1)).toBe('revoked [orders-0,orders-1,orders-2,orders-3] g1');
    expect(ctx.server.committed.get('orders-2')).toBe(17);
    const order = ctx.server.requests.map((r) => r.event).filter((e) => e === 'OffsetCommit' || e === 'LeaveGroup');
    expect(order).toEqual(['OffsetCommit', 'LeaveGroup']);
    expect(ctx.server.sent('LeaveGroup')).toEqual([
      { groupId: 'g', members: [{ memberId: 'm-1', reason: 'the member was stopped' }] },
    ]);
    expect(ctx.member.state).toBe('stopped');
  });

  it('stop(): a static member sends no LeaveGroup (testLeaveGroupSentWithGroupInstanceIdUnSet)', async () => {
    const ctx = setup({ groupInstanceId: 'i-1' });
    await stable(ctx);
    await ctx.member.stop();
    expect(ctx.server.sent('LeaveGroup')).toEqual([]);
    expect(ctx.member.state).toBe('stopped');
  });

  it('a JoinGroup ack is awaited for the rebalance timeout plus 5 s, then retried (testJoinGroupRequestTimeout)', async () => {
    const ctx = setup({ rebalanceTimeoutMs: 20_000 });
    ctx.server.answer('JoinGroup', (p) => ctx.server.join(p), 1);
    ctx.server.answer('JoinGroup', () => FakeCoordinator.HOLD, 1);
    ctx.member.start().catch(() => undefined);
    await ctx.timers.until(() => ctx.server.held.length === 1);
    await ctx.timers.advance(24_900);
    expect(ctx.errors).toEqual([]);
    await ctx.timers.advance(200);
    expect(ctx.errors.map((e) => e.name)).toEqual(['REQUEST_TIMED_OUT']);
    await ctx.timers.until(() => ctx.member.state === 'stable');
  });

  it('a leader whose cooperative plugin assignor moves an owned partition in one round crashes instead of breaking the protocol (testPerformAssignmentShouldValidateCooperativeAssignment)', async () => {
    const ctx = setup({
      assignors: [
        {
          name: 'mover',
          supportedProtocols: ['cooperative'],
          assign: (_cluster, members) =>
            Object.fromEntries(
              members.map((m, i) => [
                m.memberId,
                { partitions: i === 0 ? [] : [{ topic: 'orders', partitions: [0] }] },
              ]),
            ),
        },
      ],
    });
    // Two members; this one (the leader) claims partition 0, and the assignor hands it to the other.
    ctx.server.answer('JoinGroup', (p) => ctx.server.join(p), 1);
    ctx.server.answer('JoinGroup', (p) =>
      ctx.server.join(p, [
        { memberId: 'm-1', metadata: { topics: ['orders'], ownedPartitions: [{ topic: 'orders', partitions: [0] }] } },
        { memberId: 'm-9', metadata: { topics: ['orders'], ownedPartitions: [] } },
      ]),
    );
    const started = ctx.member.start();
    started.catch(() => undefined);
    await ctx.timers.until(() => ctx.member.state === 'stopped');
    expect(ctx.crashes[0]).toMatchObject({ name: 'ASSIGNOR_FAILED', message: expect.stringContaining('cooperative') });
    expect(ctx.server.sent('SyncGroup')).toEqual([]);
  });

  it('a CoordinatorMoved push finds the coordinator again and carries on in the same generation', async () => {
    const ctx = setup();
    await stable(ctx);
    ctx.server.push('CoordinatorMoved', { groupId: 'g' });
    await ctx.timers.until(() => ctx.server.sent('FindCoordinator').length === 2);
    await ctx.timers.advance(4000);
    expect(ctx.member).toMatchObject({ generationId: 1, memberId: 'm-1', state: 'stable' });
    expect(ctx.server.sent('JoinGroup')).toHaveLength(2);
  });

  it('stop() after the generation was lost reports the partitions lost, commits nothing, and still leaves (testUnsubscribeWithInvalidGeneration)', async () => {
    const ctx = setup();
    await stable(ctx);
    ctx.member.markProcessed({ topic: 'orders', partition: 0, offset: 5 });
    ctx.server.always('JoinGroup', () => FakeCoordinator.HOLD);
    ctx.server.answer('Heartbeat', () => ({ errorCode: 22, errorName: 'ILLEGAL_GENERATION' }));
    await ctx.timers.until(() => ctx.server.held.length === 1);
    const stopped = ctx.member.stop();
    await ctx.timers.advance(100);
    await stopped;
    expect(ctx.log.filter((l) => l.startsWith('lost') || l.startsWith('revoked'))).toEqual([
      'lost [orders-0,orders-1,orders-2,orders-3]',
    ]);
    expect(ctx.server.sent('OffsetCommit')).toEqual([]);
    expect(ctx.server.sent('LeaveGroup')).toHaveLength(1);
    expect(ctx.member.state).toBe('stopped');
  });

  it('rejects options that cannot work, naming them', () => {
    const ctx = setup();
    expect(() => ctx.client.member({ groupId: '', topics: [] })).toThrow(/groupId.*topics/);
    expect(() =>
      ctx.client.member({ groupId: 'g', topics: ['t'], sessionTimeoutMs: 3000, heartbeatIntervalMs: 3000 }),
    ).toThrow(/heartbeatIntervalMs \(3000\) must be below sessionTimeoutMs/);
    expect(() => ctx.client.member({ groupId: 'g', topics: ['t'], assignors: ['nope'] })).toThrow(
      /unknown assignor 'nope'/,
    );
    expect(() =>
      ctx.client.member({
        groupId: 'g',
        topics: ['t'],
        assignors: [
          { name: 'e', supportedProtocols: ['eager'], assign: () => ({}) },
          { name: 'c', supportedProtocols: ['cooperative'], assign: () => ({}) },
        ],
      }),
    ).toThrow(/share no rebalance protocol/);
  });
});

export type { CohortMember };
