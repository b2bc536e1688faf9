import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { NetworkTransport, type PeerAuthentication, RealClock } from '@cohort/replication';
import { TransportError, OwnRedisServer } from '@cohort/replication/testing';
import type { ClusterNode } from '../../src/node/cluster/cluster-node';
import { COHORT_NODE } from '../../src/node/cohort-node';
import { tryConnect, writeTokensFile } from '../support/auth-fixtures';
import { eventually } from '../support/group-member';
import { tempDataDir } from '../support/test-app';
import { ClusterHarness, commitErrors, commitRequest, PARTITIONS } from './cluster-harness';

// Real sockets, child processes and (some) clusters on a shared machine: bounded, but not by Jest's 5 s default.
jest.setTimeout(90_000);

// A 3-node cluster with authentication on, authenticated nodes (CLUSTER_SECRET_FILE) and a Redis that
// requires a password (REDIS_URL carries it). A process with another secret tries to fetch a
// partition from its leader and to change a partition's ISR at the controller; the cluster carries on.

const SECRET = randomBytes(48).toString('base64');
const secrets = tempDataDir('cohort-cluster-secret-');
const AUTH = { authorization: 'Bearer operator-token' };
let redis: OwnRedisServer;
let harness: ClusterHarness;

beforeAll(async () => {
  redis = await OwnRedisServer.create(false, { password: `p@ss/${randomBytes(6).toString('hex')}` });
  await redis.start();
  writeFileSync(join(secrets.dir, 'cluster.secret'), `${SECRET}\n`);
  const tokensFile = writeTokensFile(secrets.dir, { 'User:operator': 'operator-token' });
  harness = new ClusterHarness(
    redis.url,
    {
      AUTH_TOKENS_FILE: tokensFile,
      CLUSTER_SECRET_FILE: join(secrets.dir, 'cluster.secret'),
      SUPER_USERS: 'User:operator',
    },
    AUTH,
  );
  for (const id of [0, 1, 2]) await harness.startNode(id);
  await harness.formed(0, 'a formed cluster on a password-protected Redis with authenticated nodes');
}, 120_000);

afterAll(async () => {
  await harness?.dispose();
  await redis?.dispose();
  secrets.remove();
});

const clock = new RealClock();
const attackers: NetworkTransport[] = [];
afterEach(async () => void (await Promise.all(attackers.splice(0).map((t) => t.close()))));

async function attacker(authentication?: PeerAuthentication): Promise<NetworkTransport> {
  const t = await NetworkTransport.start({ nodeId: 2, clock, authentication }); // claims to be node 2
  attackers.push(t);
  return t;
}

function outcome(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => 'served',
    (e: unknown) => (e instanceof TransportError ? e.reason : String(e)),
  );
}

describe('authenticated nodes', () => {
  it('a process with a wrong cluster secret, or none, can neither fetch from a leader nor change ISR; with the secret it is served', async () => {
    const leaderId = 0;
    const leader = harness.nodes.get(leaderId)!.app.get(COHORT_NODE) as ClusterNode;
    const endpoint = {
      nodeId: leaderId,
      endpoint: (leader as unknown as { parts: { transport: NetworkTransport } }).parts.transport.endpoint,
    };
    const fetch = {
      replicaId: 2,
      replicaEpoch: 1,
      maxWaitMs: 0,
      partitions: Array.from({ length: PARTITIONS }, (_, partition) => ({
        partition,
        currentLeaderEpoch: 0,
        fetchOffset: 0,
        lastFetchedEpoch: -1,
        logStartOffset: 0,
        maxRecords: 100,
      })),
    };
    const alter = {
      nodeId: 2,
      nodeEpoch: 1,
      partition: 0,
      leaderEpoch: 99,
      partitionEpoch: 99,
      newIsr: [{ nodeId: 2, epoch: 1 }],
      leaderRecoveryState: 'RECOVERED',
    };
    const wrong = { secret: Buffer.from(randomBytes(48).toString('base64')), randomBytes };
    for (const auth of [wrong, undefined]) {
      const t = await attacker(auth);
      expect(await outcome(t.send(endpoint, 'fetch', fetch, 5_000))).toBe('UNREACHABLE');
      expect(await outcome(t.send(endpoint, 'alterPartition', alter as never, 5_000))).toBe('UNREACHABLE');
    }
    const right = await attacker({ secret: Buffer.from(SECRET), randomBytes });
    expect(await outcome(right.send(endpoint, 'fetch', { ...fetch, partitions: [] }, 5_000))).toBe('served');
  });

  it('the cluster carries on: full ISRs, commits through the coordinator, group lists merged across nodes with signed calls', async () => {
    await harness.formed(1, 'full ISRs after the attempts');
    const groupId = 'secured-group';
    const found = await tryConnect(harness.nodes.get(0)!.url, { token: 'operator-token' });
    if (!found.connected) throw new Error(found.message);
    const coordinator = (await found.socket.timeout(5000).emitWithAck('FindCoordinator', { key: groupId })) as {
      nodeId: number;
      url: string;
    };
    found.socket.close();
    await request(harness.nodes.get(0)!.url)
      .post('/v1/topics')
      .set(AUTH)
      .send({ name: 'ledger', partitions: 2 })
      .expect(201);
    const member = await tryConnect(coordinator.url, { token: 'operator-token' });
    if (!member.connected) throw new Error(member.message);
    await eventually(
      async () =>
        commitErrors(
          await member.socket.timeout(5000).emitWithAck('OffsetCommit', commitRequest(groupId, [5, 7])),
        ).every((e) => e === 0),
      'a commit',
    );
    member.socket.close();
    // Any node answers for the group: the others forward to its coordinator with a signed call.
    for (const node of harness.nodes.values()) {
      const list = await request(node.url).get('/v1/groups').set(AUTH);
      expect(list.status).toBe(200);
      expect(list.headers['x-cohort-unreachable-nodes']).toBeUndefined();
      expect(list.body.map((g: { groupId: string }) => g.groupId)).toContain(groupId);
      const offsets = await request(node.url).get(`/v1/groups/${groupId}/offsets`).set(AUTH);
      expect(offsets.status).toBe(200);
      expect(offsets.body.offsets.map((o: { committedOffset: number }) => o.committedOffset)).toEqual([5, 7]);
    }
  });

  it('refuses a call that claims to be forwarded by a node but carries no valid signature', async () => {
    const url = harness.nodes.get(1)!.url;
    const forged = await request(url)
      .get('/v1/groups')
      .set('x-cohort-forwarded-by', '0')
      .set('x-cohort-principal', 'User:operator');
    expect(forged.status).toBe(401);
    expect(forged.body.errorCode).toBe(58);
    const badMac = `v1 node=0,ts=${Date.now()},nonce=${'0'.repeat(32)},mac=${'0'.repeat(64)}`;
    const wrong = await request(url)
      .get('/v1/groups')
      .set('x-cohort-forwarded-by', '0')
      .set('x-cohort-node-auth', badMac)
      .set('x-cohort-principal', 'User:operator');
    expect(wrong.status).toBe(401);
  });
});
