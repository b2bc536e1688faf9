import type { Socket } from 'socket.io-client';
import type * as P from '@cohort/protocol';
import { CohortClient, type ConsumerGroupMember, type LostEvent } from '@cohort/client';
import { appPerFile } from '../support/app-per-file';
import { eventually } from '../support/group-member';
import { holdings, MemberTimeline } from '../support/member-timeline';
import { SdkSockets } from '../support/sdk-sockets';
import { connect, request as emit } from '../support/socket-client';

jest.setTimeout(90_000);

/**
 * @cohort/client's consumer-protocol members (KIP-848) against a real node over real sockets: members
 * share a topic without ever owning a partition twice, a newcomer takes partitions only from those who
 * must give some up, a member that goes silent is fenced at the coordinator's session timeout and its
 * partitions move (and, heard again, it reports them lost and joins afresh), and commits carry the
 * member epoch. The node uses the shortest session Kafka allows (6 s) and a 1 s heartbeat.
 */
describe('@cohort/client, groupProtocol consumer (e2e)', () => {
  const app = appPerFile({
    topics: { orders: 6 },
    env: { GROUP_CONSUMER_SESSION_TIMEOUT_MS: '6000', GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: '1000' },
  });
  const clients: CohortClient[] = [];
  let admin: Socket | null = null;
  const client = (sockets?: SdkSockets): CohortClient => {
    const c = new CohortClient({
      urls: [app.url],
      clientId: 'sdk-consumer-e2e',
      ...(sockets ? { socketFactory: sockets.factory } : {}),
    });
    clients.push(c);
    return c;
  };
  const member = (groupId: string, sockets?: SdkSockets): ConsumerGroupMember =>
    client(sockets).member({ groupId, groupProtocol: 'consumer', topics: ['orders'], rebalanceTimeoutMs: 20_000 });

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
    admin?.disconnect();
    admin = null;
  });

  /** The coordinator's view: each member's current assignment, by member id, as `orders-n` strings. */
  async function coordinatorView(groupId: string): Promise<Record<string, string[]>> {
    admin ??= await connect(app.url);
    const answer = await emit(admin, 'ConsumerGroupDescribe', {
      groupIds: [groupId],
    } as P.ConsumerGroupDescribeRequest);
    const group = answer.groups[0];
    return Object.fromEntries(
      (group?.members ?? []).map((m) => [
        m.memberId,
        m.assignment.topicPartitions.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`)).sort(),
      ]),
    );
  }

  /** Every member stable and the six partitions held once between them. */
  const shared = (members: ConsumerGroupMember[], counts: number[]): boolean => {
    if (!members.every((m) => m.state === 'stable')) return false;
    const owned = members.map((m) => m.assignment.flatMap((tp) => tp.partitions));
    const all = owned.flat();
    return new Set(all).size === 6 && all.length === 6 && owned.every((p, i) => p.length === counts[i]);
  };

  /** What the coordinator holds per member is exactly what each SDK member says it owns. */
  async function agreesWithCoordinator(members: Record<string, ConsumerGroupMember>): Promise<boolean> {
    const view = await coordinatorView(Object.values(members)[0].groupId);
    const own = holdings(members);
    return Object.entries(members).every(([name, m]) => JSON.stringify(view[m.memberId]) === JSON.stringify(own[name]));
  }

  it('two members share the topic: no partition is ever owned twice, and each owns what the coordinator says', async () => {
    const timeline = new MemberTimeline();
    // a's revoked listener takes a while (registered before the timeline's, which notes its end): b
    // must not be given a partition before a has let go of it.
    const a = member('cg-share').on('revoked', () => new Promise((resolve) => setTimeout(resolve, 300)));
    timeline.watch('a', a);
    expect(a.state).toBe('idle');
    await a.start();
    expect(a.state).toBe('stable');
    expect(a.generationId).toBeGreaterThan(0);
    expect(a.memberId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a.assignment).toEqual([{ topic: 'orders', partitions: [0, 1, 2, 3, 4, 5] }]);

    const b = timeline.watch('b', member('cg-share'));
    await b.start();
    await eventually(() => shared([a, b], [3, 3]), 'a and b own three partitions each', 30_000);
    await eventually(() => agreesWithCoordinator({ a, b }), "the coordinator's view of a and b", 10_000);
    expect(timeline.doubleOwnership()).toEqual([]);
    expect(timeline.overlaps()).toEqual([]);
    // a gave up exactly what b took, and was told so before b was given any of it.
    const held = holdings({ a, b });
    expect(timeline.revokedBy('a')).toEqual(held.b);
    expect(timeline.handovers('a', 'b').every((h) => h.gapMs >= 0)).toBe(true);
    expect(timeline.entries.filter((e) => e.kind === 'lost')).toEqual([]);
  });

  it('a third member joins: only the partitions it takes are revoked, nobody loses one it keeps', async () => {
    const timeline = new MemberTimeline();
    const a = timeline.watch('a', member('cg-third'));
    const b = timeline.watch('b', member('cg-third'));
    await Promise.all([a.start(), b.start()]);
    await eventually(() => shared([a, b], [3, 3]), 'a and b own three partitions each', 30_000);
    const before = holdings({ a, b });
    const mark = timeline.entries.length;

    const c = timeline.watch('c', member('cg-third'));
    await c.start();
    await eventually(() => shared([a, b, c], [2, 2, 2]), 'a, b and c own two partitions each', 30_000);
    await eventually(() => agreesWithCoordinator({ a, b, c }), "the coordinator's view of a, b and c", 10_000);
    const after = holdings({ a, b, c });

    const moved = [
      ...before.a.filter((p) => !after.a.includes(p)),
      ...before.b.filter((p) => !after.b.includes(p)),
    ].sort();
    expect(moved).toEqual(after.c);
    expect([...timeline.revokedBy('a', mark), ...timeline.revokedBy('b', mark)].sort()).toEqual(moved);
    // What a and b kept was never given up on the way.
    for (const name of ['a', 'b'] as const)
      expect(timeline.revokedBy(name, mark).filter((p) => after[name].includes(p))).toEqual([]);
    expect(timeline.doubleOwnership()).toEqual([]);
    expect(timeline.entries.filter((e) => e.kind === 'lost')).toEqual([]);
  });

  it('a member gone silent is fenced at the session timeout and its partitions move; heard again, it reports them lost and rejoins', async () => {
    const silent = new SdkSockets();
    const a = member('cg-fence', silent);
    const b = member('cg-fence');
    const lost: LostEvent[] = [];
    a.on('lost', (e) => {
      lost.push(e);
    });
    await a.start();
    await b.start();
    await eventually(() => shared([a, b], [3, 3]), 'a and b own three partitions each', 30_000);
    const aHeld = holdings({ a }).a;
    const aEpoch = a.generationId;

    // a's process hangs: its socket drops and nothing it sends reaches the node any more.
    silent.freeze();
    await silent.drop(200);
    await eventually(
      async () => {
        const view = await coordinatorView('cg-fence');
        return Object.keys(view).length === 1 && view[b.memberId]?.length === 6;
      },
      "b holding all six partitions after a's session timed out",
      30_000,
    );
    await eventually(() => b.assignment[0]?.partitions.length === 6, 'b owning all six', 10_000);

    // a is heard again: FENCED_MEMBER_EPOCH (or UNKNOWN_MEMBER_ID) — it reports its partitions lost,
    // commits nothing for them, and joins again at epoch 0 with the same member id.
    const memberId = a.memberId;
    silent.thaw();
    await eventually(() => lost.length > 0, "a's lost listener", 30_000);
    expect(lost[0].partitions.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`)).sort()).toEqual(aHeld);
    await eventually(() => shared([a, b], [3, 3]), 'a back with three partitions', 30_000);
    expect(a.memberId).toBe(memberId);
    expect(a.generationId).toBeGreaterThan(aEpoch);
  });

  it('commits carry the member epoch: marked offsets reach the coordinator, also while another member joins', async () => {
    const a = member('cg-commit');
    await a.start();
    for (const p of [0, 1, 2, 3, 4, 5])
      expect(a.markProcessed({ topic: 'orders', partition: p, offset: 10 + p })).toBe(true);
    await a.commit();
    expect(await a.committed([{ topic: 'orders', partitions: [0, 5] }])).toEqual([
      expect.objectContaining({ topic: 'orders', partition: 0, offset: 10 }),
      expect.objectContaining({ topic: 'orders', partition: 5, offset: 15 }),
    ]);

    // Epochs move while b joins; a keeps committing what it owns at every step.
    const b = member('cg-commit');
    const joining = b.start();
    let round = 0;
    while (!shared([a, b], [3, 3])) {
      round += 1;
      for (const { partitions } of a.assignment)
        for (const p of partitions) a.markProcessed({ topic: 'orders', partition: p, offset: 100 * round + p });
      await a.commit();
      await new Promise((resolve) => setTimeout(resolve, 50));
      if (round > 400) throw new Error('a and b never shared the topic');
    }
    await joining;
    const mine = a.assignment.flatMap((tp) => tp.partitions);
    for (const p of mine) a.markProcessed({ topic: 'orders', partition: p, offset: 5000 + p });
    await a.commit();
    const stored = await a.committed([{ topic: 'orders', partitions: mine }]);
    expect(stored.map((o) => o.offset)).toEqual(mine.map((p) => 5000 + p));
    // A commit for a partition a no longer owns is refused at the SDK: it may be b's now.
    const theirs = b.assignment[0].partitions[0];
    expect(a.markProcessed({ topic: 'orders', partition: theirs, offset: 1 })).toBe(false);
  });

  it('topicPattern: the member gets the matching topics, and a matching topic created later without asking; serverAssignor names the assignor', async () => {
    await app.http().post('/v1/topics').send({ name: 'events-a', partitions: 2 }).expect(201);
    const m = client().member({
      groupId: 'cg-pattern',
      groupProtocol: 'consumer',
      topicPattern: 'events-.*',
      serverAssignor: 'range',
    });
    const added: string[] = [];
    m.on('assigned', (e) => {
      added.push(...e.partitions.flatMap((tp) => tp.partitions.map((p) => `${tp.topic}-${p}`)));
    });
    await m.start();
    await eventually(() => added.length === 2, 'the partitions of events-a', 10_000);
    expect(m.assignment).toEqual([{ topic: 'events-a', partitions: [0, 1] }]);

    await app.http().post('/v1/topics').send({ name: 'other', partitions: 1 }).expect(201);
    await app.http().post('/v1/topics').send({ name: 'events-b', partitions: 3 }).expect(201);
    await eventually(() => added.length === 5, 'the partitions of events-b, pushed', 15_000);
    expect(m.assignment).toEqual([
      { topic: 'events-a', partitions: [0, 1] },
      { topic: 'events-b', partitions: [0, 1, 2] },
    ]);
    admin ??= await connect(app.url);
    const answer = await emit(admin, 'ConsumerGroupDescribe', { groupIds: ['cg-pattern'] });
    expect(answer.groups[0]).toMatchObject({
      assignorName: 'range',
      members: [expect.objectContaining({ memberId: m.memberId, subscribedTopicRegex: 'events-.*' })],
    });
  });
});
