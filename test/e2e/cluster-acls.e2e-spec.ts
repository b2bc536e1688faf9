import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { TEST_REDIS_URL } from '@cohort/replication/testing';
import { AuthorizationService } from '../../src/security/authorization/authorization.service';
import { allow } from '../support/acl-fixtures';
import { writeTokensFile } from '../support/auth-fixtures';
import { eventually } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { tempDataDir } from '../support/test-app';
import { COHORT_NODE, type CohortNode } from '../../src/node/cohort-node';
import { ClusterHarness } from './cluster-harness';

jest.setTimeout(120_000);

// ACLs in cluster mode live in the metadata store's Redis: a change made through one node is enforced
// by the other two within a second (a change hint, and a version key polled every 500 ms). The test
// waits for the change to be visible (with a bound generous enough for a loaded machine) instead of
// asserting wall time; that the hint alone delivers a change, and the poll alone, is shown
// deterministically in redis-acl-store.spec.ts.

const secrets = tempDataDir('cohort-cluster-acls-');
const ADMIN = { authorization: 'Bearer admin-token' };
const APP = { authorization: 'Bearer app-token' };
const CALLER = { principal: 'User:app', host: '127.0.0.1' };
let harness: ClusterHarness;

beforeAll(async () => {
  writeFileSync(join(secrets.dir, 'cluster.secret'), randomBytes(48).toString('base64'));
  const tokensFile = writeTokensFile(secrets.dir, { 'User:admin': 'admin-token', 'User:app': 'app-token' });
  harness = new ClusterHarness(
    TEST_REDIS_URL,
    {
      AUTH_TOKENS_FILE: tokensFile,
      CLUSTER_SECRET_FILE: join(secrets.dir, 'cluster.secret'),
      SUPER_USERS: 'User:admin',
      MAX_GROUPS_PER_PRINCIPAL: '2',
    },
    ADMIN,
  );
  for (const id of [0, 1, 2]) await harness.startNode(id);
  await harness.formed(0, 'a formed cluster with authentication');
});

afterAll(async () => {
  await harness?.dispose();
  secrets.remove();
});

/** Until every node in `ids` decides `expected` for the caller's DESCRIBE CLUSTER, checked in process every 20 ms. */
async function enforced(ids: number[], expected: boolean): Promise<void> {
  const services = ids.map((id) => harness.nodes.get(id)!.app.get(AuthorizationService));
  await eventually(
    () => services.every((s) => s.allows(CALLER, 'DESCRIBE', 'CLUSTER', 'kafka-cluster') === expected),
    `nodes ${ids.join(',')} enforcing ${expected}`,
    10_000,
  );
}

it('enforces an ACL added on one node on the other nodes within a second, and its removal too', async () => {
  const [n0, n1, n2] = [0, 1, 2].map((id) => harness.nodes.get(id)!);
  for (const node of [n1, n2]) await request(node.url).get('/v1/cluster').set(APP).expect(403);
  const socket = await connect(n2.url, { token: 'app-token' });
  try {
    expect(await emit(socket, 'FindCoordinator', { key: 'late-1' })).toMatchObject({ errorCode: 30 });

    await request(n0.url)
      .post('/v1/acls')
      .set(ADMIN)
      .send({
        acls: [
          allow('User:app', 'DESCRIBE', 'CLUSTER', 'kafka-cluster'),
          allow('User:app', 'READ', 'GROUP', 'late-', 'PREFIXED'),
        ],
      })
      .expect(201);
    await enforced([1, 2], true);
    for (const node of [n1, n2]) await request(node.url).get('/v1/cluster').set(APP).expect(200);
    expect(await emit(socket, 'FindCoordinator', { key: 'late-1' })).toMatchObject({ errorCode: 0 });
    expect((await request(n1.url).get('/v1/acls').set(ADMIN).expect(200)).body).toHaveLength(2);

    await request(n2.url)
      .delete('/v1/acls')
      .set(ADMIN)
      .send({ filters: [{ principal: 'User:app' }] })
      .expect(200);
    await enforced([0, 1], false);
    for (const node of [n0, n1]) await request(node.url).get('/v1/cluster').set(APP).expect(403);
  } finally {
    socket.disconnect();
  }
});

/** A group id with `prefix` that node `coordinator` coordinates. */
function groupCoordinatedBy(prefix: string, coordinator: number): string {
  const node = harness.nodes.get(0)!.app.get<CohortNode>(COHORT_NODE);
  for (let i = 0; ; i++) {
    if (node.cluster.leaderOf(node.coordinator.partitionFor(`${prefix}${i}`))?.nodeId === coordinator)
      return `${prefix}${i}`;
  }
}

it('counts the groups a principal creates across the cluster (MAX_GROUPS_PER_PRINCIPAL), whichever node coordinates them', async () => {
  await request(harness.nodes.get(0)!.url)
    .post('/v1/acls')
    .set(ADMIN)
    .send({ acls: [allow('User:app', 'READ', 'GROUP', 'quota-', 'PREFIXED')] })
    .expect(201);
  const services = [0, 1, 2].map((id) => harness.nodes.get(id)!.app.get(AuthorizationService));
  await eventually(
    () => services.every((s) => s.allows(CALLER, 'READ', 'GROUP', 'quota-x')),
    'every node enforcing READ on quota-*',
    10_000,
  );
  const join = async (coordinator: number) => {
    const socket = await connect(harness.nodes.get(coordinator)!.url, { token: 'app-token' });
    try {
      const groupId = groupCoordinatedBy('quota-', coordinator);
      return await emit<{ errorCode: number; errorMessage?: string }>(socket, 'JoinGroup', {
        groupId,
        sessionTimeoutMs: 10_000,
        memberId: '',
        protocolType: 'consumer',
        protocols: [{ name: 'range', metadata: { topics: ['t'] } }],
      });
    } finally {
      socket.disconnect();
    }
  };
  expect((await join(1)).errorCode).toBe(79); // MEMBER_ID_REQUIRED: created on node 1
  expect((await join(2)).errorCode).toBe(79); // and on node 2
  const refused = await join(0);
  expect(refused).toMatchObject({ errorCode: 89, errorMessage: expect.stringContaining('MAX_GROUPS_PER_PRINCIPAL=2') });
});
