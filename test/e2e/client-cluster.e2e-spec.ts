import request from 'supertest';
import { CohortClient, type CohortError } from '@cohort/client';
import { COHORT_NODE } from '../../src/node/cohort-node';
import type { ClusterNode } from '../../src/node/cluster/cluster-node';
import { eventually } from '../support/group-member';
import { settled } from '../support/member-timeline';
import { ClusterHarness } from './cluster-harness';

jest.setTimeout(180_000);

/**
 * @cohort/client against three cluster-mode nodes: when the group's coordinator node crashes, the
 * members find the new coordinator by themselves and carry on; what was acknowledged before is intact.
 */
describe('@cohort/client in a 3-node cluster (e2e)', () => {
  const cluster = new ClusterHarness(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const clients: CohortClient[] = [];

  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await cluster.dispose();
  });

  it('the coordinator node crashes: members find the new coordinator and go on, acknowledged commits intact', async () => {
    for (const id of [0, 1, 2]) await cluster.startNode(id);
    await cluster.formed(0, 'all partitions led with a full ISR');
    const urls = [...cluster.nodes.values()].map((n) => n.url);
    await request(urls[0]).post('/v1/topics').send({ name: 'ledger', partitions: 4 }).expect(201);
    for (const url of urls)
      await eventually(
        async () => (await request(url).get('/v1/topics/ledger')).status === 200,
        'the topic on every node',
      );

    const groupId = 'sdk-ledger';
    const options = {
      groupId,
      topics: ['ledger'],
      autoCommit: false as const,
      sessionTimeoutMs: 15_000,
      heartbeatIntervalMs: 500,
      rebalanceTimeoutMs: 30_000,
    };
    const errors: CohortError[] = [];
    const crashes: CohortError[] = [];
    const members = [0, 1].map(() => {
      const client = new CohortClient({ urls, clientId: 'cluster-e2e' });
      clients.push(client);
      const member = client.member(options);
      member.on('error', (e) => errors.push(e));
      member.on('crash', (e) => crashes.push(e));
      return member;
    });
    await Promise.all(members.map((m) => m.start()));
    await eventually(() => settled(members, 4), 'the two members share the four partitions', 30_000);

    // Each member commits what it owns; every commit is acknowledged.
    const acknowledged = new Map<number, number>();
    for (const member of members) {
      const offsets = member.assignment[0].partitions.map((partition) => ({
        topic: 'ledger',
        partition,
        offset: 1000 + partition,
      }));
      await member.commit(offsets);
      for (const o of offsets) acknowledged.set(o.partition, o.offset);
    }

    const { body: located } = await request(urls[0]).get(`/v1/coordinator?groupId=${groupId}`).expect(200);
    const coordinator = cluster.nodes.get(located.nodeId)!;
    await (coordinator.app.get(COHORT_NODE) as ClusterNode).crash();
    await coordinator.app.close();
    cluster.nodes.delete(coordinator.nodeId);

    // Acknowledged commits survived the crash: the new coordinator serves exactly them.
    let read: (number | null)[] = [];
    await eventually(
      async () => {
        read = await members[0].committed([{ topic: 'ledger', partitions: [0, 1, 2, 3] }]).then(
          (offsets) => offsets.map((c) => c.offset),
          () => [],
        );
        return read.length === 4;
      },
      'the committed offsets readable at the new coordinator',
      90_000,
    );
    expect(read).toEqual([0, 1, 2, 3].map((p) => acknowledged.get(p)));

    // The members carry on: a commit of each goes through again, at the new coordinator.
    await eventually(
      async () => {
        const results = await Promise.all(
          members.map((m) =>
            m.state === 'stable'
              ? m
                  .commit(
                    m.assignment[0].partitions.map((partition) => ({
                      topic: 'ledger',
                      partition,
                      offset: 2000 + partition,
                    })),
                  )
                  .then(
                    () => true,
                    () => false,
                  )
              : false,
          ),
        );
        return results.every(Boolean);
      },
      'both members commit again after the failover',
      90_000,
    );
    expect(crashes).toEqual([]);
    expect(members.every((m) => m.state === 'stable')).toBe(true);
    const { body: moved } = await request([...cluster.nodes.values()][0].url)
      .get(`/v1/coordinator?groupId=${groupId}`)
      .expect(200);
    expect(moved.nodeId).not.toBe(coordinator.nodeId);
    // What they met on the way was retriable, and reported as such.
    expect(errors.every((e) => e.retriable)).toBe(true);

    const after = await members[1].committed([{ topic: 'ledger', partitions: [0, 1, 2, 3] }]);
    expect(after.map((c) => c.offset)).toEqual([2000, 2001, 2002, 2003]);
  });
});
