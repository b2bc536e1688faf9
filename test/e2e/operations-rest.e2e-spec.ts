import { ErrorCode } from '@cohort/protocol';
import { appPerFile } from '../support/app-per-file';
import { eventually, settledTogether } from '../support/group-member';

jest.setTimeout(60_000);

/**
 * The operator REST of docs/operations.md and docs/lag.md: resets by strategy with a dry-run preview,
 * end-offset reports with start offsets and arrival times, lag with Burrow's status, and the assignor
 * dry run with unknown topics.
 */
describe('operations REST (e2e)', () => {
  const app = appPerFile({ topics: { orders: 3, audit: 1 } });
  const pool = app.members({ topics: ['orders'] });
  const http = app.http;

  /** A group with offsets 10/20/30 on orders, and reports: starts 5/0/25, ends 100/200/300. */
  async function seed(groupId: string): Promise<void> {
    const partitions = [10, 20, 30].map((committedOffset, partitionIndex) => ({ partitionIndex, committedOffset }));
    await http()
      .post(`/v1/groups/${groupId}/offsets`)
      .send({ topics: [{ name: 'orders', partitions }] })
      .expect(200);
    await http()
      .put('/v1/topics/orders/end-offsets')
      .send({
        partitions: [
          { partition: 0, endOffset: 100, startOffset: 5 },
          { partition: 1, endOffset: 200 },
          { partition: 2, endOffset: 300, startOffset: 25 },
        ],
      })
      .expect(200);
  }
  const offsetsOf = async (groupId: string) =>
    (
      (await http().get(`/v1/groups/${groupId}/offsets`).expect(200)).body.offsets as {
        partition: number;
        committedOffset: number;
      }[]
    ).map((o) => o.committedOffset);
  const reset = (groupId: string, body: object) => http().post(`/v1/groups/${groupId}/offsets/reset`).send(body);

  it('keeps start offsets and when each report arrived', async () => {
    const before = Date.now();
    await http()
      .put('/v1/topics/audit/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 50, startOffset: 7 }] })
      .expect(200);
    const { body } = await http()
      .put('/v1/topics/audit/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 60 }] })
      .expect(200);
    expect(body).toMatchObject({ name: 'audit', endOffsets: { 0: 60 }, startOffsets: { 0: 7 } });
    expect(body.reportedAt[0]).toBeGreaterThanOrEqual(before);
    expect(body.reportedAt[0]).toBeLessThanOrEqual(Date.now());
    const refused = await http()
      .put('/v1/topics/audit/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 5, startOffset: 9 }] })
      .expect(400);
    expect(refused.body).toMatchObject({
      statusCode: 400,
      errorCode: ErrorCode.INVALID_REQUEST,
      error: 'INVALID_REQUEST',
    });
  });

  it.each([
    ['earliest', {}, [5, 0, 25]],
    ['latest', {}, [100, 200, 300]],
    ['offset', { value: 150 }, [100, 150, 150]], // kept within start and end
    ['offset', { value: 1 }, [5, 1, 25]],
    ['shift', { value: 80 }, [90, 100, 110]],
    ['shift', { value: 250 }, [100, 200, 280]], // clamped to the end
    ['shift', { value: -25 }, [5, 0, 25]], // clamped to the start
    ['current', {}, [10, 20, 30]],
  ])('previews %s %j without changing anything', async (strategy, extra, expected) => {
    const groupId = `preview-${strategy}-${JSON.stringify(extra).replace(/\W/g, '')}`;
    await seed(groupId);
    const { body } = await reset(groupId, { topics: [{ name: 'orders' }], strategy, ...extra }).expect(200);
    expect(body).toEqual({
      groupId,
      dryRun: true,
      offsets: expected.map((newOffset, partition) => ({
        topic: 'orders',
        partition,
        currentOffset: [10, 20, 30][partition],
        newOffset,
      })),
    });
    expect(await offsetsOf(groupId)).toEqual([10, 20, 30]);
  });

  it('executes exactly the previewed offsets, replying once they are committed', async () => {
    await seed('execute');
    const request = { topics: [{ name: 'orders', partitions: [0, 2] }], strategy: 'shift', value: -7 };
    const preview = await reset('execute', request).expect(200);
    const executed = await reset('execute', { ...request, dryRun: false }).expect(200);
    expect(executed.body).toEqual({ ...preview.body, dryRun: false });
    expect(preview.body.offsets.map((o: { newOffset: number }) => o.newOffset)).toEqual([5, 25]);
    expect(await offsetsOf('execute')).toEqual([5, 20, 25]);
    // allTopics: every partition the group has an offset for.
    const all = await reset('execute', { allTopics: true, strategy: 'earliest', dryRun: false }).expect(200);
    expect(all.body.offsets.map((o: { partition: number }) => o.partition)).toEqual([0, 1, 2]);
    expect(await offsetsOf('execute')).toEqual([5, 0, 25]);
  });

  it('refuses to execute while the group has members (409 NON_EMPTY_GROUP), but previews', async () => {
    await seed('busy');
    const member = await pool.member('busy');
    member.start();
    await eventually(() => settledTogether([member]), 'the member settled', 30_000);
    const refused = await reset('busy', { allTopics: true, strategy: 'latest', dryRun: false }).expect(409);
    expect(refused.body).toMatchObject({
      statusCode: 409,
      errorCode: ErrorCode.NON_EMPTY_GROUP,
      error: 'NON_EMPTY_GROUP',
    });
    expect(refused.body.message).toContain('Stable');
    await reset('busy', { allTopics: true, strategy: 'latest' }).expect(200);
    expect(await offsetsOf('busy')).toEqual([10, 20, 30]);
  });

  it.each([
    ['both topics and allTopics', { topics: [{ name: 'orders' }], allTopics: true, strategy: 'earliest' }, 400],
    ['neither topics nor allTopics', { strategy: 'earliest' }, 400],
    ['an unknown strategy', { allTopics: true, strategy: 'yesterday' }, 400],
    ['offset without a value', { allTopics: true, strategy: 'offset' }, 400],
    ['a value that is not an integer', { allTopics: true, strategy: 'shift', value: 1.5 }, 400],
    ['an unknown topic', { topics: [{ name: 'ghost' }], strategy: 'earliest' }, 404],
    [
      'a partition the topic does not have',
      { topics: [{ name: 'orders', partitions: [3] }], strategy: 'earliest' },
      404,
    ],
  ])('answers %s (%j) with %i and changes nothing', async (_label, body, status) => {
    await seed('bad-input');
    const { body: error } = await reset('bad-input', { ...body, dryRun: false }).expect(status);
    expect(error).toMatchObject({
      statusCode: status,
      errorCode: status === 400 ? ErrorCode.INVALID_REQUEST : ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
    });
    expect(await offsetsOf('bad-input')).toEqual([10, 20, 30]);
  });

  it('reports lag per partition with a status and a history', async () => {
    await seed('lagging');
    const { body } = await http().get('/v1/groups/lagging/lag').expect(200);
    expect(body).toMatchObject({ groupId: 'lagging', totalLag: 90 + 180 + 270, maxLag: 270 });
    expect(['OK', 'WARN', 'ERR', 'STOP', 'STALL']).toContain(body.status);
    expect(body.partitions[0]).toMatchObject({
      topic: 'orders',
      partition: 0,
      committedOffset: 10,
      logEndOffset: 100,
      lag: 90,
    });
    expect(body.partitions[0].history.at(-1)).toMatchObject({ committedOffset: 10, logEndOffset: 100, lag: 90 });
    await http().get('/v1/groups/nobody/lag').expect(404);
  });

  it('previews an assignment whose members subscribe to a topic that does not exist', async () => {
    const { body } = await http()
      .post('/v1/assignors/range/assign')
      .send({
        partitionsPerTopic: { orders: 2 },
        members: [
          { memberId: 'a', topics: ['orders', 'deleted'] },
          { memberId: 'b', topics: ['orders'] },
        ],
      })
      .expect(200);
    expect(body).toEqual({
      assignments: { a: [{ topic: 'orders', partitions: [0] }], b: [{ topic: 'orders', partitions: [1] }] },
      unknownTopics: ['deleted'],
    });
  });
});
