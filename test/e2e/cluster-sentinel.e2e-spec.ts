import request from 'supertest';
import type { Socket } from 'socket.io-client';
import { ErrorCode } from '@cohort/protocol';
import { allow } from '../support/acl-fixtures';
import { eventually } from '../support/group-member';
import { SENTINEL_MASTER_NAME, RedisSentinelSet } from '../support/redis-sentinel-set';
import { request as emit } from '../support/socket-client';
import { ClusterHarness, commitErrors, commitRequest, committedOffsets } from './cluster-harness';

jest.setTimeout(240_000);

const GROUP = 'survives-sentinel-failover';

/**
 * Redis without a single point of failure: the three-node cluster reaches Redis through Sentinel
 * (REDIS_SENTINELS). Under a steady commit load the Redis master is SIGKILLed; the Sentinels promote the
 * replica, every node follows it, the cluster carries on and no acknowledged commit is lost. The
 * longest time without an acknowledged commit (the serving gap) is printed.
 */
describe('cluster mode (e2e): Redis behind Sentinel loses its master', () => {
  let redis: RedisSentinelSet;
  let cluster: ClusterHarness;

  beforeAll(async () => {
    redis = new RedisSentinelSet();
    await redis.start();
    cluster = new ClusterHarness(`redis://127.0.0.1:${redis.masterPort}`);
  });

  afterAll(async () => {
    await cluster?.dispose();
    await redis?.dispose();
  });

  it('follows the promoted replica: the cluster keeps serving and keeps every acknowledged commit', async () => {
    const sessionMs = 6_000;
    // A creation limit makes topic creation go through the creation ledger, which lives in Redis too.
    await cluster.startAll({
      REDIS_SENTINELS: redis.sentinels,
      REDIS_SENTINEL_NAME: SENTINEL_MASTER_NAME,
      NODE_SESSION_TIMEOUT_MS: String(sessionMs),
      MAX_TOPICS_PER_PRINCIPAL: '10',
    });
    await request(cluster.nodes.get(0)!.url).post('/v1/topics').send({ name: 'ledger', partitions: 4 }).expect(201);
    let { at } = await cluster.retryUntilServed(GROUP);
    let client: Socket = await cluster.socketTo(at.url);

    // Closed-loop commits of ever larger offsets; an error means: find the coordinator again, retry.
    const acks: Array<{ offset: number; at: number }> = [];
    const refused: string[] = [];
    let stop = false;
    const load = (async () => {
      for (let offset = 1; !stop; offset++) {
        const answer = await emit<{ errorCode: number; topics: { partitions: { errorCode: number }[] }[] }>(
          client,
          'OffsetCommit',
          commitRequest(GROUP, [offset, offset, offset, offset]),
        ).catch(() => null);
        if (answer && commitErrors(answer).every((e) => e === ErrorCode.NONE)) {
          acks.push({ offset, at: Date.now() });
          continue;
        }
        refused.push(answer ? String(answer.errorCode) : 'no answer');
        ({ at } = await cluster.retryUntilServed(GROUP));
        client = await cluster.socketTo(at.url);
      }
    })();
    await eventually(() => acks.length >= 20, 'commits before the failover', 30_000);

    const killedAt = Date.now();
    await redis.killMaster();
    await eventually(
      async () => (await redis.currentMasterPort().catch(() => 0)) === redis.replicaPort,
      'Sentinel promotes the replica',
      60_000,
    );
    const promotedAt = Date.now();
    // Past a whole session after the kill, a node that could not renew through the new master would
    // have fenced itself: commits acknowledged from then on prove the cluster follows the promotion.
    await eventually(() => Date.now() > killedAt + sessionMs + 2_000, 'a session timeout since the kill', 60_000);
    const acksBefore = acks.length;
    await eventually(() => acks.length >= acksBefore + 20, 'commits acknowledged a session after the kill', 120_000);
    stop = true;
    await load;

    // Nothing acknowledged is lost: the committed offset is the last one acknowledged.
    const { fetched } = await cluster.retryUntilServed(GROUP);
    expect(committedOffsets(fetched)).toEqual(Array(4).fill(acks.at(-1)!.offset));
    // Every node serves again and reads the metadata through the new master.
    for (const n of cluster.nodes.values())
      await eventually(
        async () => (await request(n.url).get('/health/ready')).status === 200,
        `node ${n.nodeId} ready`,
        60_000,
      );

    // The ACL store and the creation ledger follow the promotion too: a binding written through one node
    // reaches the others, and a new topic is charged to its principal, through the new master.
    const [first, second] = [...cluster.nodes.values()];
    const binding = allow('User:after-failover', 'READ', 'GROUP', 'after-failover');
    await eventually(
      async () =>
        (
          await request(first.url)
            .post('/v1/acls')
            .send({ acls: [binding] })
        ).status === 201,
      'an ACL binding written after the promotion',
      30_000,
    );
    await eventually(
      async () =>
        ((await request(second.url).get('/v1/acls')).body as { principal: string }[]).some(
          (b) => b.principal === 'User:after-failover',
        ),
      'the binding on another node',
      30_000,
    );
    await request(second.url).post('/v1/topics').send({ name: 'after-failover', partitions: 1 }).expect(201);

    let gap = 0;
    for (let i = 1; i < acks.length; i++) if (acks[i].at >= killedAt) gap = Math.max(gap, acks[i].at - acks[i - 1].at);
    console.log(
      `Sentinel failover: master SIGKILLed, replica promoted after ${promotedAt - killedAt} ms; longest gap between acknowledged commits ${gap} ms; ` +
        `${acks.length} commits acknowledged, ${refused.length} refused or unanswered (${[...new Set(refused)].join(', ') || 'none'})`,
    );
  });
});
