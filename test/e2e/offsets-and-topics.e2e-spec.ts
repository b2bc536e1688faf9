import { eventually, settledTogether } from '../support/group-member';
import { connect, request as emit } from '../support/socket-client';
import { appPerFile } from '../support/app-per-file';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(60_000);

/** Offsets over socket.io and REST (lag, reset, delete), group deletion, and topic growth that rebalances (docs/protocol.md; docs/rest.md). */
describe('offsets and topics (e2e)', () => {
  const app = appPerFile({ topics: { payments: 4 } });
  const pool = app.members({ topics: ['payments'] });
  const http = app.http;

  it('commits offsets of a member and fetches them back, and reports lag against reported end offsets', async () => {
    const a = await pool.member('commit');
    a.start();
    await eventually(() => settledTogether([a]), 'a settled');
    const committed = await a.commit([
      { topic: 'payments', partition: 0, offset: 10, metadata: 'm0' },
      { topic: 'payments', partition: 1, offset: 20 },
    ]);
    expect(committed).toEqual({
      errorCode: 0,
      topics: [
        {
          name: 'payments',
          partitions: [
            { partitionIndex: 0, errorCode: 0 },
            { partitionIndex: 1, errorCode: 0 },
          ],
        },
      ],
    });

    const fetched = await emit(a.socket, 'OffsetFetch', {
      groupId: 'commit',
      topics: [{ name: 'payments', partitionIndexes: [0, 1, 2] }],
    });
    expect(fetched).toMatchObject({
      errorCode: 0,
      topics: [
        {
          name: 'payments',
          partitions: [
            { partitionIndex: 0, committedOffset: 10, metadata: 'm0', errorCode: 0 },
            { partitionIndex: 1, committedOffset: 20, errorCode: 0 },
            { partitionIndex: 2, committedOffset: -1, errorCode: 0 },
          ],
        },
      ],
    });

    await http()
      .put('/v1/topics/payments/end-offsets')
      .send({
        partitions: [
          { partition: 0, endOffset: 15 },
          { partition: 1, endOffset: 20 },
        ],
      })
      .expect(200);
    const offsets = await http().get('/v1/groups/commit/offsets').expect(200);
    expect(offsets.body).toMatchObject({
      groupId: 'commit',
      totalLag: 5,
      offsets: [
        {
          topic: 'payments',
          partition: 0,
          committedOffset: 10,
          metadata: 'm0',
          logEndOffset: 15,
          lag: 5,
          commitTimestamp: expect.any(Number),
        },
        { topic: 'payments', partition: 1, committedOffset: 20, logEndOffset: 20, lag: 0 },
      ],
    });
  });

  it('refuses a commit to an unknown topic or partition per partition, and keeps the rest', async () => {
    const a = await pool.member('unknown-topic');
    a.start();
    await eventually(() => settledTogether([a]), 'a settled');
    const response = await a.commit([
      { topic: 'payments', partition: 3, offset: 7 },
      { topic: 'payments', partition: 99, offset: 7 },
      { topic: 'ghost', partition: 0, offset: 7 },
    ]);
    const codes = Object.fromEntries(
      response.topics.flatMap((t) => t.partitions.map((p) => [`${t.name}-${p.partitionIndex}`, p.errorCode])),
    );
    expect(codes).toEqual({ 'payments-3': 0, 'payments-99': 3, 'ghost-0': 3 });
    const offsets = await http().get('/v1/groups/unknown-topic/offsets').expect(200);
    expect(offsets.body.offsets.map((o: { topic: string; partition: number }) => `${o.topic}-${o.partition}`)).toEqual([
      'payments-3',
    ]);
  });

  it('resets offsets only while the group is Empty, deletes offsets, then deletes the group', async () => {
    const a = await pool.member('reset');
    a.start();
    await eventually(() => settledTogether([a]), 'a settled');
    expect((await a.commit([{ topic: 'payments', partition: 2, offset: 100 }])).errorCode).toBe(0);
    const body = { topics: [{ name: 'payments', partitions: [{ partitionIndex: 2, committedOffset: 5 }] }] };

    const busy = await http().post('/v1/groups/reset/offsets').send(body).expect(409);
    expect(busy.body).toMatchObject({ errorCode: 68, error: 'NON_EMPTY_GROUP' });
    const subscribed = await http().delete('/v1/groups/reset/offsets?topic=payments&partition=2').expect(409);
    expect(subscribed.body).toMatchObject({ errorCode: 86, error: 'GROUP_SUBSCRIBED_TO_TOPIC' });
    const stillThere = await http().delete('/v1/groups/reset').expect(409);
    expect(stillThere.body).toMatchObject({ errorCode: 68, error: 'NON_EMPTY_GROUP' });

    await a.stop();
    expect((await a.leave()).errorCode).toBe(0);
    await eventually(
      async () => (await http().get('/v1/groups/reset').expect(200)).body.state === 'Empty',
      'the group to be Empty',
    );

    const twoPartitions = {
      topics: [
        {
          name: 'payments',
          partitions: [
            { partitionIndex: 2, committedOffset: 5 },
            { partitionIndex: 3, committedOffset: 9 },
          ],
        },
      ],
    };
    await http().post('/v1/groups/reset/offsets').send(twoPartitions).expect(200);
    const fetched = await emit(a.socket, 'OffsetFetch', { groupId: 'reset', topics: null });
    expect(fetched.topics).toEqual([
      {
        name: 'payments',
        partitions: [
          expect.objectContaining({ partitionIndex: 2, committedOffset: 5 }),
          expect.objectContaining({ partitionIndex: 3, committedOffset: 9 }),
        ],
      },
    ]);

    await http().delete('/v1/groups/reset/offsets?topic=payments&partition=3').expect(200);
    const remaining = (await http().get('/v1/groups/reset/offsets').expect(200)).body.offsets;
    expect(remaining).toEqual([expect.objectContaining({ topic: 'payments', partition: 2, committedOffset: 5 })]);

    await http().delete('/v1/groups/reset').expect(204);
    const gone = await http().get('/v1/groups/reset').expect(404);
    expect(gone.body).toMatchObject({ errorCode: 69, error: 'GROUP_ID_NOT_FOUND' });
    await http().delete('/v1/groups/reset').expect(404);
  });

  it('growing a topic rebalances the consumer groups subscribed to it, and only those', async () => {
    await http().post('/v1/topics').send({ name: 'growing', partitions: 2 }).expect(201);
    await http().post('/v1/topics').send({ name: 'steady', partitions: 2 }).expect(201);
    const [a, b] = [
      await pool.member('grow', { topics: ['growing'] }),
      await pool.member('grow', { topics: ['growing'] }),
    ];
    const bystander = await pool.member('not-subscribed', { topics: ['steady'] });
    for (const m of [a, b, bystander]) m.start();
    await eventually(() => settledTogether([a, b]) && settledTogether([bystander]), 'both groups settled');
    const generation = a.generationId;
    const bystanderGeneration = bystander.generationId;
    const bystanderPushes = bystander.pushes.length;

    await http().patch('/v1/topics/growing').send({ partitions: 6 }).expect(200);
    await eventually(
      () => settledTogether([a, b]) && a.generationId > generation && [...a.held(), ...b.held()].length === 6,
      'the group to take the new partitions',
    );
    expect(a.pushes.some((push) => push.groupId === 'grow')).toBe(true);
    expect(bystander.generationId).toBe(bystanderGeneration);
    expect(bystander.pushes).toHaveLength(bystanderPushes);
    const history = await http().get('/v1/groups/grow/rebalances').expect(200);
    const growth = history.body.find(
      (rebalance: { generationId: number }) => rebalance.generationId === a.generationId,
    );
    expect(growth.reason).toMatch(/growing|partition|metadata/i);
  });

  it('lists groups with their state and coordinator, filtered by state', async () => {
    const a = await pool.member('listed');
    a.start();
    await eventually(() => settledTogether([a]), 'a settled');
    const all = await http().get('/v1/groups').expect(200);
    expect(all.body).toContainEqual({
      groupId: 'listed',
      type: 'classic',
      protocolType: 'consumer',
      state: 'Stable',
      members: 1,
      coordinator: 0,
    });
    const empty = await http().get('/v1/groups?state=Empty').expect(200);
    expect(empty.body.map((g: { groupId: string }) => g.groupId)).not.toContain('listed');
    const socket = await connect(app.url);
    const listed = await emit<{ groups: { groupId: string; groupState: string }[] }>(socket, 'ListGroups', {
      statesFilter: ['stable'],
    });
    expect(listed.groups).toContainEqual({
      groupId: 'listed',
      protocolType: 'consumer',
      groupState: 'Stable',
      groupType: 'classic',
    });
    socket.disconnect();
  });
});
