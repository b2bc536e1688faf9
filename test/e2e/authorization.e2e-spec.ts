import fc from 'fast-check';
import request from 'supertest';
import { allow, deny } from '../support/acl-fixtures';
import { request as emit } from '../support/socket-client';
import { tokenApp } from '../support/token-app';
import { AuditLogger, type AuditEvent } from '../../src/security/audit-logger';

jest.setTimeout(60_000);

/**
 * Kafka's ACLs at every edge of one node with static tokens on: each socket event and REST route with
 * and without the ACL it needs, the partial answers (29 per partition, 30 per group, filtered lists),
 * and the audit lines of denials and changes.
 */
const TOKENS = { admin: 'admin-token', app: 'app-token', ops: 'ops-token', nobody: 'nobody-token' };
const node = tokenApp('cohort-authz-', TOKENS);
const { as, socketOf } = node;
const audit: AuditEvent[] = [];
const http = () => request(node.url);

beforeAll(async () => {
  await node.start();
  // Every AuditLogger instance of the app writes through record(): capture what it is given.
  jest.spyOn(AuditLogger.prototype, 'record').mockImplementation((event) => void audit.push(event));
  await node.createTopics([
    ['orders', 2],
    ['secret', 2],
  ]);
  await node.grant([
    allow('User:app', 'READ', 'GROUP', 'app-', 'PREFIXED'),
    allow('User:app', 'READ', 'TOPIC', 'orders'),
    allow('User:app', 'WRITE', 'TOPIC', 'orders'),
    allow('User:ops', 'DESCRIBE', 'CLUSTER', 'kafka-cluster'),
    allow('User:ops', 'DELETE', 'GROUP', '*'),
    allow('User:ops', 'READ', 'TOPIC', '*'),
    deny('User:ops', 'READ', 'TOPIC', 'secret'),
  ]);
  // End offsets of both topics (resets by time read them), and a group with offsets on both, by the super user.
  for (const topic of ['orders', 'secret'])
    await http()
      .put(`/v1/topics/${topic}/end-offsets`)
      .set(as('admin'))
      .send({
        partitions: [0, 1].map((partition) => ({ partition, endOffset: 10, timestamp: Date.now() - 60_000 })),
      })
      .expect(200);
  const admin = await socketOf('admin');
  const commit = await emit(admin, 'OffsetCommit', {
    groupId: 'app-1',
    generationId: -1,
    topics: [
      { name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1 }] },
      { name: 'secret', partitions: [{ partitionIndex: 0, committedOffset: 1 }] },
    ],
  });
  expect(commit).toMatchObject({
    errorCode: 0,
    topics: [{ partitions: [{ errorCode: 0 }] }, { partitions: [{ errorCode: 0 }] }],
  });
});

afterAll(async () => {
  jest.restoreAllMocks();
  await node.stop();
});

const codes = (response: { topics: { name: string; partitions: { partitionIndex: number; errorCode: number }[] }[] }) =>
  Object.fromEntries(
    response.topics.flatMap((t) => t.partitions.map((p) => [`${t.name}-${p.partitionIndex}`, p.errorCode])),
  );

