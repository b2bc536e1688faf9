import request from 'supertest';
import { allow } from '../support/acl-fixtures';
import { ConsumerProtocolMember, reconcileAll } from '../support/consumer-protocol-member';
import { sample } from '../support/prometheus-sample';
import { tokenApp } from '../support/token-app';

jest.setTimeout(60_000);

/**
 * What operators see over REST of a Kafka 4 consumer group (KIP-848) whose members heartbeat over real
 * sockets, with tokens and ACLs on: the group's type and epochs, each member's assignment against its
 * target and what it must still give up, the epoch history with reasons and times to converge, the
 * offsets and an offset reset once the group is Empty; DESCRIBE GROUP decides who sees any of it.
 */
const node = tokenApp('cohort-cg-rest-', {
  admin: 'admin-token',
  app: 'app-token',
  ops: 'ops-token',
  nobody: 'nobody-token',
});
const { as } = node;
const get = (path: string, principal: Parameters<typeof as>[0] = 'ops') =>
  request(node.url).get(path).set(as(principal));

async function memberOf(memberId: string): Promise<ConsumerProtocolMember> {
  const socket = await node.socketOf('app');
  return new ConsumerProtocolMember(socket, 'cg-ops', memberId);
}

beforeAll(async () => {
  await node.start();
  await node.createTopics([['orders', 4]]);
  await node.grant([
    allow('User:app', 'READ', 'GROUP', 'cg-ops'),
    allow('User:app', 'READ', 'TOPIC', 'orders'),
    allow('User:ops', 'DESCRIBE', 'GROUP', 'cg-ops'),
    allow('User:ops', 'READ', 'GROUP', 'cg-ops'),
    allow('User:ops', 'READ', 'TOPIC', 'orders'),
    allow('User:ops', 'DESCRIBE', 'TOPIC', 'orders'),
  ]);
});

afterAll(() => node.stop());

