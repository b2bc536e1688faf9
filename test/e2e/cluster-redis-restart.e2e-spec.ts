import request from 'supertest';
import { ErrorCode } from '@cohort/protocol';
import { OwnRedisServer } from '@cohort/replication/testing';
import { eventually } from '../support/group-member';
import { request as emit } from '../support/socket-client';
import { ClusterHarness, commitErrors, commitRequest, committedOffsets } from './cluster-harness';

jest.setTimeout(180_000);

/**
 * A Redis without persistence restarts empty under a running cluster (recovery-script.ts): the nodes
 * fence themselves while they cannot renew their registrations, then put back the partition states
 * they hold, register again and elect a controller; acknowledged commits are all there and new ones
 * are acknowledged.
 */
const GROUP = 'survives-redis';

describe('cluster mode (e2e): Redis restarts empty under a running cluster', () => {
  let redis: OwnRedisServer;
  let cluster: ClusterHarness;

  beforeAll(async () => {
    redis = await OwnRedisServer.create(false);
    await redis.start();
    cluster = new ClusterHarness(redis.url);
  });

  afterAll(async () => {
    await cluster.dispose();
    await redis.dispose();
  });

  it('recovers the metadata from the nodes and keeps every acknowledged commit', async () => {
    for (const id of [0, 1, 2]) await cluster.startNode(id);
    await cluster.formed(0, 'the cluster formed');
    await request(cluster.nodes.get(0)!.url).post('/v1/topics').send({ name: 'ledger', partitions: 4 }).expect(201);
    const before = await cluster.retryUntilServed(GROUP);
    const client = await cluster.socketTo(before.at.url);
    expect(commitErrors(await emit(client, 'OffsetCommit', commitRequest(GROUP, [7, 8, 9, 10])))).toEqual([
      0, 0, 0, 0, 0,
    ]);
    const { body: partitionsBefore } = await request(before.at.url).get('/v1/cluster/partitions').expect(200);

    await redis.stop('SIGKILL');
    // Once no node can prove its registration, every node fences itself: not ready, leads nothing.
    for (const n of cluster.nodes.values()) {
      await eventually(
        async () => (await request(n.url).get('/health/ready')).status === 503,
        `node ${n.nodeId} fenced`,
        30_000,
      );
    }
    const during = await emit<{ errorCode: number }>(client, 'OffsetCommit', commitRequest(GROUP, [99, 99, 99, 99]));
    expect(during.errorCode).toBe(ErrorCode.NOT_COORDINATOR); // a fenced node acknowledges nothing and says where to look

    await redis.start(); // empty
    const after = await cluster.retryUntilServed(GROUP);
    expect(committedOffsets(after.fetched)).toEqual([7, 8, 9, 10]);
    await cluster.formed(after.at.nodeId, 'every ISR full again');
    const { body: partitionsAfter } = await request(after.at.url).get('/v1/cluster/partitions').expect(200);
    // Leader epochs never go back: the restored states continue from what the nodes held.
    for (const p of partitionsAfter) {
      expect(p.leaderEpoch).toBeGreaterThanOrEqual(
        partitionsBefore.find((q: { partition: number }) => q.partition === p.partition).leaderEpoch,
      );
    }
    await eventually(
      async () => (await request(after.at.url).get('/v1/topics/ledger')).status === 200,
      'the topic put back',
    );

    const again = await cluster.socketTo(after.at.url);
    expect(commitErrors(await emit(again, 'OffsetCommit', commitRequest(GROUP, [11, 12, 13, 14])))).toEqual([
      0, 0, 0, 0, 0,
    ]);
    expect(committedOffsets(await emit(again, 'OffsetFetch', { groupId: GROUP, topics: null }))).toEqual([
      11, 12, 13, 14,
    ]);
  });
});
