import request from 'supertest';
import { eventually, GroupMember, settledTogether } from '../support/group-member';
import { ClusterHarness } from './cluster-harness';

jest.setTimeout(180_000);

/**
 * Operator endpoints in a three-node cluster: the rebalance history is written with the group, so the
 * node that takes the group over after its coordinator stops shows the same history; lag and resets
 * answer from any node (forwarded to the coordinator).
 */
describe('cluster mode (e2e): operator endpoints across a coordinator failover', () => {
  const cluster = new ClusterHarness(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const url = (id: number) => cluster.nodes.get(id)!.url;
  const GROUP = 'history-survives';
  let member: GroupMember | null = null;

  afterAll(async () => {
    await member?.vanish();
    await cluster.dispose();
  });

  it('keeps the rebalance history after the coordinator moves, and forwards lag and resets', async () => {
    for (const id of [0, 1, 2]) await cluster.startNode(id);
    await cluster.formed(0, 'all partitions led with a full ISR');
    await request(url(0)).post('/v1/topics').send({ name: 'ledger', partitions: 2 }).expect(201);
    await eventually(
      async () => (await request(url(2)).get('/v1/topics/ledger')).status === 200,
      'the topic on every node',
      60_000,
    );
    const { body: found } = await request(url(0)).get('/v1/coordinator').query({ groupId: GROUP }).expect(200);
    const coordinatorId: number = found.nodeId;
    const other = [0, 1, 2].find((id) => id !== coordinatorId)!;

    // Two rebalances: the member joins (→ Stable), then leaves (→ Empty).
    member = await GroupMember.connect(url(coordinatorId), GROUP, { topics: ['ledger'] });
    member.start();
    await eventually(() => settledTogether([member!]), 'the member settled', 60_000);
    await member.stop();
    member = null;
    const rebalances = async (at: number) =>
      (await request(url(at)).get(`/v1/groups/${GROUP}/rebalances`)).body as { completedAt: number | null }[];
    await eventually(
      async () => {
        const group = await request(url(other)).get(`/v1/groups/${GROUP}`);
        const history = await rebalances(other);
        return (
          group.body.state === 'Empty' &&
          Array.isArray(history) &&
          history.length >= 2 &&
          history.every((r) => r.completedAt !== null)
        );
      },
      'the group Empty after its rebalances, read through another node',
      60_000,
    );
    const before = await rebalances(coordinatorId);

    // Lag and a reset through a node that does not coordinate the group.
    await request(url(other))
      .put('/v1/topics/ledger/end-offsets')
      .send({
        partitions: [
          { partition: 0, endOffset: 40, startOffset: 3 },
          { partition: 1, endOffset: 9 },
        ],
      })
      .expect(200);
    const reset = await request(url(other))
      .post(`/v1/groups/${GROUP}/offsets/reset`)
      .send({ topics: [{ name: 'ledger' }], strategy: 'earliest', dryRun: false })
      .expect(200);
    expect(reset.body.offsets.map((o: { newOffset: number }) => o.newOffset)).toEqual([3, 0]);
    await eventually(
      async () => (await request(url(other)).get(`/v1/groups/${GROUP}/lag`)).body.totalLag === 37 + 9,
      'lag against the reports, read through another node',
      60_000,
    );

    await cluster.nodes.get(coordinatorId)!.app.close();
    cluster.nodes.delete(coordinatorId);
    await eventually(
      async () => {
        const history = await request(url(other)).get(`/v1/groups/${GROUP}/rebalances`);
        return history.status === 200 && JSON.stringify(history.body) === JSON.stringify(before);
      },
      'the same history from the new coordinator',
      60_000,
    );
    const { body: moved } = await request(url(other)).get('/v1/coordinator').query({ groupId: GROUP }).expect(200);
    expect(moved.nodeId).not.toBe(coordinatorId);
  });
});
