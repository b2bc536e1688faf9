import request from 'supertest';
import { CohortClient, type CohortError, type ConsumerGroupMember, type LostEvent } from '@cohort/client';
import { COHORT_NODE } from '../../src/node/cohort-node';
import type { ClusterNode } from '../../src/node/cluster/cluster-node';
import { eventually } from '../support/group-member';
import { ClusterHarness } from './cluster-harness';

jest.setTimeout(180_000);

/**
 * @cohort/client's consumer-protocol members (KIP-848) against three cluster-mode nodes: when the
 * group's coordinator node crashes, the members find the new coordinator (FindCoordinator after the lost
 * connection or NOT_COORDINATOR), carry on in their epochs with a full heartbeat and keep their
 * partitions — nothing is lost or moved — and what was committed before is intact.
 */
describe('@cohort/client consumer protocol in a 3-node cluster (e2e)', () => {
  const cluster = new ClusterHarness(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const clients: CohortClient[] = [];

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await cluster.dispose();
  });

  const owned = (m: ConsumerGroupMember): number[] => m.assignment.flatMap((tp) => tp.partitions);

  it('the coordinator node crashes: members find the new coordinator and keep their partitions and commits', async () => {
    // A 500 ms heartbeat, so that the quiet spell below holds several heartbeats at the new coordinator.
    const heartbeat = { GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS: '500', GROUP_CONSUMER_MIN_HEARTBEAT_INTERVAL_MS: '500' };
    for (const id of [0, 1, 2]) await cluster.startNode(id, heartbeat);
    await cluster.formed(0, 'all partitions led with a full ISR');
    const urls = [...cluster.nodes.values()].map((n) => n.url);
    await request(urls[0]).post('/v1/topics').send({ name: 'ledger', partitions: 4 }).expect(201);
    for (const url of urls)
      await eventually(
        async () => (await request(url).get('/v1/topics/ledger')).status === 200,
        'the topic on every node',
      );

    const groupId = 'sdk-kip848-ledger';
    const errors: CohortError[] = [];
    const crashes: CohortError[] = [];
    const lost: LostEvent[] = [];
    const members = [0, 1].map(() => {
      const client = new CohortClient({ urls, clientId: 'cluster-kip848-e2e' });
      clients.push(client);
      const member = client.member({ groupId, groupProtocol: 'consumer', topics: ['ledger'], autoCommit: false });
      member.on('error', (e) => errors.push(e));
      member.on('crash', (e) => crashes.push(e));
      member.on('lost', (e) => {
        lost.push(e);
      });
      return member;
    });
    await Promise.all(members.map((m) => m.start()));
    await eventually(
      () => members.every((m) => m.state === 'stable' && owned(m).length === 2),
      'the two members share the four partitions',
      30_000,
    );
    const before = members.map(owned);
    expect([...before[0], ...before[1]].sort()).toEqual([0, 1, 2, 3]);
    for (const member of members)
      await member.commit(owned(member).map((partition) => ({ topic: 'ledger', partition, offset: 1000 + partition })));

    const { body: located } = await request(urls[0]).get(`/v1/coordinator?groupId=${groupId}`).expect(200);
    const coordinator = cluster.nodes.get(located.nodeId)!;
    await (coordinator.app.get(COHORT_NODE) as ClusterNode).crash();
    await coordinator.app.close();
    cluster.nodes.delete(coordinator.nodeId);

    // The members carry on at the new coordinator: a commit of each, with its member epoch, goes through.
    await eventually(
      async () => {
        const results = await Promise.all(
          members.map((m) =>
            m.commit(owned(m).map((partition) => ({ topic: 'ledger', partition, offset: 2000 + partition }))).then(
              () => true,
              () => false,
            ),
          ),
        );
        return results.every(Boolean);
      },
      'both members commit again after the failover',
      90_000,
    );
    const { body: moved } = await request([...cluster.nodes.values()][0].url)
      .get(`/v1/coordinator?groupId=${groupId}`)
      .expect(200);
    expect(moved.nodeId).not.toBe(coordinator.nodeId);
    // Several heartbeats (five of each member) reach the new coordinator, which knows both members in
    // their epochs: nobody is fenced, nothing moves.
    const epochs = members.map((m) => m.generationId);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(members.map((m) => m.generationId)).toEqual(epochs);
    expect(members.map(owned)).toEqual(before);
    expect(lost).toEqual([]);
    expect(crashes).toEqual([]);
    expect(errors.every((e) => e.retriable)).toBe(true);
    const after = await members[1].committed([{ topic: 'ledger', partitions: [0, 1, 2, 3] }]);
    expect(after.map((c) => c.offset)).toEqual([2000, 2001, 2002, 2003]);
  });
});
