import { CohortError } from '@cohort/client';
import { FakeCoordinator, FakeTimers, setup, stable, type Ctx } from '@cohort/client/testing';

const NODE = 'http://node-0';
const SESSION = 10_000;
const MARGIN = 1_000; // a tenth of the session, at most 1 s

/** When each answered Heartbeat was sent (virtual ms), recorded as the fake coordinator sees them. */
function recordBeats(ctx: Ctx): number[] {
  const sent: number[] = [];
  ctx.server.always('Heartbeat', () => {
    sent.push(ctx.timers.now());
    return { errorCode: 0 };
  });
  return sent;
}

function lostAt(ctx: Ctx): { at: number | null } {
  const seen: { at: number | null } = { at: null };
  ctx.member.on('lost', () => void (seen.at ??= ctx.timers.now()));
  return seen;
}

/**
 * Self-fencing under a fake clock: a member that has had no heartbeat answered for its session
 * timeout treats its membership as gone before the coordinator can have given its partitions away.
 */
describe('CohortMember self-fencing (session timeout without an answered heartbeat)', () => {
  it('cut off from every node, it reports its partitions lost at the last answered heartbeat’s send time + session − margin, refuses marks and commits, commits nothing more, and rejoins with its member id when it can', async () => {
    const ctx = setup(
      { sessionTimeoutMs: SESSION, heartbeatIntervalMs: 3000, autoCommit: { intervalMs: 5000 } },
      { urls: [NODE] },
    );
    const beats = recordBeats(ctx);
    const lost = lostAt(ctx);
    await stable(ctx);
    await ctx.timers.advance(7000); // two heartbeats answered
    ctx.member.markProcessed({ topic: 'orders', partition: 1, offset: 42 });
    ctx.server.kill(NODE);
    const commitsBefore = ctx.server.sent('OffsetCommit').length;
    await ctx.timers.until(() => lost.at !== null, 30_000, 10);
    expect(lost.at).toBe(beats.at(-1)! + SESSION - MARGIN);
    expect(ctx.log.at(-1)).toBe('lost [orders-0,orders-1,orders-2,orders-3]');
    expect(ctx.member).toMatchObject({ state: 'joining', generationId: -1, memberId: 'm-1', assignment: [] });

    expect(() => ctx.member.markProcessed({ topic: 'orders', partition: 1, offset: 43 })).toThrow(
      expect.objectContaining({ name: 'SESSION_EXPIRED', code: 25, retriable: false }),
    );
    await expect(ctx.member.commit()).rejects.toMatchObject({ name: 'SESSION_EXPIRED' });

    // The node comes back: the member joins again under its member id and gets partitions anew.
    await ctx.timers.advance(20_000);
    ctx.server.revive(NODE);
    await ctx.timers.until(() => ctx.member.state === 'stable');
    expect(ctx.server.sent('OffsetCommit')).toHaveLength(commitsBefore); // nothing committed for lost partitions
    expect(ctx.server.sent('JoinGroup').at(-1)).toMatchObject({ memberId: 'm-1' });
    expect(ctx.log.slice(-2)).toEqual(['joined g2 leader', 'assigned [orders-0,orders-1,orders-2,orders-3] g2']);
    expect(ctx.member.markProcessed({ topic: 'orders', partition: 1, offset: 43 })).toBe(true);
  });

  it('counts from when the last answered heartbeat was sent, not from its answer', async () => {
    const ctx = setup({ sessionTimeoutMs: SESSION, heartbeatIntervalMs: 3000 }, { urls: [NODE] });
    const lost = lostAt(ctx);
    await stable(ctx);
    ctx.server.answer('Heartbeat', () => FakeCoordinator.HOLD);
    await ctx.timers.until(() => ctx.server.held.length === 1, 10_000, 10);
    const sentAt = ctx.timers.now();
    await ctx.timers.advance(2500); // a slow answer, still inside the session
    ctx.server.release('Heartbeat', { errorCode: 0 });
    ctx.server.kill(NODE);
    await ctx.timers.until(() => lost.at !== null, 30_000, 10);
    expect(lost.at).toBe(sentAt + SESSION - MARGIN);
  });

  it('REBALANCE_IN_PROGRESS on a heartbeat counts as an answered one (Kafka: the session lives through a rebalance)', async () => {
    const ctx = setup({ sessionTimeoutMs: SESSION, heartbeatIntervalMs: 3000, assignors: ['range'] }, { urls: [NODE] });
    const lost = lostAt(ctx);
    await stable(ctx);
    ctx.server.always('JoinGroup', () => FakeCoordinator.HOLD);
    ctx.server.answer('Heartbeat', () => ({ errorCode: 27, errorName: 'REBALANCE_IN_PROGRESS' }));
    await ctx.timers.until(() => ctx.server.held.length === 1, 10_000, 10);
    expect(lost.at).toBeNull();
  });

  it('a JoinGroup the coordinator holds keeps the member: a cooperative member keeps its partitions however long the rebalance waits', async () => {
    const ctx = setup({ sessionTimeoutMs: SESSION, heartbeatIntervalMs: 3000 }, { urls: [NODE] });
    await stable(ctx);
    ctx.server.answer('JoinGroup', () => FakeCoordinator.HOLD);
    ctx.server.push('RebalanceInProgress', { groupId: 'g', generationId: 1, reason: 'a slow member' });
    await ctx.timers.until(() => ctx.server.held.length === 1, 10_000, 10);
    await ctx.timers.advance(3 * SESSION);
    expect(ctx.log.filter((l) => l.startsWith('lost'))).toEqual([]);
    expect(ctx.member.markProcessed({ topic: 'orders', partition: 0, offset: 7 })).toBe(true);
    const held = ctx.server.held[0];
    ctx.server.release('JoinGroup', ctx.server.join(held.payload));
    await ctx.timers.until(() => ctx.member.state === 'stable' && ctx.member.generationId === 2);
    await ctx.timers.advance(2 * SESSION);
    expect(ctx.log.filter((l) => l.startsWith('lost'))).toEqual([]);
  });

  it('a held JoinGroup that fails counts from when it was sent: held longer than the session, the partitions are lost at once', async () => {
    const ctx = setup({ sessionTimeoutMs: SESSION, heartbeatIntervalMs: 3000 }, { urls: [NODE] });
    const lost = lostAt(ctx);
    await stable(ctx);
    ctx.server.answer('JoinGroup', () => FakeCoordinator.HOLD);
    ctx.server.push('RebalanceInProgress', { groupId: 'g', generationId: 1, reason: 'a slow member' });
    await ctx.timers.until(() => ctx.server.held.length === 1, 10_000, 10);
    await ctx.timers.advance(2 * SESSION);
    const killedAt = ctx.timers.now();
    ctx.server.kill(NODE); // the held JoinGroup dies with the connection
    await ctx.timers.until(() => lost.at !== null, 1000, 1);
    expect(lost.at! - killedAt).toBeLessThanOrEqual(1);
    expect(() => ctx.member.markProcessed({ topic: 'orders', partition: 0, offset: 7 })).toThrow(CohortError);
  });

  it('a heartbeat answered for a generation the member has left does not move its clock', async () => {
    const ctx = setup({ sessionTimeoutMs: SESSION, heartbeatIntervalMs: 3000 }, { urls: [NODE] });
    await stable(ctx);
    ctx.server.answer('Heartbeat', () => ({ errorCode: 25, errorName: 'UNKNOWN_MEMBER_ID' }));
    await ctx.timers.until(() => ctx.member.generationId === 2 && ctx.member.state === 'stable');
    // Lost through UNKNOWN_MEMBER_ID, not the fence: a new assignment makes marks the member's own.
    expect(ctx.member.markProcessed({ topic: 'orders', partition: 0, offset: 1 })).toBe(true);
  });

  it('in a throttled tab whose timers fire late, marks are refused from the deadline on, and the late timer reports lost', async () => {
    // Timers that fire only on whole minutes (Chrome's intensive throttling of hidden tabs).
    const fake = new FakeTimers();
    const origin = fake.now();
    const minute = (ms: number) => Math.ceil((fake.now() - origin + ms) / 60_000) * 60_000 - (fake.now() - origin);
    const throttled = {
      now: () => fake.now(),
      random: () => 0.5,
      clearTimeout: (handle: unknown) => fake.clearTimeout(handle),
      setTimeout: (callback: () => void, ms: number) => fake.setTimeout(callback, minute(ms)),
    };
    const ctx = setup({ sessionTimeoutMs: SESSION, heartbeatIntervalMs: 3000 }, { urls: [NODE], timers: throttled });
    const lost: number[] = [];
    ctx.member.on('lost', () => void lost.push(fake.now() - origin));
    let joinedAt = 0; // the JoinGroup answer restarted the clock
    ctx.member.on('joined', () => void (joinedAt = fake.now()));
    ctx.member.start().catch(() => undefined);
    await fake.until(() => ctx.member.state === 'stable', 300_000, 1000);
    ctx.server.kill(NODE);
    await fake.advance(joinedAt + SESSION - MARGIN - 1 - fake.now());
    expect(ctx.member.markProcessed({ topic: 'orders', partition: 0, offset: 1 })).toBe(true);
    expect(lost).toEqual([]);
    await fake.advance(1);
    expect(() => ctx.member.markProcessed({ topic: 'orders', partition: 0, offset: 2 })).toThrow(
      expect.objectContaining({ name: 'SESSION_EXPIRED' }),
    );
    await fake.advance(0); // listeners run one after another: let the test's own (the second) run
    expect(lost).toEqual([joinedAt + SESSION - MARGIN - origin]);
  });
});
