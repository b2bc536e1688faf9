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
import { ClusterHarness } from './cluster-harness';

jest.setTimeout(120_000);

// ACLs in cluster mode live in the metadata store's Redis: a change made through one node is enforced
// by the other two within a second (a change hint, and a version key polled every 500 ms).

const secrets = tempDataDir('cohort-cluster-acls-');
const ADMIN = { authorization: 'Bearer admin-token' };
const APP = { authorization: 'Bearer app-token' };
const CALLER = { principal: 'User:app', host: '127.0.0.1' };
let harness: ClusterHarness;

beforeAll(async () => {
  writeFileSync(join(secrets.dir, 'cluster.secret'), randomBytes(48).toString('base64'));
  const tokensFile = writeTokensFile(secrets.dir, { 'User:admin': 'admin-token', 'User:app': 'app-token' });
  harness = new ClusterHarness(TEST_REDIS_URL, { AUTH_TOKENS_FILE: tokensFile, CLUSTER_SECRET_FILE: join(secrets.dir, 'cluster.secret'), SUPER_USERS: 'User:admin' }, ADMIN);
  for (const id of [0, 1, 2]) await harness.startNode(id);
  await harness.formed(0, 'a formed cluster with authentication');
});

afterAll(async () => {
  await harness?.dispose();
  secrets.remove();
});

/** Milliseconds until every node in `ids` decides `expected` for the caller's DESCRIBE CLUSTER, checked in process. */
async function enforcedWithin(ids: number[], expected: boolean): Promise<number> {
  const started = performance.now();
  const services = ids.map((id) => harness.nodes.get(id)!.app.get(AuthorizationService));
  await eventually(() => services.every((s) => s.allows(CALLER, 'DESCRIBE', 'CLUSTER', 'kafka-cluster') === expected), `nodes ${ids.join(',')} enforcing ${expected}`, 10_000);
  return performance.now() - started;
}

it('enforces an ACL added on one node on the other nodes within a second, and its removal too', async () => {
  const [n0, n1, n2] = [0, 1, 2].map((id) => harness.nodes.get(id)!);
  for (const node of [n1, n2]) await request(node.url).get('/v1/cluster').set(APP).expect(403);
  const socket = await connect(n2.url, { token: 'app-token' });
  try {
    expect(await emit(socket, 'FindCoordinator', { key: 'late-1' })).toMatchObject({ errorCode: 30 });

    await request(n0.url).post('/v1/acls').set(ADMIN).send({ acls: [allow('User:app', 'DESCRIBE', 'CLUSTER', 'kafka-cluster'), allow('User:app', 'READ', 'GROUP', 'late-', 'PREFIXED')] }).expect(201);
    expect(await enforcedWithin([1, 2], true)).toBeLessThan(1_000);
    for (const node of [n1, n2]) await request(node.url).get('/v1/cluster').set(APP).expect(200);
    expect(await emit(socket, 'FindCoordinator', { key: 'late-1' })).toMatchObject({ errorCode: 0 });
    expect((await request(n1.url).get('/v1/acls').set(ADMIN).expect(200)).body).toHaveLength(2);

    await request(n2.url).delete('/v1/acls').set(ADMIN).send({ filters: [{ principal: 'User:app' }] }).expect(200);
    expect(await enforcedWithin([0, 1], false)).toBeLessThan(1_000);
    for (const node of [n0, n1]) await request(node.url).get('/v1/cluster').set(APP).expect(403);
  } finally {
    socket.disconnect();
  }
});
