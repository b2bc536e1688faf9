import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { TEST_REDIS_URL } from '@cohort/replication/testing';
import { COHORT_NODE, type CohortNode } from '../../src/node/cohort-node';
import { eventually } from '../support/group-member';
import { tempDataDir } from '../support/test-app';
import { TestCertificates } from '../support/test-certificates';
import { ClusterHarness, PARTITIONS } from './cluster-harness';

// Real sockets and a 3-node cluster on a shared machine: bounded, but not by Jest's 5 s default.
jest.setTimeout(120_000);

// A 3-node cluster with mutual TLS (TLS_CLIENT_AUTH=required) on every node's REST port: the nodes call
// each other (the merged group list, forwarding to a group's coordinator) with their own certificate,
// as any client must, while a client without a certificate is refused at the handshake.

const dir = tempDataDir('cohort-cluster-tls-');
let certs: TestCertificates;
let ca: Buffer;
let operator: { cert: Buffer; key: Buffer };
let harness: ClusterHarness;

const httpsUrl = (nodeId: number) => harness.nodes.get(nodeId)!.url.replace(/^http:/, 'https:');
const asOperator = (test: request.Test) => test.ca(ca).cert(operator.cert).key(operator.key);

beforeAll(async () => {
  certs = TestCertificates.create(dir.dir);
  ca = certs.read('ca.crt');
  operator = certs.issue('operator', 'operator');
  // A node's certificate serves its port and is its client certificate when it calls the others.
  writeFileSync(
    certs.path('node.ext'),
    'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth,clientAuth\n',
  );
  certs.issue('node', 'cohort-node', 'node.ext');
  writeFileSync(join(dir.dir, 'cluster.secret'), randomBytes(48).toString('base64'));
  harness = new ClusterHarness(TEST_REDIS_URL, {
    TLS_CERT_FILE: certs.path('node.crt'),
    TLS_KEY_FILE: certs.path('node.key'),
    TLS_CA_FILE: certs.path('ca.crt'),
    TLS_CLIENT_AUTH: 'required',
    CLUSTER_SECRET_FILE: join(dir.dir, 'cluster.secret'),
    SUPER_USERS: 'User:operator',
  });
  for (const id of [0, 1, 2]) await harness.startNode(id);
  await eventually(
    async () => {
      const { body } = await asOperator(request(httpsUrl(0)).get('/v1/cluster/partitions'));
      return (
        Array.isArray(body) &&
        body.length === PARTITIONS &&
        body.every((p: { leader: number | null; isr: number[] }) => p.leader !== null && p.isr.length === 3)
      );
    },
    'a formed cluster with mutual TLS',
    60_000,
  );
  await harness.ready('a formed cluster with mutual TLS');
}, 120_000);

afterAll(async () => {
  await harness?.dispose();
  dir.remove();
});

/** A group id that node `coordinator` coordinates, and a node that does not. */
function groupCoordinatedBy(coordinator: number): string {
  const node = harness.nodes.get(0)!.app.get<CohortNode>(COHORT_NODE);
  for (let i = 0; ; i++) {
    const groupId = `mtls-${i}`;
    if (node.cluster.leaderOf(node.coordinator.partitionFor(groupId))?.nodeId === coordinator) return groupId;
  }
}

it('forwards a group request through a node that does not coordinate the group, and merges the group list, over mutual TLS', async () => {
  await asOperator(request(httpsUrl(0)).post('/v1/topics').send({ name: 'orders', partitions: 2 })).expect(201);
  const groupId = groupCoordinatedBy(2);
  const offsets = { topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 42 }] }] };
  // Set through node 0, answered by node 2 (the coordinator), which sees the operator's principal.
  await asOperator(request(httpsUrl(0)).post(`/v1/groups/${groupId}/offsets`).send(offsets)).expect(200);
  const fetched = await asOperator(request(httpsUrl(1)).get(`/v1/groups/${groupId}/offsets`)).expect(200);
  expect(fetched.body.offsets).toEqual(
    expect.arrayContaining([expect.objectContaining({ topic: 'orders', partition: 0, committedOffset: 42 })]),
  );
  const listed = await asOperator(request(httpsUrl(1)).get('/v1/groups')).expect(200);
  expect(listed.headers['x-cohort-unreachable-nodes']).toBeUndefined();
  expect(listed.body).toEqual(expect.arrayContaining([expect.objectContaining({ groupId })]));
});

it('refuses a client without a certificate at the TLS handshake, on every node', async () => {
  for (const id of [0, 1, 2]) await expect(request(httpsUrl(id)).get('/v1/groups').ca(ca)).rejects.toThrow();
});
