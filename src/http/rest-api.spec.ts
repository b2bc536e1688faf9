import request from 'supertest';
import { RecordingNode } from '../../test/support/recording-node';
import { type RunningApp, startAppWithNode } from '../../test/support/test-app';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(30_000);

/** REST translation, validation and the error shape of docs/rest.md, over a node whose coordinator records calls. */
describe('REST API', () => {
  let node: RecordingNode;
  let running: RunningApp;
  const http = () => request(running.app.getHttpServer());

  beforeAll(async () => {
    node = new RecordingNode();
    running = await startAppWithNode(node, { MAX_PAYLOAD_BYTES: '2048' });
  });
  afterAll(() => running.close());
  beforeEach(() => {
    node.calls.length = 0;
    node.ready = true;
  });

  it('shapes a coordinator error as { statusCode, errorCode, error, message }', async () => {
    const response = await http().get('/v1/groups/missing').expect(404);
    expect(response.body).toEqual({
      statusCode: 404,
      errorCode: 69,
      error: 'GROUP_ID_NOT_FOUND',
      message: "group 'missing' does not exist",
    });
  });

  it('rejects an invalid body with 400 INVALID_REQUEST naming the fields, and calls nothing', async () => {
    const response = await http()
      .post('/v1/groups/g/offsets')
      .send({ topics: [{ name: 't', partitions: [{ partitionIndex: 'x' }] }] })
      .expect(400);
    expect(response.body).toMatchObject({ statusCode: 400, errorCode: 42, error: 'INVALID_REQUEST' });
    expect(response.body.message).toContain('topics.0.partitions.0.partitionIndex');
    expect(response.body.message).toContain('topics.0.partitions.0.committedOffset');
    expect(node.requests()).toEqual([]);
  });

  it('answers unparsable JSON, a body over MAX_PAYLOAD_BYTES and an unknown route with INVALID_REQUEST', async () => {
    const unparsable = await http()
      .post('/v1/topics')
      .set('Content-Type', 'application/json')
      .send('{"name":')
      .expect(400);
    expect(unparsable.body).toMatchObject({ errorCode: 42, error: 'INVALID_REQUEST' });
    const huge = await http()
      .post('/v1/topics')
      .send({ name: 'x'.repeat(4096), partitions: 1 })
      .expect(413);
    expect(huge.body).toMatchObject({ statusCode: 413, errorCode: 42 });
    const unknown = await http().get('/v1/nothing-here').expect(404);
    expect(unknown.body).toMatchObject({ statusCode: 404, errorCode: 42, error: 'INVALID_REQUEST' });
  });

  it('rejects an unknown state filter and passes known ones to the coordinator', async () => {
    const bad = await http().get('/v1/groups?state=Sleeping').expect(400);
    expect(bad.body.message).toContain('state');
    await http().get('/v1/groups?state=Stable,Empty').expect(200, []);
    expect(node.requests()).toEqual([{ method: 'listGroupSummaries', args: [['Stable', 'Empty']] }]);
  });

  it('keeps a topic registry: create, read, grow, report end offsets; refuses to shrink or duplicate', async () => {
    await http()
      .post('/v1/topics')
      .send({ name: 'orders', partitions: 2 })
      .expect(201, { name: 'orders', partitions: 2, endOffsets: {}, startOffsets: {}, reportedAt: {} });
    await http().post('/v1/topics').send({ name: 'orders', partitions: 2 }).expect(400);
    await http().post('/v1/topics').send({ name: 'bad name!', partitions: 2 }).expect(400);
    await http().post('/v1/topics').send({ name: 'zero', partitions: 0 }).expect(400);
    await http()
      .patch('/v1/topics/orders')
      .send({ partitions: 4 })
      .expect(200, { name: 'orders', partitions: 4, endOffsets: {}, startOffsets: {}, reportedAt: {} });
    const shrink = await http().patch('/v1/topics/orders').send({ partitions: 1 }).expect(400);
    expect(shrink.body.message).toContain('only grow');
    await http()
      .put('/v1/topics/orders/end-offsets')
      .send({ partitions: [{ partition: 3, endOffset: 100 }] })
      .expect(200)
      .expect(({ body }) =>
        expect(body).toEqual({
          name: 'orders',
          partitions: 4,
          endOffsets: { 3: 100 },
          startOffsets: {},
          reportedAt: { 3: expect.any(Number) },
        }),
      );
    await http()
      .put('/v1/topics/orders/end-offsets')
      .send({ partitions: [{ partition: 9, endOffset: 1 }] })
      .expect(404);
    expect((await http().get('/v1/topics/orders').expect(200)).body).toMatchObject({
      name: 'orders',
      partitions: 4,
      endOffsets: { 3: 100 },
    });
    const missing = await http().get('/v1/topics/nope').expect(404);
    expect(missing.body).toMatchObject({ errorCode: 3, error: 'UNKNOWN_TOPIC_OR_PARTITION' });
    const list = await http().get('/v1/topics').expect(200);
    expect(list.body.map((topic: { name: string }) => topic.name)).toContain('orders');
  });

  it('answers the coordinator of a group by docs/protocol.md placement', async () => {
    const response = await http().get('/v1/coordinator?groupId=payments').expect(200);
    expect(response.body).toMatchObject({ errorCode: 0, nodeId: 0, partition: 13, url: 'http://127.0.0.1:1' });
    await http().get('/v1/coordinator').expect(400);
  });

  it('describes the cluster', async () => {
    await http()
      .get('/v1/cluster')
      .expect(200, {
        clusterId: 'test',
        controllerId: 0,
        nodes: [{ nodeId: 0, url: 'http://127.0.0.1:1', alive: true }],
      });
  });

  it('answers 404 for a dry run of an unknown assignor and 400 for invalid input', async () => {
    const unknown = await http()
      .post('/v1/assignors/nope/assign')
      .send({ partitionsPerTopic: { t: 2 }, members: [{ memberId: 'a', topics: ['t'] }] })
      .expect(404);
    expect(unknown.body).toMatchObject({ errorCode: 112, error: 'UNSUPPORTED_ASSIGNOR' });
    const invalid = await http()
      .post('/v1/assignors/range/assign')
      .send({ partitionsPerTopic: { t: -1 }, members: [{ topics: 't' }] })
      .expect(400);
    expect(invalid.body.message).toContain('partitionsPerTopic');
    expect(invalid.body.message).toContain('members.0.memberId');
  });

  it('reports liveness always and readiness only while the node serves', async () => {
    await http().get('/health/live').expect(200);
    await http().get('/health/ready').expect(200);
    node.ready = false;
    const notReady = await http().get('/health/ready').expect(503);
    expect(notReady.body).toMatchObject({ statusCode: 503, errorCode: 15, error: 'COORDINATOR_NOT_AVAILABLE' });
    expect(notReady.body.message).toContain('loading');
    await http().get('/health/live').expect(200);
  });

  it('exposes Prometheus metrics', async () => {
    // This test's own request is what the counter must show, whichever tests ran before it.
    const notFound =
      /cohort_requests_total\{transport="http",api="GET \/v1\/groups\/:groupId",error="GROUP_ID_NOT_FOUND"\} (\d+)/;
    const countBefore = Number(notFound.exec((await http().get('/metrics').expect(200)).text)?.[1] ?? 0);
    await http().get('/v1/groups/missing-for-metrics').expect(404);
    const response = await http().get('/metrics').expect(200);
    expect(response.headers['content-type']).toContain('text/plain');
    expect(response.text).toContain('# TYPE cohort_requests_total counter');
    expect(Number(notFound.exec(response.text)?.[1])).toBe(countBefore + 1);
    expect(response.text).toContain('cohort_groups{state="Stable"} 0');
    expect(response.text).toContain('process_cpu_user_seconds_total');
  });

  it('serves the OpenAPI document at /docs', async () => {
    const document = await http().get('/docs-json').expect(200);
    expect(Object.keys(document.body.paths)).toEqual(
      expect.arrayContaining([
        '/v1/groups',
        '/v1/groups/{groupId}',
        '/v1/groups/{groupId}/offsets',
        '/v1/topics',
        '/v1/cluster/partitions',
        '/v1/assignors/{name}/assign',
      ]),
    );
    await http().get('/docs').expect(200);
  });
});
