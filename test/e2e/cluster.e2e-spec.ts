import type { INestApplication } from '@nestjs/common';
import { createServer } from 'node:net';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import { ErrorCode, errorName } from '@cohort/protocol';
import { createCohortApp } from '../../src/create-cohort-app';
import { COHORT_NODE } from '../../src/node/cohort-node';
import type { ClusterNode } from '../../src/node/cluster/cluster-node';
import { eventually } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { TEST_ENV, tempDataDir } from '../support/test-app';

jest.setTimeout(180_000);

/**
 * Cluster mode end to end (SPEC §1, §6): three nodes in this process, each a whole app with its own
 * DATA_DIR, talking to each other over the network transport and sharing one Redis under a CLUSTER_ID
 * of the test's own. Offsets committed through the coordinator survive the crash of the coordinator's
 * node; clients are told NOT_COORDINATOR / COORDINATOR_LOAD_IN_PROGRESS until the new coordinator
 * serves, and then succeed there.
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PARTITIONS = 6;
const GROUP = 'ledger-readers';

interface RunningNode {
  nodeId: number;
  url: string;
  app: INestApplication;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function errorNameOf(code: number): string {
  return errorName(code);
}

function commitRequest(offsets: number[]) {
  return {
    groupId: GROUP,
    generationId: -1,
    memberId: '',
    topics: [{ name: 'ledger', partitions: offsets.map((committedOffset, partitionIndex) => ({ partitionIndex, committedOffset, committedMetadata: `m${committedOffset}` })) }],
  };
}

function partitionErrors(response: { errorCode: number; topics: { partitions: { errorCode: number }[] }[] }): number[] {
  return [response.errorCode, ...response.topics.flatMap((t) => t.partitions.map((p) => p.errorCode))];
}

function committedOffsets(response: { topics: { partitions: { partitionIndex: number; committedOffset: number }[] }[] }): number[] {
  return response.topics.flatMap((t) => t.partitions).sort((a, b) => a.partitionIndex - b.partitionIndex).map((p) => p.committedOffset);
}

describe('cluster mode (e2e): three nodes over Redis and the network transport', () => {
  const clusterId = `e2e-cluster-${process.pid}-${Date.now().toString(36)}`;
  const dirs = [0, 1, 2].map(() => tempDataDir('cohort-cluster-'));
  const nodes = new Map<number, RunningNode>();
  const sockets: Socket[] = [];

  async function startNode(nodeId: number): Promise<RunningNode> {
    const port = await freePort();
    const app = await createCohortApp({
      ...TEST_ENV,
      PORT: String(port),
      CLUSTER_MODE: 'redis',
      REDIS_URL,
      CLUSTER_ID: clusterId,
      NODE_ID: String(nodeId),
      DATA_DIR: dirs[nodeId].dir,
      REPLICATION_PORT: '0',
      OFFSETS_TOPIC_NUM_PARTITIONS: String(PARTITIONS),
      NODE_SESSION_TIMEOUT_MS: '3000',
      REPLICA_LAG_TIME_MAX_MS: '3000',
      REPLICA_FETCH_WAIT_MAX_MS: '100',
    });
    await app.listen(port, '127.0.0.1');
    const node = { nodeId, url: `http://127.0.0.1:${port}`, app };
    nodes.set(nodeId, node);
    return node;
  }

  async function socketTo(url: string): Promise<Socket> {
    const socket = await connect(url);
    sockets.push(socket);
    return socket;
  }

  type Fetched = { errorCode: number; topics: { partitions: { partitionIndex: number; committedOffset: number }[] }[] };

  /** FindCoordinator on a live node, then OffsetFetch there, until it succeeds; records what it met on the way. */
  async function retryUntilServed(groupId: string): Promise<{ seen: string[]; fetched: Fetched; at: RunningNode }> {
    const seen: string[] = [];
    let fetched: Fetched | null = null;
    let at: RunningNode | undefined;
    await eventually(
      async () => {
        const entry = [...nodes.values()][0];
        const found = await emit<{ errorCode: number; nodeId: number }>(await socketTo(entry.url), 'FindCoordinator', { key: groupId });
        at = nodes.get(found.nodeId);
        if (found.errorCode !== ErrorCode.NONE) seen.push(errorNameOf(found.errorCode));
        if (found.errorCode !== ErrorCode.NONE || !at) {
          if (found.errorCode === ErrorCode.NONE) seen.push('dead node named'); // until its registration expires
          return false;
        }
        const response = await emit<Fetched>(await socketTo(at.url), 'OffsetFetch', { groupId, topics: null });
        if (response.errorCode !== ErrorCode.NONE) seen.push(errorNameOf(response.errorCode));
        fetched = response;
        return response.errorCode === ErrorCode.NONE;
      },
      `a coordinator serving ${groupId}`,
      60_000,
    );
    return { seen, fetched: fetched!, at: at! };
  }

  afterAll(async () => {
    for (const s of sockets) s.disconnect();
    await Promise.all([...nodes.values()].map((n) => n.app.close().catch(() => undefined)));
    const admin = new Redis(REDIS_URL, { disconnectTimeout: 100 });
    const keys = await admin.keys(`${clusterId}:*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
    for (const d of dirs) d.remove();
  });

  it('forms a cluster: every partition gets a leader and three in-sync replicas, visible from every node', async () => {
    for (const id of [0, 1, 2]) await startNode(id);
    await eventually(
      async () => {
        const { body } = await request(nodes.get(2)!.url).get('/v1/cluster/partitions');
        return Array.isArray(body) && body.length === PARTITIONS && body.every((p: { leader: number | null; isr: number[] }) => p.leader !== null && p.isr.length === 3);
      },
      'all partitions led with a full ISR',
      60_000,
    );
    const { body: cluster } = await request(nodes.get(0)!.url).get('/v1/cluster').expect(200);
    expect(cluster.clusterId).toBe(clusterId);
    expect(cluster.nodes).toEqual([0, 1, 2].map((nodeId) => ({ nodeId, url: nodes.get(nodeId)!.url, alive: true })));
    expect([0, 1, 2]).toContain(cluster.controllerId);
  });

  it('keeps acknowledged commits across the crash of the coordinator node, redirecting clients to the new one', async () => {
    await request(nodes.get(1)!.url).post('/v1/topics').send({ name: 'ledger', partitions: 4 }).expect(201);
    await eventually(async () => (await request(nodes.get(2)!.url).get('/v1/topics/ledger')).status === 200, 'the topic on every node');

    const asked = await emit<{ errorCode: number; nodeId: number; url: string }>(await socketTo(nodes.get(0)!.url), 'FindCoordinator', { key: GROUP });
    expect(asked.errorCode).toBe(ErrorCode.NONE);
    const coordinator = nodes.get(asked.nodeId)!;
    expect(asked.url).toBe(coordinator.url);

    const client = await socketTo(coordinator.url);
    const acknowledged = [[10, 11, 12, 13], [20, 21, 22, 23], [30, 31, 32, 33]];
    for (const offsets of acknowledged) expect(partitionErrors(await emit(client, 'OffsetCommit', commitRequest(offsets)))).toEqual([0, 0, 0, 0, 0]);

    // Another node does not coordinate this group and says so.
    const bystander = [...nodes.values()].find((n) => n !== coordinator)!;
    const wrong = await emit<{ errorCode: number }>(await socketTo(bystander.url), 'OffsetFetch', { groupId: GROUP, topics: null });
    expect(wrong.errorCode).toBe(ErrorCode.NOT_COORDINATOR);

    // The coordinator's node dies.
    await (coordinator.app.get(COHORT_NODE) as ClusterNode).crash();
    await coordinator.app.close();
    nodes.delete(coordinator.nodeId);

    // A client retries as Kafka clients do: FindCoordinator on a live node, then the request there.
    const { seen, fetched, at } = await retryUntilServed(GROUP);
    for (const event of seen) expect(['dead node named', 'NOT_COORDINATOR', 'COORDINATOR_LOAD_IN_PROGRESS', 'COORDINATOR_NOT_AVAILABLE']).toContain(event);
    expect(committedOffsets(fetched)).toEqual(acknowledged.at(-1));
    const newCoordinator = at;
    const survivor = [...nodes.values()][0];

    // Two of three replicas are enough (min ISR 2): commits are acknowledged again.
    const again = await socketTo(newCoordinator.url);
    expect(partitionErrors(await emit(again, 'OffsetCommit', commitRequest([40, 41, 42, 43])))).toEqual([0, 0, 0, 0, 0]);
    expect(committedOffsets(await emit(again, 'OffsetFetch', { groupId: GROUP, topics: null }))).toEqual([40, 41, 42, 43]);
    const { body: cluster } = await request(survivor.url).get('/v1/cluster').expect(200);
    expect(cluster.nodes.find((n: { nodeId: number }) => n.nodeId === coordinator.nodeId)).toEqual({ nodeId: coordinator.nodeId, url: coordinator.url, alive: false });
  });

  it('takes a crashed node back: it catches up from its own log into every ISR; a controlled shutdown then hands over', async () => {
    const missing = [0, 1, 2].find((id) => !nodes.has(id))!;
    await startNode(missing);
    await eventually(
      async () => {
        const { body } = await request(nodes.get(missing)!.url).get('/v1/cluster/partitions');
        return Array.isArray(body) && body.every((p: { leader: number | null; isr: number[] }) => p.leader !== null && p.isr.length === 3);
      },
      'the restarted node back in every ISR',
      60_000,
    );
    const found = await emit<{ nodeId: number }>(await socketTo(nodes.get(missing)!.url), 'FindCoordinator', { key: GROUP });
    const coordinator = nodes.get(found.nodeId)!;
    const client = await socketTo(coordinator.url);
    expect(partitionErrors(await emit(client, 'OffsetCommit', commitRequest([50, 51, 52, 53])))).toEqual([0, 0, 0, 0, 0]);

    // SIGTERM: a controlled shutdown moves leadership away before the node stops.
    await coordinator.app.close();
    nodes.delete(coordinator.nodeId);
    const { seen, fetched } = await retryUntilServed(GROUP);
    expect(seen).not.toContain('dead node named');
    expect(committedOffsets(fetched)).toEqual([50, 51, 52, 53]);
  });
});