describe('socket.io events', () => {
  it('FindCoordinator needs DESCRIBE GROUP (READ implies it)', async () => {
    const app = await socketOf('app');
    expect(await emit(app, 'FindCoordinator', { key: 'app-1' })).toMatchObject({ errorCode: 0 });
    expect(await emit(app, 'FindCoordinator', { key: 'payments' })).toMatchObject({
      errorCode: 30,
      errorName: 'GROUP_AUTHORIZATION_FAILED',
      nodeId: -1,
      url: '',
    });
  });

  it('JoinGroup, SyncGroup, Heartbeat and LeaveGroup need READ GROUP: 30 before any protocol check', async () => {
    const [app, nobody] = [await socketOf('app'), await socketOf('nobody')];
    const join = {
      groupId: 'app-join',
      sessionTimeoutMs: 10_000,
      memberId: '',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: { topics: ['orders'] } }],
    };
    const member = { groupId: 'app-join', generationId: 1, memberId: 'ghost' };
    const requests: [string, object, number][] = [
      ['JoinGroup', join, 79], // MEMBER_ID_REQUIRED: past authorization, into the protocol
      ['SyncGroup', { ...member, assignments: [] }, 25],
      ['Heartbeat', member, 25],
      ['LeaveGroup', { groupId: 'app-join', members: [{ memberId: 'ghost' }] }, 0],
    ];
    for (const [event, payload, allowedCode] of requests) {
      expect({ event, errorCode: (await emit<{ errorCode: number }>(app, event, payload)).errorCode }).toEqual({
        event,
        errorCode: allowedCode,
      });
      expect({ event, answer: await emit(nobody, event, payload) }).toMatchObject({
        event,
        answer: { errorCode: 30, errorName: 'GROUP_AUTHORIZATION_FAILED' },
      });
    }
    // A refused JoinGroup keeps the response's shape: no generation, no member id (Kafka's JoinGroupResult).
    expect(await emit(nobody, 'JoinGroup', join)).toMatchObject({
      errorCode: 30,
      generationId: -1,
      memberId: '',
      members: [],
    });
  });

  it('OffsetCommit commits the authorized topic and answers 29 per partition for the other; a refused group is 30 on every partition', async () => {
    const app = await socketOf('app');
    const topics = [
      {
        name: 'orders',
        partitions: [
          { partitionIndex: 0, committedOffset: 42 },
          { partitionIndex: 1, committedOffset: 43 },
        ],
      },
      { name: 'secret', partitions: [{ partitionIndex: 0, committedOffset: 99 }] },
    ];
    const committed = await emit<Parameters<typeof codes>[0]>(app, 'OffsetCommit', {
      groupId: 'app-commit',
      generationId: -1,
      topics,
    });
    expect(codes(committed)).toEqual({ 'orders-0': 0, 'orders-1': 0, 'secret-0': 29 });
    const fetched = await emit<{
      topics: { name: string; partitions: { partitionIndex: number; committedOffset: number }[] }[];
    }>(await socketOf('admin'), 'OffsetFetch', { groupId: 'app-commit', topics: null });
    expect(fetched.topics).toEqual([
      {
        name: 'orders',
        partitions: expect.arrayContaining([
          expect.objectContaining({ partitionIndex: 0, committedOffset: 42 }),
          expect.objectContaining({ partitionIndex: 1, committedOffset: 43 }),
        ]),
      },
    ]);
    const refusedGroup = await emit<Parameters<typeof codes>[0]>(app, 'OffsetCommit', {
      groupId: 'payments',
      generationId: -1,
      topics,
    });
    expect(codes(refusedGroup)).toEqual({ 'orders-0': 30, 'orders-1': 30, 'secret-0': 30 });
  });

  it('OffsetFetch needs DESCRIBE GROUP; an all-topics fetch leaves out topics without DESCRIBE TOPIC, an explicit one answers 29', async () => {
    const app = await socketOf('app');
    const all = await emit<{ errorCode: number; topics: { name: string }[] }>(app, 'OffsetFetch', {
      groupId: 'app-1',
      topics: null,
    });
    expect(all.errorCode).toBe(0);
    expect(all.topics.map((t) => t.name)).toEqual(['orders']);
    const explicit = await emit<Parameters<typeof codes>[0]>(app, 'OffsetFetch', {
      groupId: 'app-1',
      topics: [
        { name: 'orders', partitionIndexes: [0] },
        { name: 'secret', partitionIndexes: [0] },
      ],
    });
    expect(codes(explicit)).toEqual({ 'orders-0': 0, 'secret-0': 29 });
    expect(await emit(await socketOf('nobody'), 'OffsetFetch', { groupId: 'app-1', topics: null })).toMatchObject({
      errorCode: 30,
    });
  });

  it('OffsetDelete needs DELETE GROUP, then READ TOPIC per topic', async () => {
    expect(
      await emit(await socketOf('app'), 'OffsetDelete', {
        groupId: 'app-1',
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 0 }] }],
      }),
    ).toMatchObject({ errorCode: 30 });
    const ops = await socketOf('ops');
    const deleted = await emit<Parameters<typeof codes>[0]>(ops, 'OffsetDelete', {
      groupId: 'app-1',
      topics: [
        { name: 'orders', partitions: [{ partitionIndex: 1 }] },
        { name: 'secret', partitions: [{ partitionIndex: 1 }] },
      ],
    });
    expect(codes(deleted)).toEqual({ 'orders-1': 0, 'secret-1': 29 });
    expect(audit).toContainEqual(
      expect.objectContaining({
        principal: 'User:ops',
        operation: 'DELETE',
        resourceType: 'GROUP',
        resourceName: 'app-1',
        request: 'OffsetDelete',
        outcome: 'SUCCEEDED',
      }),
    );
  });

  it('DescribeGroups answers 30 per group the caller may not describe, and describes the others', async () => {
    const described = await emit<{ groups: { groupId: string; errorCode: number }[] }>(
      await socketOf('app'),
      'DescribeGroups',
      { groups: ['zzz', 'app-1'] },
    );
    expect(described.groups.map((g) => [g.groupId, g.errorCode])).toEqual([
      ['zzz', 30],
      ['app-1', 0],
    ]);
  });

  it('ListGroups lists every group with DESCRIBE CLUSTER, else only the groups the caller may describe, and never fails', async () => {
    await emit(await socketOf('admin'), 'OffsetCommit', {
      groupId: 'zzz-listed',
      generationId: -1,
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1 }] }],
    });
    const names = async (principal: keyof typeof TOKENS) =>
      (
        await emit<{ errorCode: number; groups: { groupId: string }[] }>(await socketOf(principal), 'ListGroups', {})
      ).groups
        .map((g) => g.groupId)
        .sort();
    expect(await names('app')).toEqual(expect.arrayContaining(['app-1', 'app-commit']));
    expect((await names('app')).every((g) => g.startsWith('app-'))).toBe(true);
    expect(await names('ops')).toEqual(expect.arrayContaining(['app-1', 'zzz-listed']));
    expect(await names('nobody')).toEqual([]);
  });

  it('DeleteGroups answers 30 per group without DELETE GROUP and deletes the others', async () => {
    const admin = await socketOf('admin');
    await emit(admin, 'OffsetCommit', {
      groupId: 'app-gone',
      generationId: -1,
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 1 }] }],
    });
    const byApp = await emit<{ results: { groupId: string; errorCode: number }[] }>(
      await socketOf('app'),
      'DeleteGroups',
      { groupsNames: ['app-gone'] },
    );
    expect(byApp.results).toEqual([{ groupId: 'app-gone', errorCode: 30 }]);
    const byOps = await emit<{ results: { groupId: string; errorCode: number }[] }>(
      await socketOf('ops'),
      'DeleteGroups',
      { groupsNames: ['app-gone'] },
    );
    expect(byOps.results).toEqual([{ groupId: 'app-gone', errorCode: 0 }]);
    expect(audit).toContainEqual(
      expect.objectContaining({
        principal: 'User:app',
        operation: 'DELETE',
        resourceName: 'app-gone',
        outcome: 'DENIED',
      }),
    );
    expect(audit).toContainEqual(
      expect.objectContaining({
        principal: 'User:ops',
        operation: 'DELETE',
        resourceName: 'app-gone',
        request: 'DeleteGroups',
        outcome: 'SUCCEEDED',
      }),
    );
  });

  it('Metadata answers 29 per topic without DESCRIBE TOPIC (existence not revealed) and leaves such topics out of an all-topics request', async () => {
    const app = await socketOf('app');
    const all = await emit<{ topics: { name: string }[] }>(app, 'Metadata', { topics: null });
    expect(all.topics.map((t) => t.name)).toEqual(['orders']);
    const named = await emit<{ topics: { name: string; errorCode: number }[] }>(app, 'Metadata', {
      topics: ['orders', 'secret', 'ghost'],
    });
    expect(named.topics.map((t) => [t.name, t.errorCode])).toEqual([
      ['orders', 0],
      ['secret', 29],
      ['ghost', 29],
    ]);
  });

  it('Metadata lists the live nodes to any authenticated caller, as Kafka lists its brokers: a client must find the cluster before anything else', async () => {
    const nobody = await socketOf('nobody');
    const answer = await emit<{ errorCode: number; topics: unknown[]; nodes: { nodeId: number; url: string }[] }>(
      nobody,
      'Metadata',
      { topics: [] },
    );
    expect(answer).toEqual({ errorCode: 0, topics: [], nodes: [{ nodeId: 0, url: node.url }] });
  });
});

