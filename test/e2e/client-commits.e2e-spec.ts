import { CohortClient, type PartitionAssignor } from '@cohort/client';
import { eventually } from '../support/group-member';
import { settled } from '../support/member-timeline';
import { appPerFile } from '../support/app-per-file';

jest.setTimeout(60_000);

/** @cohort/client commits and assignors against a real node. */
describe('@cohort/client commits and assignors (e2e)', () => {
  const app = appPerFile({ topics: { orders: 4, audit: 2 } });
  const clients: CohortClient[] = [];
  const client = (): CohortClient => {
    const c = new CohortClient({ urls: [app.url], clientId: 'e2e' });
    clients.push(c);
    return c;
  };
  const fast = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 300, rebalanceTimeoutMs: 10_000 };

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  it.each(['cooperative-sticky', 'range'])(
    'auto-commit (%s): offsets marked before a revoke are committed before the partitions move, so the new owner resumes exactly there',
    async (assignor) => {
      const groupId = `resume-${assignor}`;
      // An interval far longer than the test: only the commit before the revoke can store the marks.
      const options = {
        groupId,
        topics: ['orders'],
        assignors: [assignor],
        autoCommit: { intervalMs: 600_000 },
        ...fast,
      };
      const first = client().member(options);
      await first.start();
      for (const p of [0, 1, 2, 3]) first.markProcessed({ topic: 'orders', partition: p, offset: 100 + p });

      const second = client().member(options);
      const resumedAt: Record<number, number | null> = {};
      second.on('assigned', async (e) => {
        for (const c of await second.committed(e.partitions)) resumedAt[c.partition] = c.offset;
      });
      await second.start();
      await eventually(() => settled([first, second], 4), 'both share the partitions');
      const moved = second.assignment[0].partitions;
      // The listener runs once the assignment is held; its OffsetFetch may still be on its way.
      await eventually(() => moved.every((p) => p in resumedAt), 'the new owner read its starting offsets');
      expect(moved).toHaveLength(2);
      expect(Object.fromEntries(moved.map((p) => [p, resumedAt[p]]))).toEqual(
        Object.fromEntries(moved.map((p) => [p, 100 + p])),
      );
    },
  );

  it('commit() and committed(): explicit offsets with metadata, committed events, and none for untouched partitions', async () => {
    const member = client().member({ groupId: 'explicit', topics: ['orders', 'audit'], autoCommit: false, ...fast });
    const events: unknown[] = [];
    member.on('committed', (e) => events.push(e.offsets));
    await member.start();
    await member.commit([{ topic: 'orders', partition: 1, offset: 42, metadata: 'checkpoint' }]);
    expect(member.markProcessed({ topic: 'audit', partition: 0, offset: 7 })).toBe(true);
    expect(member.markProcessed({ topic: 'elsewhere', partition: 0, offset: 7 })).toBe(false);
    await member.commit();
    expect(events).toEqual([
      [{ topic: 'orders', partition: 1, offset: 42, metadata: 'checkpoint' }],
      [{ topic: 'audit', partition: 0, offset: 7, metadata: null }],
    ]);
    const committed = await member.committed();
    expect(committed).toEqual(
      expect.arrayContaining([
        { topic: 'orders', partition: 1, offset: 42, metadata: 'checkpoint' },
        { topic: 'orders', partition: 0, offset: null, metadata: expect.anything() },
        { topic: 'audit', partition: 0, offset: 7, metadata: expect.anything() },
      ]),
    );
    expect(committed).toHaveLength(6);
  });

  it('stop() commits what was marked (auto-commit), then leaves', async () => {
    const member = client().member({
      groupId: 'on-stop',
      topics: ['audit'],
      autoCommit: { intervalMs: 600_000 },
      ...fast,
    });
    await member.start();
    member.markProcessed({ topic: 'audit', partition: 1, offset: 9 });
    await member.stop();
    const { body } = await app.http().get('/v1/groups/on-stop/offsets').expect(200);
    expect(
      body.offsets.map((o: { partition: number; committedOffset: number }) => [o.partition, o.committedOffset]),
    ).toEqual([[1, 9]]);
  });

  it('a plugin assignor object runs on the leader, with its subscription user data and onAssignment', async () => {
    const seenUserData: unknown[] = [];
    const generations: number[] = [];
    // Everything to the member whose user data says it is the "primary".
    const primaryFirst = (role: string): PartitionAssignor => ({
      name: 'primary-first',
      subscriptionUserData: () => ({ role }),
      assign(cluster, members) {
        seenUserData.push(...members.map((m) => m.subscription.userData));
        const primary =
          members.find((m) => (m.subscription.userData as { role?: string })?.role === 'primary') ?? members[0];
        return Object.fromEntries(
          members.map((m) => [
            m.memberId,
            {
              partitions:
                m === primary
                  ? [
                      {
                        topic: 'orders',
                        partitions: Array.from({ length: cluster.partitionsPerTopic.orders }, (_, i) => i),
                      },
                    ]
                  : [],
            },
          ]),
        );
      },
      onAssignment: (_assignment, generationId) => generations.push(generationId),
    });
    const standby = client().member({
      groupId: 'plugin',
      topics: ['orders'],
      assignors: [primaryFirst('standby')],
      ...fast,
    });
    const primary = client().member({
      groupId: 'plugin',
      topics: ['orders'],
      assignors: [primaryFirst('primary')],
      ...fast,
    });
    await Promise.all([standby.start(), primary.start()]);
    await eventually(() => settled([standby, primary], 4), 'the group settled');
    expect(primary.assignment).toEqual([{ topic: 'orders', partitions: [0, 1, 2, 3] }]);
    expect(standby.assignment).toEqual([]);
    expect(seenUserData).toEqual(expect.arrayContaining([{ role: 'primary' }, { role: 'standby' }]));
    expect(generations).toContain(primary.generationId);
    const { body } = await app.http().get('/v1/groups/plugin').expect(200);
    expect(body.protocol).toBe('primary-first');
  });

  it('serverAssignor: the coordinator assigns, and members never run an assignor', async () => {
    const options = { groupId: 'served', topics: ['orders'], serverAssignor: 'range', ...fast };
    const a = client().member(options);
    const b = client().member(options);
    await Promise.all([a.start(), b.start()]);
    await eventually(() => settled([a, b], 4), 'the group settled');
    expect([a, b].map((m) => m.assignment[0].partitions.length)).toEqual([2, 2]);
  });
});
