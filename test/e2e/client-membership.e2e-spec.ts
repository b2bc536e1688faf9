import { CohortClient, CohortError, type CohortMember } from '@cohort/client';
import { eventually } from '../support/group-member';
import { holdings, settled } from '../support/member-timeline';
import { appPerFile } from '../support/app-per-file';
import { SdkSockets } from '../support/sdk-sockets';

jest.setTimeout(60_000);

/**
 * @cohort/client membership against a real node with the default MEMBER_DISCONNECT_GRACE_MS: static
 * members, session expiry, a network blip, a throwing listener.
 */
describe('@cohort/client membership (e2e)', () => {
  const app = appPerFile({ topics: { orders: 4 } });
  const clients: CohortClient[] = [];
  const client = (sockets?: SdkSockets): CohortClient => {
    const c = new CohortClient({
      urls: [app.url],
      clientId: 'e2e',
      ...(sockets ? { socketFactory: sockets.factory } : {}),
    });
    clients.push(c);
    return c;
  };
  const fast = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 300, rebalanceTimeoutMs: 10_000 };
  const rebalances = async (groupId: string): Promise<number> =>
    ((await app.http().get(`/v1/groups/${groupId}/rebalances`).expect(200)).body as unknown[]).length;

  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.close()));
  });

  it('static member: a restarted instance takes its place back without a rebalance, and the old instance is fenced', async () => {
    const groupId = 'static';
    const first = client().member({ groupId, topics: ['orders'], groupInstanceId: 'inst-1', ...fast });
    const other = client().member({ groupId, topics: ['orders'], ...fast });
    await Promise.all([first.start(), other.start()]);
    await eventually(() => settled([first, other], 4), 'two members share four partitions');
    const generation = first.generationId;
    const held = holdings({ first }).first;
    const count = await rebalances(groupId);
    const crashes: CohortError[] = [];
    first.on('crash', (e) => crashes.push(e));

    // The new instance comes up while the old one still runs (a rolling restart, a duplicate pod).
    const second = client().member({ groupId, topics: ['orders'], groupInstanceId: 'inst-1', ...fast });
    await second.start();
    expect(second.generationId).toBe(generation);
    expect(holdings({ second }).second).toEqual(held);
    expect(second.memberId).not.toBe(first.memberId);
    await eventually(() => crashes.length > 0, 'the old instance is fenced');
    expect(crashes[0]).toMatchObject({ code: 82, name: 'FENCED_INSTANCE_ID', retriable: false });
    expect(first.state).toBe('stopped');
    expect(await rebalances(groupId)).toBe(count);
    expect(other.generationId).toBe(generation);

    // A static member's stop() sends no LeaveGroup: the group keeps its place for the session timeout.
    await second.stop();
    const { body } = await app.http().get(`/v1/groups/${groupId}`).expect(200);
    expect(body.members.map((m: { groupInstanceId: string | null }) => m.groupInstanceId)).toContain('inst-1');
    expect(body.generationId).toBe(generation);
  });

  it('a session that expires while the member is unreachable: lost (nothing committed), then a fresh join', async () => {
    const groupId = 'expiry';
    const sockets = new SdkSockets();
    // The hung member's JoinGroup, swallowed, holds its fence until that call gives up (the rebalance
    // timeout and 5 s): a shorter rebalance timeout lets it learn of the loss sooner.
    const expiring = { ...fast, sessionTimeoutMs: 2500, rebalanceTimeoutMs: 4000, autoCommit: { intervalMs: 100 } };
    const survivor = client().member({ groupId, topics: ['orders'], ...expiring });
    const hung = client(sockets).member({ groupId, topics: ['orders'], ...expiring });
    const lost: { partitions: string[]; reason: string }[] = [];
    hung.on('lost', (e) =>
      lost.push({
        partitions: e.partitions.flatMap((p) => p.partitions.map((n) => `${p.topic}-${n}`)),
        reason: e.reason,
      }),
    );
    await Promise.all([survivor.start(), hung.start()]);
    await eventually(() => settled([survivor, hung], 4), 'two members share four partitions');
    const heldBefore = holdings({ hung }).hung;
    const oldMemberId = hung.memberId;

    sockets.freeze();
    for (const p of hung.assignment[0].partitions)
      expect(hung.markProcessed({ topic: 'orders', partition: p, offset: 500 })).toBe(true);
    await eventually(
      () => survivor.assignment[0]?.partitions.length === 4 && survivor.state === 'stable',
      'the survivor takes all four partitions',
      20_000,
    );
    sockets.thaw();

    await eventually(() => lost.length > 0, 'the hung member learns it lost its partitions', 20_000);
    expect(lost[0].partitions).toEqual(heldBefore);
    await eventually(() => settled([survivor, hung], 4), 'the hung member joined again', 20_000);
    expect(hung.memberId).not.toBe(oldMemberId);
    const committed = await survivor.committed([{ topic: 'orders', partitions: [0, 1, 2, 3] }]);
    expect(committed.filter((c) => c.offset === 500)).toEqual([]);
  });

  it('a socket dropped for a second keeps its membership and generation: no rebalance', async () => {
    const groupId = 'blip';
    const sockets = new SdkSockets();
    const steady = client().member({ groupId, topics: ['orders'], ...fast });
    const flaky = client(sockets).member({ groupId, topics: ['orders'], ...fast });
    const flakyRebalancing: unknown[] = [];
    flaky.on('rebalancing', (e) => flakyRebalancing.push(e));
    await Promise.all([steady.start(), flaky.start()]);
    await eventually(() => settled([steady, flaky], 4), 'two members share four partitions');
    const generation = flaky.generationId;
    const memberId = flaky.memberId;
    const count = await rebalances(groupId);

    await sockets.drop(1000);
    await eventually(() => sockets.sockets.every((s) => s.connected), 'the socket is back');
    // Past the server's 3 s grace from the drop: the member was rebound to its new connection, not removed.
    await new Promise((resolve) => setTimeout(resolve, 3500));
    expect(await rebalances(groupId)).toBe(count);
    expect({ generation: flaky.generationId, memberId: flaky.memberId, state: flaky.state }).toEqual({
      generation,
      memberId,
      state: 'stable',
    });
    expect(flakyRebalancing).toEqual([]);
    const { body } = await app.http().get(`/v1/groups/${groupId}`).expect(200);
    expect(body).toMatchObject({ state: 'Stable', generationId: generation });
    expect(body.members).toHaveLength(2);
  });

  it('a listener that throws is reported as an error event, and the member keeps its place', async () => {
    const groupId = 'throwing';
    const member = client().member({ groupId, topics: ['orders'], ...fast });
    const errors: CohortError[] = [];
    member.on('error', (e) => errors.push(e));
    member.on('assigned', () => {
      throw new Error('the application failed');
    });
    await member.start();
    expect(errors).toEqual([
      expect.objectContaining({ name: 'LISTENER_FAILED', message: expect.stringContaining('the application failed') }),
    ]);
    expect(member.state).toBe('stable');
    expect(member.assignment).toEqual([{ topic: 'orders', partitions: [0, 1, 2, 3] }]);
    const generation = member.generationId;
    // Heartbeats went on: a second member finds the first still there, and they share.
    const second: CohortMember = client().member({ groupId, topics: ['orders'], ...fast });
    await second.start();
    await eventually(() => settled([member, second], 4), 'both share the partitions');
    expect(member.generationId).toBeGreaterThan(generation);
  });
});
