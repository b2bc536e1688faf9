import { CohortClient, type CohortMember } from '@cohort/client';
import { eventually } from '../support/group-member';
import { MemberTimeline, holdings, settled } from '../support/member-timeline';
import { appPerFile } from '../support/app-per-file';

jest.setTimeout(60_000);

/**
 * @cohort/client against a real node: members join, rebalance and leave through the SDK alone, and the
 * merged listener timeline of all members shows Kafka's ownership guarantees.
 */
describe('@cohort/client rebalances (e2e)', () => {
  const app = appPerFile({ topics: { orders: 6 } });
  const clients: CohortClient[] = [];
  const client = (): CohortClient => {
    const c = new CohortClient({ urls: [app.url], clientId: 'e2e' });
    clients.push(c);
    return c;
  };
  const fast = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, rebalanceTimeoutMs: 10_000 };

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  it('starts, holds every partition alone, and stops: stop() leaves the group at once', async () => {
    const member = client().member({ groupId: 'solo', topics: ['orders'], ...fast });
    expect(member.state).toBe('idle');
    await member.start();
    expect(member.state).toBe('stable');
    expect(member.memberId).not.toBe('');
    expect(member.generationId).toBeGreaterThan(0);
    expect(member.assignment).toEqual([{ topic: 'orders', partitions: [0, 1, 2, 3, 4, 5] }]);
    await member.stop();
    expect(member.state).toBe('stopped');
    const { body } = await app.http().get('/v1/groups/solo').expect(200);
    expect(body).toMatchObject({ state: 'Empty', members: [] });
  });

  it('cooperative: a third member joins; no partition is ever owned by two members, and only moved partitions are revoked', async () => {
    const timeline = new MemberTimeline();
    const groupId = 'coop';
    const a = timeline.watch('a', client().member({ groupId, topics: ['orders'], ...fast }));
    const b = timeline.watch('b', client().member({ groupId, topics: ['orders'], ...fast }));
    expect(a.protocol).toBe('cooperative');
    await Promise.all([a.start(), b.start()]);
    await eventually(() => settled([a, b], 6), 'a and b share the six partitions');
    const before = holdings({ a, b });
    const mark = timeline.entries.length;

    const c = timeline.watch('c', client().member({ groupId, topics: ['orders'], ...fast }));
    await c.start();
    await eventually(() => settled([a, b, c], 6), 'a, b and c share the six partitions');
    const after = holdings({ a, b, c });

    expect(timeline.doubleOwnership()).toEqual([]);
    expect(after.c.length).toBe(2);
    // Only what moved was revoked: a and b gave up exactly what c got, and kept the rest throughout.
    const moved = [
      ...before.a.filter((p) => !after.a.includes(p)),
      ...before.b.filter((p) => !after.b.includes(p)),
    ].sort();
    expect(moved).toEqual(after.c);
    expect([...timeline.revokedBy('a', mark), ...timeline.revokedBy('b', mark)].sort()).toEqual(moved);
    expect(timeline.entries.filter((e) => e.kind === 'lost')).toEqual([]);
  });

  it('eager: when a third member joins, every member revokes everything before anything is assigned', async () => {
    const timeline = new MemberTimeline();
    const groupId = 'eager';
    const members: CohortMember[] = [];
    const join = async (name: string) => {
      const m = timeline.watch(name, client().member({ groupId, topics: ['orders'], assignors: ['range'], ...fast }));
      members.push(m);
      await m.start();
      return m;
    };
    const [a, b] = await Promise.all([join('a'), join('b')]);
    expect(a.protocol).toBe('eager');
    await eventually(() => settled([a, b], 6), 'a and b share the six partitions');
    const mark = timeline.entries.length;
    const c = await join('c');
    await eventually(() => settled([a, b, c], 6), 'a, b and c share the six partitions');

    expect(timeline.doubleOwnership()).toEqual([]);
    const round = timeline.entries.slice(mark);
    const firstAssigned = round.findIndex((e) => e.kind === 'assigned');
    const revokes = round.filter((e) => e.kind === 'revoked');
    // a and b each revoked all they held, and both did so before the first assignment of the new generation.
    expect(revokes.map((e) => e.member).sort()).toEqual(['a', 'b']);
    expect(revokes.flatMap((e) => e.partitions).sort()).toEqual([
      'orders-0',
      'orders-1',
      'orders-2',
      'orders-3',
      'orders-4',
      'orders-5',
    ]);
    expect(round.slice(0, firstAssigned).filter((e) => e.kind === 'revoked')).toHaveLength(2);
    expect(Object.values(holdings({ a, b, c })).map((held) => held.length)).toEqual([2, 2, 2]);
  });
});
