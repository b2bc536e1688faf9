import { appendFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import { eventually, GroupMember, settledTogether } from '../support/group-member';
import { request as emit } from '../support/socket-client';
import { type RunningApp, startApp, tempDataDir } from '../support/test-app';

// Each test starts real servers and sockets; a loaded CI machine needs more than Jest's 5 s.
jest.setTimeout(60_000);

/** Everything acknowledged survives a restart of the process, and a torn log tail is recovered (docs/guarantees.md). */
describe('restart (e2e)', () => {
  // Each test has its own DATA_DIR and node, so that each passes alone and in any order.
  let data: { dir: string; remove(): void };
  let running: RunningApp | null = null;

  beforeEach(() => {
    data = tempDataDir();
  });

  afterEach(async () => {
    await running?.close();
    running = null;
    data.remove();
  });

  async function start(): Promise<RunningApp> {
    running = await startApp({ DATA_DIR: data.dir });
    await eventually(
      async () => (await request(running!.url).get('/health/ready')).status === 200,
      'readiness after start',
    );
    return running;
  }

  async function stop(): Promise<void> {
    await running?.close();
    running = null;
  }

  async function committed(url: string, groupId: string): Promise<unknown> {
    const member = await GroupMember.connect(url, groupId, { topics: ['ledger'] });
    const fetched = await emit(member.socket, 'OffsetFetch', { groupId, topics: null });
    member.socket.disconnect();
    return fetched;
  }

  /** A settled member of `groupId` on topic `ledger` that has committed `offsets`; the member is gone afterwards. */
  async function commitAsMember(
    url: string,
    groupId: string,
    offsets: { topic: string; partition: number; offset: number; metadata?: string }[],
  ): Promise<number> {
    const member = await GroupMember.connect(url, groupId, { topics: ['ledger'] });
    member.start();
    await eventually(() => settledTogether([member]), 'the member settled');
    expect((await member.commit(offsets)).errorCode).toBe(0);
    const generation = member.generationId;
    await member.vanish();
    return generation;
  }

  it('keeps topics, groups and committed offsets across a restart', async () => {
    let app = await start();
    await request(app.url).post('/v1/topics').send({ name: 'ledger', partitions: 3 }).expect(201);
    await request(app.url)
      .put('/v1/topics/ledger/end-offsets')
      .send({ partitions: [{ partition: 0, endOffset: 50 }] })
      .expect(200);
    const generation = await commitAsMember(app.url, 'durable', [
      { topic: 'ledger', partition: 0, offset: 42, metadata: 'kept' },
      { topic: 'ledger', partition: 2, offset: 7 },
    ]);
    const offsetsBefore = await committed(app.url, 'durable');
    await stop();

    app = await start();
    expect((await request(app.url).get('/v1/topics/ledger').expect(200)).body).toMatchObject({
      name: 'ledger',
      partitions: 3,
      endOffsets: { 0: 50 },
    });
    expect(await committed(app.url, 'durable')).toEqual(offsetsBefore);
    const group = await request(app.url).get('/v1/groups/durable').expect(200);
    expect(group.body.generationId).toBeGreaterThanOrEqual(generation);
    const lag = await request(app.url).get('/v1/groups/durable/offsets').expect(200);
    expect(lag.body.offsets[0]).toMatchObject({ topic: 'ledger', partition: 0, committedOffset: 42, lag: 8 });
    await stop();
  });

  it('recovers from a torn tail: garbage after the last record of every segment is dropped, committed data kept', async () => {
    let app = await start();
    await request(app.url).post('/v1/topics').send({ name: 'ledger', partitions: 3 }).expect(201);
    await commitAsMember(app.url, 'torn', [
      { topic: 'ledger', partition: 0, offset: 42, metadata: 'kept' },
      { topic: 'ledger', partition: 2, offset: 7 },
    ]);
    const before = await committed(app.url, 'torn');
    // What the tear must not lose, so that the comparison below cannot pass on two empty answers.
    expect(before).toMatchObject({
      errorCode: 0,
      topics: [
        {
          name: 'ledger',
          partitions: expect.arrayContaining([
            expect.objectContaining({ partitionIndex: 0, committedOffset: 42, metadata: 'kept' }),
            expect.objectContaining({ partitionIndex: 2, committedOffset: 7 }),
          ]),
        },
      ],
    });
    await stop();

    const segments = findSegments(data.dir).filter((file) => statSync(file).size > 0);
    expect(segments.length).toBeGreaterThan(0);
    for (const file of segments)
      appendFileSync(file, Buffer.from('\u0000\u0000\u0001torn write: not a batch\u00ff\u00fe'));

    app = await start();
    expect(await committed(app.url, 'torn')).toEqual(before);
    await request(app.url).get('/v1/topics/ledger').expect(200);
    // The recovered log takes new writes after the truncated tail.
    const member = await GroupMember.connect(app.url, 'after-tear', { topics: ['ledger'] });
    member.start();
    await eventually(() => settledTogether([member]), 'a new group after recovery');
    expect((await member.commit([{ topic: 'ledger', partition: 1, offset: 1 }])).errorCode).toBe(0);
    await member.vanish();
    await stop();
    app = await start();
    expect(await committed(app.url, 'after-tear')).toMatchObject({
      topics: [{ name: 'ledger', partitions: [{ partitionIndex: 1, committedOffset: 1 }] }],
    });
  });
});

function findSegments(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return findSegments(path);
    return /^\d{20}\.log$/.test(entry.name) ? [path] : [];
  });
}