describe('REST routes', () => {
  const cases: {
    route: string;
    send: (who: keyof typeof TOKENS) => request.Test;
    denied: keyof typeof TOKENS;
    code: number;
    allowed: keyof typeof TOKENS;
    status: number;
  }[] = [
    {
      route: 'GET /v1/groups/:groupId',
      send: (w) => http().get('/v1/groups/app-1').set(as(w)),
      denied: 'nobody',
      code: 30,
      allowed: 'app',
      status: 200,
    },
    {
      route: 'GET /v1/groups/:groupId/rebalances',
      send: (w) => http().get('/v1/groups/app-1/rebalances').set(as(w)),
      denied: 'nobody',
      code: 30,
      allowed: 'app',
      status: 200,
    },
    {
      route: 'GET /v1/groups/:groupId/offsets',
      send: (w) => http().get('/v1/groups/app-1/offsets').set(as(w)),
      denied: 'nobody',
      code: 30,
      allowed: 'app',
      status: 200,
    },
    {
      route: 'GET /v1/groups/:groupId/lag',
      send: (w) => http().get('/v1/groups/app-1/lag').set(as(w)),
      denied: 'nobody',
      code: 30,
      allowed: 'app',
      status: 200,
    },
    {
      route: 'POST /v1/groups/:groupId/offsets/reset (topic)',
      send: (w) =>
        http()
          .post('/v1/groups/app-1/offsets/reset')
          .set(as(w))
          .send({ topics: [{ name: 'secret' }], strategy: 'earliest' }),
      denied: 'app',
      code: 29,
      allowed: 'admin',
      status: 200,
    },
    {
      route: 'POST /v1/groups/:groupId/offsets/reset (all topics)',
      send: (w) =>
        http().post('/v1/groups/app-1/offsets/reset').set(as(w)).send({ allTopics: true, strategy: 'earliest' }),
      denied: 'app',
      code: 29,
      allowed: 'admin',
      status: 200,
    },
    {
      route: 'POST /v1/groups/:groupId/offsets/reset (group)',
      send: (w) =>
        http()
          .post('/v1/groups/app-1/offsets/reset')
          .set(as(w))
          .send({ topics: [{ name: 'orders' }], strategy: 'earliest' }),
      denied: 'nobody',
      code: 30,
      allowed: 'app',
      status: 200,
    },
    {
      route: 'POST /v1/groups/:groupId/offsets/reset datetime (topic)',
      send: (w) =>
        http()
          .post('/v1/groups/app-1/offsets/reset')
          .set(as(w))
          .send({ topics: [{ name: 'secret' }], strategy: 'datetime', datetime: '2026-01-01T00:00:00.000' }),
      denied: 'app',
      code: 29,
      allowed: 'admin',
      status: 200,
    },
    {
      route: 'POST /v1/groups/:groupId/offsets/reset duration (all topics)',
      send: (w) =>
        http()
          .post('/v1/groups/app-1/offsets/reset')
          .set(as(w))
          .send({ allTopics: true, strategy: 'duration', duration: 'PT1H' }),
      denied: 'app',
      code: 29,
      allowed: 'admin',
      status: 200,
    },
    {
      route: 'POST /v1/groups/:groupId/offsets/reset duration (group)',
      send: (w) =>
        http()
          .post('/v1/groups/app-1/offsets/reset')
          .set(as(w))
          .send({ topics: [{ name: 'orders' }], strategy: 'duration', duration: 'PT1H' }),
      denied: 'nobody',
      code: 30,
      allowed: 'app',
      status: 200,
    },
    {
      route: 'GET /v1/groups?topic= (the topic)',
      send: (w) => http().get('/v1/groups?topic=secret').set(as(w)),
      denied: 'app',
      code: 29,
      allowed: 'admin',
      status: 200,
    },
    {
      route: 'POST /v1/groups/:groupId/offsets (topic)',
      send: (w) =>
        http()
          .post('/v1/groups/app-set/offsets')
          .set(as(w))
          .send({ topics: [{ name: 'secret', partitions: [{ partitionIndex: 0, committedOffset: 5 }] }] }),
      denied: 'app',
      code: 29,
      allowed: 'admin',
      status: 200,
    },
    {
      route: 'POST /v1/groups/:groupId/offsets (group)',
      send: (w) =>
        http()
          .post('/v1/groups/app-set/offsets')
          .set(as(w))
          .send({ topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, committedOffset: 5 }] }] }),
      denied: 'nobody',
      code: 30,
      allowed: 'app',
      status: 200,
    },
    {
      route: 'DELETE /v1/groups/:groupId/offsets',
      send: (w) => http().delete('/v1/groups/app-set/offsets?topic=orders').set(as(w)),
      denied: 'app',
      code: 30,
      allowed: 'ops',
      status: 200,
    },
    {
      route: 'DELETE /v1/groups/:groupId',
      send: (w) => http().delete('/v1/groups/app-set').set(as(w)),
      denied: 'app',
      code: 30,
      allowed: 'ops',
      status: 204,
    },
    {
      route: 'GET /v1/topics/:name',
      send: (w) => http().get('/v1/topics/secret').set(as(w)),
      denied: 'app',
      code: 29,
      allowed: 'ops',
      status: 200,
    },
    {
      route: 'POST /v1/topics',
      send: (w) => http().post('/v1/topics').set(as(w)).send({ name: 'fresh', partitions: 1 }),
      denied: 'app',
      code: 29,
      allowed: 'admin',
      status: 201,
    },
    {
      route: 'PATCH /v1/topics/:name',
      send: (w) => http().patch('/v1/topics/orders').set(as(w)).send({ partitions: 3 }),
      denied: 'app',
      code: 29,
      allowed: 'admin',
      status: 200,
    },
    {
      route: 'PUT /v1/topics/:name/end-offsets',
      send: (w) =>
        http()
          .put('/v1/topics/orders/end-offsets')
          .set(as(w))
          .send({ partitions: [{ partition: 0, endOffset: 50 }] }),
      denied: 'ops',
      code: 29,
      allowed: 'app',
      status: 200,
    },
    {
      route: 'GET /v1/coordinator',
      send: (w) => http().get('/v1/coordinator?groupId=app-1').set(as(w)),
      denied: 'nobody',
      code: 30,
      allowed: 'app',
      status: 200,
    },
    {
      route: 'GET /v1/cluster',
      send: (w) => http().get('/v1/cluster').set(as(w)),
      denied: 'app',
      code: 31,
      allowed: 'ops',
      status: 200,
    },
    {
      route: 'GET /v1/cluster/partitions',
      send: (w) => http().get('/v1/cluster/partitions').set(as(w)),
      denied: 'app',
      code: 31,
      allowed: 'ops',
      status: 200,
    },
    {
      route: 'GET /v1/assignors',
      send: (w) => http().get('/v1/assignors').set(as(w)),
      denied: 'app',
      code: 31,
      allowed: 'ops',
      status: 200,
    },
    {
      route: 'POST /v1/assignors/:name/assign',
      send: (w) =>
        http()
          .post('/v1/assignors/range/assign')
          .set(as(w))
          .send({ partitionsPerTopic: { t: 2 }, members: [{ memberId: 'm', topics: ['t'] }] }),
      denied: 'app',
      code: 31,
      allowed: 'ops',
      status: 200,
    },
    {
      route: 'GET /metrics',
      send: (w) => http().get('/metrics').set(as(w)),
      denied: 'app',
      code: 31,
      allowed: 'ops',
      status: 200,
    },
    {
      route: 'GET /v1/acls',
      send: (w) => http().get('/v1/acls').set(as(w)),
      denied: 'app',
      code: 31,
      allowed: 'ops',
      status: 200,
    },
    {
      route: 'POST /v1/acls',
      send: (w) =>
        http()
          .post('/v1/acls')
          .set(as(w))
          .send({ acls: [allow('User:x', 'READ', 'GROUP', 'x')] }),
      denied: 'ops',
      code: 31,
      allowed: 'admin',
      status: 201,
    },
    {
      route: 'DELETE /v1/acls',
      send: (w) =>
        http()
          .delete('/v1/acls')
          .set(as(w))
          .send({ filters: [{ principal: 'User:x' }] }),
      denied: 'ops',
      code: 31,
      allowed: 'admin',
      status: 200,
    },
  ];

  it.each(cases)(
    '$route: 403 $code without the ACL, $status with it',
    async ({ send, denied, code, allowed, status }) => {
      const refused = await send(denied);
      expect({ status: refused.status, body: refused.body }).toMatchObject({
        status: 403,
        body: { statusCode: 403, errorCode: code },
      });
      expect((await send(allowed)).status).toBe(status);
    },
  );

  it('lists only the groups and topics the caller may describe, and offsets only of such topics', async () => {
    const groups = await http().get('/v1/groups').set(as('app')).expect(200);
    expect(groups.body.length).toBeGreaterThan(0);
    expect(groups.body.every((g: { groupId: string }) => g.groupId.startsWith('app-'))).toBe(true);
    expect((await http().get('/v1/groups').set(as('nobody')).expect(200)).body).toEqual([]);
    const topics = await http().get('/v1/topics').set(as('app')).expect(200);
    expect(topics.body.map((t: { name: string }) => t.name)).toEqual(['orders']);
    const offsets = await http().get('/v1/groups/app-1/offsets').set(as('app')).expect(200);
    expect(offsets.body.offsets.map((o: { topic: string }) => o.topic)).toEqual(['orders']);
    const lag = await http().get('/v1/groups/app-1/lag').set(as('app')).expect(200);
    expect(lag.body.partitions.map((p: { topic: string }) => p.topic)).toEqual(['orders']);
    const everything = await http().get('/v1/groups/app-1/lag').set(as('admin')).expect(200);
    expect(everything.body.partitions.map((p: { topic: string }) => p.topic).sort()).toEqual(['orders', 'secret']);
  });

  it('lists the groups consuming a topic only where the caller may describe the group', async () => {
    const admin = await socketOf('admin');
    for (const groupId of ['app-consumer', 'other-consumer'])
      await emit(admin, 'OffsetCommit', {
        groupId,
        generationId: -1,
        topics: [{ name: 'orders', partitions: [{ partitionIndex: 1, committedOffset: 3 }] }],
      });
    const ids = async (who: keyof typeof TOKENS) =>
      ((await http().get('/v1/groups?topic=orders').set(as(who)).expect(200)).body as { groupId: string }[])
        .map((g) => g.groupId)
        .filter((id) => id.endsWith('-consumer'));
    expect(await ids('admin')).toEqual(['app-consumer', 'other-consumer']);
    expect(await ids('ops')).toEqual(['app-consumer', 'other-consumer']); // DESCRIBE CLUSTER: every group
    expect(await ids('app')).toEqual(['app-consumer']); // DESCRIBE GROUP on app-* only
    // The topic itself: DESCRIBE TOPIC, else 29 (app may read orders, not secret).
    const refused = await http().get('/v1/groups?topic=secret').set(as('app')).expect(403);
    expect(refused.body).toMatchObject({ errorCode: 29, error: 'TOPIC_AUTHORIZATION_FAILED' });
  });

  it('keeps the health probes open and refuses a route to nobody but whom the ACLs allow', async () => {
    await http().get('/health/live').expect(200);
    await http().get('/v1/cluster').set(as('nobody')).expect(403);
  });

  it('audits a REST denial and a REST administrative change with principal, host, operation, resource and outcome', async () => {
    await http().delete('/v1/groups/app-1').set(as('app')).expect(403);
    expect(audit).toContainEqual(
      expect.objectContaining({
        principal: 'User:app',
        host: expect.stringMatching(/127\.0\.0\.1|::1/),
        operation: 'DELETE',
        resourceType: 'GROUP',
        resourceName: 'app-1',
        outcome: 'DENIED',
      }),
    );
    await http().patch('/v1/topics/orders').set(as('admin')).send({ partitions: 4 }).expect(200);
    expect(audit).toContainEqual(
      expect.objectContaining({
        principal: 'User:admin',
        operation: 'ALTER',
        resourceType: 'TOPIC',
        resourceName: 'orders',
        request: 'PATCH /v1/topics/:name',
        outcome: 'SUCCEEDED',
      }),
    );
    await http()
      .post('/v1/acls')
      .set(as('admin'))
      .send({ acls: [allow('User:y', 'DESCRIBE', 'TOPIC', 'orders')] })
      .expect(201);
    expect(audit).toContainEqual(
      expect.objectContaining({
        principal: 'User:admin',
        operation: 'ALTER',
        resourceType: 'CLUSTER',
        request: 'CreateAcls',
        outcome: 'SUCCEEDED',
        detail: expect.stringContaining('User:y DESCRIBE on TOPIC:LITERAL:orders'),
      }),
    );
  });

  it('enforces an ACL change at once: a new grant lets the next request through, its removal stops the one after', async () => {
    await http().get('/v1/cluster').set(as('app')).expect(403);
    await http()
      .post('/v1/acls')
      .set(as('admin'))
      .send({ acls: [allow('User:app', 'DESCRIBE', 'CLUSTER', 'kafka-cluster')] })
      .expect(201);
    await http().get('/v1/cluster').set(as('app')).expect(200);
    const removed = await http()
      .delete('/v1/acls')
      .set(as('admin'))
      .send({ filters: [{ principal: 'User:app', resourceType: 'CLUSTER' }] })
      .expect(200);
    expect(removed.body).toEqual({ deleted: [allow('User:app', 'DESCRIBE', 'CLUSTER', 'kafka-cluster')] });
    await http().get('/v1/cluster').set(as('app')).expect(403);
  });

  it('lists bindings by filter', async () => {
    const listed = await http().get('/v1/acls?principal=User:ops&resourceType=TOPIC').set(as('admin')).expect(200);
    expect(listed.body).toEqual(
      expect.arrayContaining([allow('User:ops', 'READ', 'TOPIC', '*'), deny('User:ops', 'READ', 'TOPIC', 'secret')]),
    );
    expect(listed.body).toHaveLength(2);
    const bad = await http().get('/v1/acls?resourceType=USER').set(as('admin')).expect(400);
    expect(bad.body).toMatchObject({ errorCode: 42, error: 'INVALID_REQUEST' });
  });
});

