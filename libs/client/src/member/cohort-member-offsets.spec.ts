import { FakeCoordinator, setup, stable } from '@cohort/client/testing';

/**
 * The member's offsets under a fake clock and a scripted coordinator: markProcessed, auto-commit,
 * commit() and committed(). The Kafka test each one mirrors (ConsumerCoordinatorTest) is named in its title.
 */
describe('CohortMember offsets (under a fake clock)', () => {
  it('auto-commits marked offsets every interval, only what moved, with its generation', async () => {
    const ctx = setup({ autoCommit: { intervalMs: 5000 } });
    await stable(ctx);
    ctx.member.markProcessed({ topic: 'orders', partition: 0, offset: 10 });
    await ctx.timers.advance(5000);
    await ctx.timers.advance(5000);
    ctx.member.markProcessed({ topic: 'orders', partition: 1, offset: 3 });
    await ctx.timers.advance(5000);
    expect(ctx.server.sent('OffsetCommit').map((c) => c.topics)).toEqual([
      [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 10 }] }],
      [{ name: 'orders', partitions: [{ partitionIndex: 1, committedOffset: 3 }] }],
    ]);
    expect(ctx.server.sent('OffsetCommit')[0]).toMatchObject({ generationId: 1, memberId: 'm-1' });
  });

  it('a commit answered REBALANCE_IN_PROGRESS rejects and makes the member rejoin without losing its generation (testCommitOffsetRebalanceInProgress)', async () => {
    const ctx = setup({ autoCommit: false });
    await stable(ctx);
    ctx.server.answer('OffsetCommit', () => ({ errorCode: 27, errorName: 'REBALANCE_IN_PROGRESS', topics: [] }));
    await expect(ctx.member.commit([{ topic: 'orders', partition: 0, offset: 1 }])).rejects.toMatchObject({ code: 27 });
    await ctx.timers.until(() => ctx.member.generationId === 2 && ctx.member.state === 'stable');
    expect(ctx.log.filter((l) => l.startsWith('lost'))).toEqual([]);
  });

  it('a commit answered UNKNOWN_MEMBER_ID for the current generation rejects, and the partitions are lost (testCommitOffsetUnknownMemberWithNewGeneration)', async () => {
    const ctx = setup({ autoCommit: false });
    await stable(ctx);
    ctx.server.answer('OffsetCommit', () => ({ errorCode: 25, errorName: 'UNKNOWN_MEMBER_ID', topics: [] }));
    await expect(ctx.member.commit([{ topic: 'orders', partition: 0, offset: 1 }])).rejects.toMatchObject({
      code: 25,
      retriable: false,
    });
    await ctx.timers.until(() => ctx.member.generationId === 2 && ctx.member.state === 'stable');
    expect(ctx.log).toContain('lost [orders-0,orders-1,orders-2,orders-3]');
  });

  it('commits are retried through NOT_COORDINATOR and COORDINATOR_LOAD_IN_PROGRESS, rediscovering the coordinator (testCommitOffsetSyncCoordinatorNotAvailable)', async () => {
    const ctx = setup({ autoCommit: false });
    await stable(ctx);
    ctx.server.answer('OffsetCommit', () => ({ errorCode: 16, errorName: 'NOT_COORDINATOR', topics: [] }));
    ctx.server.answer('OffsetCommit', () => ({ errorCode: 14, errorName: 'COORDINATOR_LOAD_IN_PROGRESS', topics: [] }));
    const commit = ctx.member.commit([{ topic: 'orders', partition: 3, offset: 8 }]);
    await ctx.timers.advance(2000);
    await commit;
    expect(ctx.server.sent('OffsetCommit')).toHaveLength(3);
    expect(ctx.server.sent('FindCoordinator')).toHaveLength(2);
    expect(ctx.server.committed.get('orders-3')).toBe(8);
  });

  it('committed() retries UNSTABLE_OFFSET_COMMIT and reports a missing offset as null (testRefreshOffsetWithPendingTransactions)', async () => {
    const ctx = setup();
    await stable(ctx);
    ctx.server.committed.set('orders-1', 44);
    ctx.server.answer('OffsetFetch', () => ({
      errorCode: 0,
      topics: [
        {
          name: 'orders',
          partitions: [
            { partitionIndex: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: 88 },
          ],
        },
      ],
    }));
    const fetched = ctx.member.committed([{ topic: 'orders', partitions: [0, 1] }]);
    await ctx.timers.advance(500);
    expect(await fetched).toEqual([
      { topic: 'orders', partition: 0, offset: null, metadata: '' },
      { topic: 'orders', partition: 1, offset: 44, metadata: '' },
    ]);
    expect(ctx.server.sent('OffsetFetch').every((f) => f.requireStable === true)).toBe(true);
  });

  it('commit() while a rebalance is under way fails at once with REBALANCE_IN_PROGRESS, without a request (the Java pre-check)', async () => {
    const ctx = setup({ autoCommit: false });
    ctx.server.answer('JoinGroup', (p) => ctx.server.join(p), 1);
    ctx.server.answer('JoinGroup', () => FakeCoordinator.HOLD, 1);
    ctx.member.start().catch(() => undefined);
    await ctx.timers.until(() => ctx.server.held.length === 1);
    expect(ctx.member.state).toBe('joining');
    await expect(ctx.member.commit([{ topic: 'orders', partition: 0, offset: 1 }])).rejects.toMatchObject({
      name: 'REBALANCE_IN_PROGRESS',
      retriable: true,
    });
    expect(ctx.server.sent('OffsetCommit')).toEqual([]);
  });

  it('markProcessed refuses partitions the member does not own (they may belong to someone else now)', async () => {
    const ctx = setup();
    await stable(ctx);
    expect(ctx.member.markProcessed({ topic: 'orders', partition: 9, offset: 1 })).toBe(false);
    expect(ctx.member.markProcessed({ topic: 'orders', partition: 1, offset: 1 })).toBe(true);
    expect(() => ctx.member.markProcessed({ topic: 'orders', partition: 1, offset: -2 })).toThrow(RangeError);
  });
});
