import request from 'supertest';
import { ErrorCode } from '@cohort/protocol';
import { FORWARDED_HEADER } from '../../src/security/cluster/node-request-signer';
import { eventually } from '../support/group-member';
import { request as emit } from '../support/socket-client';
import { ClusterHarness, commitErrors, commitRequest, committedOffsets, type Fetched } from './cluster-harness';

jest.setTimeout(180_000);

/**
 * An operator may ask any node of a cluster about any group (docs/rest.md): the group list is the whole
 * cluster's, and a group's endpoints answer from its coordinator wherever the request lands.
 */
describe('cluster mode (e2e): the REST group API from any node', () => {
  const cluster = new ClusterHarness(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
  const url = (id: number) => cluster.nodes.get(id)!.url;
  /** A group coordinated by each node. */
  const groupOn = new Map<number, string>();

  afterAll(() => cluster.dispose());

  beforeAll(async () => {
    for (const id of [0, 1, 2]) await cluster.startNode(id);
    await cluster.formed(0, 'all partitions led with a full ISR');
    await request(url(0)).post('/v1/topics').send({ name: 'ledger', partitions: 4 }).expect(201);
    await eventually(
      async () => (await request(url(2)).get('/v1/topics/ledger')).status === 200,
      'the topic on every node',
    );
    for (let i = 0; groupOn.size < 3 && i < 200; i++) {
      const { body } = await request(url(0))
        .get('/v1/coordinator')
        .query({ groupId: `audit-${i}` })
        .expect(200);
      if (!groupOn.has(body.nodeId)) groupOn.set(body.nodeId, `audit-${i}`);
    }
    expect([...groupOn.keys()].sort()).toEqual([0, 1, 2]);
    for (const [nodeId, groupId] of groupOn) {
      const socket = await cluster.socketTo(url(nodeId));
      expect(commitErrors(await emit(socket, 'OffsetCommit', commitRequest(groupId, [nodeId, 10, 20, 30])))).toEqual([
        0, 0, 0, 0, 0,
      ]);
    }
  });

  it('lists the groups of every node, from every node', async () => {
    for (const asked of [0, 1, 2]) {
      const { body, headers } = await request(url(asked)).get('/v1/groups').expect(200);
      const listed = (body as { groupId: string; coordinator: number }[]).filter((g) => g.groupId.startsWith('audit-'));
      expect(listed.map((g) => [g.groupId, g.coordinator])).toEqual(
        [...groupOn].map(([nodeId, groupId]) => [groupId, nodeId]).sort(),
      );
      expect(headers['x-cohort-unreachable-nodes']).toBeUndefined();
    }
    // A bad filter is refused as on one node.
    const refused = await request(url(1)).get('/v1/groups').query({ state: 'Sleeping' }).expect(400);
    expect(refused.body.errorCode).toBe(ErrorCode.INVALID_REQUEST);
  });

  it("answers a group's describe and offsets from its coordinator, whichever node is asked", async () => {
    const groupId = groupOn.get(2)!;
    const described = await request(url(0)).get(`/v1/groups/${groupId}`).expect(200);
    expect(described.body).toMatchObject({ groupId, state: 'Empty', coordinator: 2 });
    const offsets = await request(url(1)).get(`/v1/groups/${groupId}/offsets`).expect(200);
    expect(offsets.body.offsets.map((o: { committedOffset: number }) => o.committedOffset)).toEqual([2, 10, 20, 30]);
    await request(url(0)).get(`/v1/groups/${groupId}/rebalances`).expect(200);
    await request(url(0)).get('/v1/groups/no-such-group-anywhere').expect(404);
  });

  it('changes a group through any node: reset offsets, delete offsets, delete the group', async () => {
    const groupId = groupOn.get(1)!;
    await request(url(0))
      .post(`/v1/groups/${groupId}/offsets`)
      .send({ topics: [{ name: 'ledger', partitions: [{ partitionIndex: 0, committedOffset: 77 }] }] })
      .expect(200);
    const coordinator = await cluster.socketTo(url(1));
    expect(committedOffsets(await emit<Fetched>(coordinator, 'OffsetFetch', { groupId, topics: null }))).toEqual([
      77, 10, 20, 30,
    ]);
    // Validation happens where the request is answered; its refusal comes back as it is.
    const bad = await request(url(2)).post(`/v1/groups/${groupId}/offsets`).send({ topics: 'all' }).expect(400);
    expect(bad.body.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    await request(url(2)).delete(`/v1/groups/${groupId}/offsets`).query({ topic: 'ledger', partition: 3 }).expect(200);
    expect(committedOffsets(await emit<Fetched>(coordinator, 'OffsetFetch', { groupId, topics: null }))).toEqual([
      77, 10, 20,
    ]);
    await request(url(0)).delete(`/v1/groups/${groupId}`).expect(204);
    await request(url(2)).get(`/v1/groups/${groupId}`).expect(404);
  });

  it('answers a forwarded request where it lands: no second hop, NOT_COORDINATOR if it is not the coordinator', async () => {
    const groupId = groupOn.get(2)!;
    const response = await request(url(0)).get(`/v1/groups/${groupId}`).set(FORWARDED_HEADER, '1').expect(503);
    expect(response.body.errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });
});
