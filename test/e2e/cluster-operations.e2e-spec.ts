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
    expect((await member.leave()).errorCode).toBe(0);
    await member.vanish();
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

    // Lag and resets through a node that does not coordinate the group, from reports dated by their
    // producer (two minutes and one minute ago) and made through yet another node: the time index is the
    // cluster's, in Redis.
    const reportedAt = Date.now();
    const reporter = [0, 1, 2].find((id) => id !== other && cluster.nodes.has(id))!;
    await request(url(reporter))
      .put('/v1/topics/ledger/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 20, startOffset: 3, timestamp: reportedAt - 120_000 }] })
      .expect(200);
    await request(url(reporter))
      .put('/v1/topics/ledger/end-offsets')
      .send({
        partitions: [
          { partition: 0, endOffset: 40, timestamp: reportedAt - 60_000 },
          { partition: 1, endOffset: 9, timestamp: reportedAt - 60_000 },
        ],
      })
      .expect(200);
    const byDuration = await request(url(other))
      .post(`/v1/groups/${GROUP}/offsets/reset`)
      .send({ topics: [{ name: 'ledger' }], strategy: 'duration', duration: 'PT90S' })
      .expect(200);
    // As of 90 s ago: partition 0 ended at 20; partition 1 had no report yet, so its earliest one, 9.
    expect(byDuration.body.offsets.map((o: { newOffset: number }) => o.newOffset)).toEqual([20, 9]);
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
    // Offsets 3 and 0 were the log end before the first reports: at least two minutes and one minute ago.
    const timeLag = async () =>
      (await request(url(other)).get(`/v1/groups/${GROUP}/lag`).expect(200)).body as {
        maxTimeLagMs: number;
        partitions: { timeLagMs: number }[];
      };
    const lagged = await timeLag();
    expect(lagged.partitions[0].timeLagMs).toBeGreaterThanOrEqual(Date.now() - reportedAt + 120_000 - 5_000);
    expect(lagged.partitions[1].timeLagMs).toBeGreaterThanOrEqual(Date.now() - reportedAt + 60_000 - 5_000);
    expect(lagged.maxTimeLagMs).toBe(lagged.partitions[0].timeLagMs);

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
    // The new coordinator reads the same time index.
    expect((await timeLag()).maxTimeLagMs).toBeGreaterThanOrEqual(Date.now() - reportedAt + 120_000 - 5_000);
  });
});