describe('fuzzed ACL bodies', () => {
  const FIELDS = ['principal', 'host', 'resourceType', 'resourceName', 'patternType', 'operation', 'permission'];
  const nonString = fc.oneof(
    fc.integer(),
    fc.boolean(),
    fc.constant(null),
    fc.array(fc.string(), { maxLength: 2 }),
    fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }),
  );
  /** A near-valid binding or filter with at least one field of the wrong type: never a valid one. */
  const broken = fc
    .tuple(
      fc.record(
        {
          principal: fc.constantFrom('User:a', 'User:*', 'a'),
          resourceType: fc.constantFrom('GROUP', 'TOPIC', 'X'),
          operation: fc.constantFrom('READ', 'ALL'),
        },
        { requiredKeys: [] },
      ),
      fc.constantFrom(...FIELDS),
      nonString,
    )
    .map(([base, field, value]) => ({ ...base, [field]: value }));
  const bodies = (field: 'acls' | 'filters') =>
    fc.oneof(
      fc.jsonValue().filter((v) => typeof v !== 'object' || v === null || Array.isArray(v) || !(field in v)),
      fc.record({
        [field]: fc.oneof(
          fc.jsonValue().filter((v) => !Array.isArray(v)),
          fc.constant([]),
        ),
      }),
      fc.record({ [field]: fc.array(broken, { minLength: 1, maxLength: 3 }) }),
      fc.record({
        [field]: fc.array(fc.oneof(fc.integer(), fc.string(), fc.constant(null)), { minLength: 1, maxLength: 3 }),
      }),
    );

  it('answers every malformed POST and DELETE with a clear 400 INVALID_REQUEST, changes nothing and keeps serving', async () => {
    const before = (await http().get('/v1/acls').set(as('admin')).expect(200)).body;
    for (const [method, field] of [
      ['post', 'acls'],
      ['delete', 'filters'],
    ] as const) {
      await fc.assert(
        fc.asyncProperty(bodies(field), async (body) => {
          const client = http();
          const response = await client[method]('/v1/acls')
            .set(as('admin'))
            .set('Content-Type', 'application/json')
            .send(JSON.stringify(body));
          expect({ body, status: response.status }).toEqual({ body, status: 400 });
          expect(response.body).toMatchObject({
            statusCode: 400,
            errorCode: 42,
            error: 'INVALID_REQUEST',
            message: expect.any(String),
          });
        }),
        { numRuns: 40 },
      );
    }
    expect((await http().get('/v1/acls').set(as('admin')).expect(200)).body).toEqual(before);
    await http().get('/health/live').expect(200);
  });

  it('stores none of a request whose bindings are valid but one', async () => {
    const before = (await http().get('/v1/acls').set(as('admin')).expect(200)).body;
    const response = await http()
      .post('/v1/acls')
      .set(as('admin'))
      .send({
        acls: [allow('User:z', 'READ', 'GROUP', 'z'), { ...allow('User:z', 'READ', 'GROUP', 'z'), operation: 'WRITE' }],
      });
    expect(response.status).toBe(400);
    expect(response.body.message).toContain('acls.1.operation WRITE does not apply to GROUP');
    expect((await http().get('/v1/acls').set(as('admin')).expect(200)).body).toEqual(before);
  });
});