describe('consumer groups over REST', () => {
  it('shows the epochs, each member against its target, what it must give up, and the epoch history', async () => {
    const a = await memberOf('member-a');
    await a.join(['orders']);
    expect(a.partitions()).toEqual(['orders-0', 'orders-1', 'orders-2', 'orders-3']);
    const b = await memberOf('member-b');
    await b.join(['orders']);
    // member-a has not heartbeated since member-b arrived: it holds all four, its target is two.
    await a.heartbeat();

    const mid = (await get('/v1/groups/cg-ops').expect(200)).body;
    expect(mid).toMatchObject({
      groupId: 'cg-ops',
      type: 'consumer',
      state: 'Reconciling',
      protocolType: 'consumer',
      groupEpoch: 2,
      assignmentEpoch: 2,
      assignor: 'uniform',
      generationId: 2,
      coordinator: 0,
    });
    const [midA, midB] = mid.members;
    expect(midA).toMatchObject({
      memberId: 'member-a',
      memberEpoch: 1,
      memberState: 'UNREVOKED_PARTITIONS',
      memberType: 1,
      subscribedTopicNames: ['orders'],
      subscription: { topics: ['orders'] },
    });
    const held = (m: { partitions: { topic: string; partitions: number[] }[] }) =>
      m.partitions.flatMap((tp) => tp.partitions);
    expect(held(midA.assignment)).toHaveLength(2);
    expect(midA.partitionsPendingRevocation).toHaveLength(1);
    expect(midA.partitionsPendingRevocation[0].partitions).toHaveLength(2);
    expect([...held(midA.assignment), ...midA.partitionsPendingRevocation[0].partitions].sort()).toEqual([0, 1, 2, 3]);
    expect(midB).toMatchObject({ memberId: 'member-b', memberEpoch: 2, memberState: 'UNRELEASED_PARTITIONS' });
    expect(held(midB.assignment)).toEqual([]);
    expect(held(midB.targetAssignment).sort()).toEqual(midA.partitionsPendingRevocation[0].partitions.sort());
    const midMetrics = (await get('/metrics', 'admin').expect(200)).text;
    expect(sample(midMetrics, 'cohort_consumer_group_members_pending_revocation', { group: 'cg-ops' })).toBe(1);
    expect(sample(midMetrics, 'cohort_consumer_group_epoch', { group: 'cg-ops' })).toBe(2);
    expect(sample(midMetrics, 'cohort_consumer_groups', { state: 'Reconciling' })).toBe(1);

    await reconcileAll([a, b]);
    const settled = (await get('/v1/groups/cg-ops').expect(200)).body;
    expect(settled).toMatchObject({ state: 'Stable', groupEpoch: 2, assignmentEpoch: 2 });
    for (const m of settled.members) {
      expect(m).toMatchObject({ memberEpoch: 2, memberState: 'STABLE', partitionsPendingRevocation: [] });
      expect(m.assignment).toEqual(m.targetAssignment);
    }

    const history = (await get('/v1/groups/cg-ops/rebalances').expect(200)).body;
    expect(history).toEqual([
      expect.objectContaining({ groupEpoch: 2, reason: 'member-joined', memberId: 'member-b', members: 2 }),
      expect.objectContaining({ groupEpoch: 1, reason: 'member-joined', memberId: 'member-a', outcome: 'converged' }),
    ]);
    expect(history[0]).toMatchObject({ outcome: 'converged', generationId: 2 });
    expect(history[0].completedAt).toBeGreaterThanOrEqual(history[0].startedAt);
    expect(history[0].durationMs).toBe(history[0].completedAt - history[0].startedAt);

    const metrics = (await get('/metrics', 'admin').expect(200)).text;
    expect(sample(metrics, 'cohort_consumer_groups', { state: 'Stable' })).toBe(1);
    expect(sample(metrics, 'cohort_consumer_groups', { state: 'Reconciling' })).toBe(0);
    expect(sample(metrics, 'cohort_groups', { state: 'Stable' })).toBe(0); // classic groups only
    expect(sample(metrics, 'cohort_consumer_group_members_pending_revocation', { group: 'cg-ops' })).toBe(0);
    expect(sample(metrics, 'cohort_consumer_group_assignment_epoch', { group: 'cg-ops' })).toBe(2);
    expect(sample(metrics, 'cohort_consumer_group_epoch_bumps_total', { reason: 'member-joined' })).toBe(2);
    expect(sample(metrics, 'cohort_consumer_group_epoch_bumps_total', { reason: 'member-fenced' })).toBe(0);
    expect(sample(metrics, 'cohort_consumer_group_converge_duration_seconds_count', { reason: 'member-joined' })).toBe(
      2,
    );

    const listed = (await get('/v1/groups').expect(200)).body;
    expect(listed).toEqual([
      { groupId: 'cg-ops', type: 'consumer', protocolType: 'consumer', state: 'Stable', members: 2, coordinator: 0 },
    ]);
    expect((await get('/v1/groups?state=Reconciling,Assigning').expect(200)).body).toEqual([]);
    expect((await get('/v1/groups?state=Stable&topic=orders').expect(200)).body).toHaveLength(1);
    // A consumer group with no committed offset yet has none, and no lag: not a missing group.
    expect((await get('/v1/groups/cg-ops/offsets').expect(200)).body).toMatchObject({ offsets: [] });
    expect((await get('/v1/groups/cg-ops/lag').expect(200)).body).toMatchObject({ partitions: [] });

    // Offsets can be reset only once the group is Empty, as for a classic group.
    const reset = { allTopics: false, topics: [{ name: 'orders' }], strategy: 'offset', value: 7 };
    const preview = await request(node.url)
      .post('/v1/groups/cg-ops/offsets/reset')
      .set(as('ops'))
      .send(reset)
      .expect(200);
    expect(preview.body.offsets).toHaveLength(4);
    const refused = await request(node.url)
      .post('/v1/groups/cg-ops/offsets/reset')
      .set(as('ops'))
      .send({ ...reset, dryRun: false })
      .expect(409);
    expect(refused.body).toMatchObject({ errorCode: 68, error: 'NON_EMPTY_GROUP' });
    await a.leave();
    await b.leave();
    const emptied = (await get('/v1/groups/cg-ops').expect(200)).body;
    expect(emptied).toMatchObject({ type: 'consumer', state: 'Empty', groupEpoch: 4, members: [] });
    const done = await request(node.url)
      .post('/v1/groups/cg-ops/offsets/reset')
      .set(as('ops'))
      .send({ ...reset, dryRun: false })
      .expect(200);
    expect(done.body).toMatchObject({ dryRun: false });
    const offsets = (await get('/v1/groups/cg-ops/offsets').expect(200)).body.offsets;
    expect(
      offsets.map((o: { partition: number; committedOffset: number }) => [o.partition, o.committedOffset]),
    ).toEqual([
      [0, 7],
      [1, 7],
      [2, 7],
      [3, 7],
    ]);
    const reasons = (await get('/v1/groups/cg-ops/rebalances').expect(200)).body.map(
      (r: { reason: string }) => r.reason,
    );
    expect(reasons.slice(0, 2)).toEqual(['member-left', 'member-left']);
    // Its offsets' holder is not listed as a group of its own.
    expect((await get('/v1/groups').expect(200)).body.map((g: { type: string }) => g.type)).toEqual(['consumer']);
  });

  it('needs DESCRIBE GROUP for the description and the history, and lists only the groups the caller may describe', async () => {
    for (const path of ['/v1/groups/cg-ops', '/v1/groups/cg-ops/rebalances']) {
      const refused = await get(path, 'nobody').expect(403);
      expect(refused.body).toMatchObject({ errorCode: 30, error: 'GROUP_AUTHORIZATION_FAILED' });
    }
    expect((await get('/v1/groups', 'nobody').expect(200)).body).toEqual([]);
    expect((await get('/v1/groups', 'ops').expect(200)).body.map((g: { groupId: string }) => g.groupId)).toEqual([
      'cg-ops',
    ]);
    await get('/v1/groups/cg-ops', 'admin').expect(200);
  });
});
